#include "analyzers/calls/response_pairing.h"

#include <algorithm>

namespace stallscope {

namespace {
// Stream offset the ACK acknowledges up to (exclusive), in 32-bit space.
uint32_t acked_offset(uint32_t ack) { return ack - 1; }
// a > b in the 32-bit sequence space.
bool seq_after(uint32_t a, uint32_t b) { return int32_t(a - b) > 0; }
} // namespace

bool ack_covers(uint32_t ack, uint64_t offset) {
    if (ack == 0) return true;
    return !seq_after(uint32_t(offset), acked_offset(ack));
}

PairingChoice choose_request(std::span<const WaitingRequest> waiting, const ResponseStart& r) {
    PairingChoice out;
    size_t u = 0;
    for (const WaitingRequest& w : waiting) {
        if (!ack_covers(r.ack, w.head_end)) break;                                  // the server had not got it yet
        if (w.ack != 0 && seq_after(acked_offset(w.ack), uint32_t(r.offset))) break;  // sent after the response arrived
        ++u;
    }
    out.may_answer = u;
    if (u == 0) return out;
    out.answers_one = true;
    if (!r.hole) return out;
    size_t lost = r.hole_explained ? 0 : 1;
    for (size_t i = 0; i + 1 < u; ++i) {
        const uint32_t before = waiting[i].ack, after = waiting[i + 1].ack;
        if (after == 0) continue;
        bool into_hole = seq_after(acked_offset(after), uint32_t(r.hole_from));
        bool moved = before == 0 || seq_after(after, before);
        if (into_hole && moved) lost = std::max(lost, i + 1);
    }
    out.index = std::min(lost, u - 1);
    return out;
}

} // namespace stallscope
