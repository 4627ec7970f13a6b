#include "analyzers/detectors/nagle_stalls.h"
#include "analyzers/detectors/detector.h"

#include "analyzers/result/capture_point.h"
#include "analyzers/detectors/detector_util.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <cstdint>

namespace stallscope::detect {

namespace {
bool is_data(const SegmentInfo& s) {
    return s.len > 0 && !(s.flags & (tcpflag::kSyn | tcpflag::kRst));
}
} // namespace

std::vector<NagleStall> find_nagle_stalls(const Call& call, const Connection& conn) {
    return find_nagle_stalls(call, conn, path_position(conn));
}

std::vector<NagleStall> find_nagle_stalls(const Call& call, const Connection& conn, const PathPosition& where) {
    std::vector<NagleStall> out;
    const auto& segs = call.segments;
    const int64_t rtt = rtt_estimate_ns(call, conn);
    for (size_t bi = 0; bi < segs.size(); ++bi) {
        const SegmentInfo& b = segs[bi];
        if (!is_data(b) || b.retransmission) continue;
        int group = message_group(b.carries);
        if (group == 0) continue;
        // A: the sender's previous data segment (a retransmission there means
        // the gap was loss recovery, not Nagle).
        size_t ai = bi;
        while (ai > 0) {
            --ai;
            if (segs[ai].from == b.from && is_data(segs[ai])) break;
            if (ai == 0) { ai = bi; break; }
        }
        if (ai == bi) continue;
        const SegmentInfo& a = segs[ai];
        if (a.from != b.from || !is_data(a) || a.retransmission || message_group(a.carries) != group) continue;
        if (a.len >= usable_mss(call, conn, a.from)) continue;  // Nagle only holds behind a small segment
        if (a.acked_ns < 0 || !a.acked_by_pure_ack || a.acked_frame == 0 || a.acked_frame >= b.frame) continue;

        // The ACK is late by what exceeds the way from the capture to the
        // receiver and back; B, released when the ACK reaches the sender,
        // passes the capture the way to the sender and back after the ACK did.
        const int64_t to_receiver = path_to(where, peer_of(a.from)), to_sender = path_to(where, a.from);
        if (a.acked_ns - a.ts_ns < kLateAckNs + to_receiver) continue;
        const int64_t slack = kCouplingNs + where.rtt_ns() / 10;  // jitter of the path
        int64_t release = b.ts_ns - a.acked_ns;
        if (release < 0 || release < to_sender - slack || release > to_sender + slack) continue;

        // The peer sent nothing between A and its ACK: it had no data to
        // carry the ACK, which is why its delayed-ACK timer ran out.
        size_t acki = SIZE_MAX;
        bool peer_data = false;
        for (size_t k = ai + 1; k < bi; ++k) {
            if (segs[k].from == a.from) continue;
            if (segs[k].frame == a.acked_frame) { acki = k; break; }
            if (is_data(segs[k])) peer_data = true;
        }
        if (peer_data) continue;

        NagleStall st;
        st.sender = a.from;
        st.a = ai;
        st.ack = acki;
        st.b = bi;
        st.a_frame = a.frame;
        st.ack_frame = a.acked_frame;
        st.b_frame = b.frame;
        st.a_ns = a.ts_ns;
        st.ack_ns = a.acked_ns;
        st.b_ns = b.ts_ns;
        st.a_len = a.len;
        st.b_len = b.len;
        st.a_carries = a.carries;
        st.b_carries = b.carries;
        st.rtt_ns = rtt;
        st.cost_ms = std::max<double>(0, ms(b.ts_ns - a.ts_ns - rtt));
        st.after_continue = (a.carries & carries::kContinue) && !(b.carries & carries::kContinue);
        out.push_back(st);
    }
    return out;
}

} // namespace stallscope::detect

namespace stallscope {

CallScan::CallScan(const Call& call, const Connection& conn) : call_(call), conn_(conn) {}
CallScan::~CallScan() = default;

const std::vector<detect::NagleStall>& CallScan::nagle_stalls() const {
    if (!searched_) {
        nagle_ = detect::find_nagle_stalls(call_, conn_, where());
        searched_ = true;
    }
    return nagle_;
}

const PathPosition& CallScan::where() const {
    if (!placed_) {
        where_ = path_position(conn_);
        placed_ = true;
    }
    return where_;
}

} // namespace stallscope
