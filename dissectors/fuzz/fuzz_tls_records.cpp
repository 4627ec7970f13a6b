// libFuzzer: the TLS record layer and connection parser. Input:
// [split][flags][stream...]. The stream is fed to both directions (client
// as is, server from the middle on), each in two parts split at a
// fuzzer-chosen point, optionally with a gap between, then ended. Checks
// that every record lies inside what was fed, in order, with its header's
// length; and that without a gap the events up to the first loss of framing
// do not depend on the split (resynchronising afterwards looks at the bytes
// at hand, which depend on the split by design).
#include "dissectors/tls/tls_connection.h"

#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

using namespace stallscope;

namespace {

struct Recorder : TlsConnectionListener {
    PerSide<std::vector<uint64_t>> events;
    PerSide<uint64_t> limit = {0, 0};
    PerSide<uint64_t> last_end = {0, 0};
    void on_tls_record(Side dir, const TlsRecord& r, bool, uint32_t) override {
        if (r.last_offset + 1 > limit[dir] || r.first_offset < last_end[dir]) std::abort();
        if (r.last_offset + 1 - r.first_offset != uint64_t(r.length) + 5 || r.body.size() != r.length) std::abort();
        if (r.first_tag > r.last_tag) std::abort();
        last_end[dir] = r.last_offset + 1;
        events[dir].push_back(r.first_offset << 8 | r.type);
    }
    void on_tls_error(Side dir, TlsError code, uint64_t offset, uint64_t) override {
        if (code != TlsError::MalformedHandshake && code != TlsError::HandshakeTooLong &&
            code != TlsError::UnexpectedMessage && code != TlsError::Alert && offset > limit[dir])
            std::abort();
        events[dir].push_back(~uint64_t(code));
        bool lost = code == TlsError::BadContentType || code == TlsError::BadVersion || code == TlsError::RecordTooLong;
        if (lost && !framed[dir]) framed[dir] = events[dir].size();
    }
    PerSide<size_t> framed = {0, 0};  // events up to the first loss of framing (0: none lost)
    std::vector<uint64_t> prefix(Side dir) const {
        return framed[dir] ? std::vector<uint64_t>(events[dir].begin(), events[dir].begin() + ptrdiff_t(framed[dir]))
                           : events[dir];
    }
};

void run(std::span<const uint8_t> stream, size_t split, uint64_t gap, Recorder& rec) {
    TlsLimits lim;
    lim.max_handshake_bytes = 4096;
    TlsConnectionParser p(rec, lim);
    const PerSide<std::span<const uint8_t>> dirs = {stream, stream.subspan(stream.size() / 2)};
    for (Side d : kSides) {
        auto s = dirs[d];
        size_t cut = std::min(split, s.size());
        rec.limit[d] = cut;
        p.feed(d, 0, s.first(cut), 1);
        uint64_t at = cut;
        if (gap) { rec.limit[d] += gap; p.gap(d, at, gap, 2); at += gap; }
        rec.limit[d] += s.size() - cut;
        p.feed(d, at, s.subspan(cut), 3);
        p.end(d, 4);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    std::span<const uint8_t> stream(data + 2, size - 2);
    size_t split = stream.empty() ? 0 : data[0] * stream.size() / 256;
    uint64_t gap = (data[1] & 1) ? (data[1] >> 1) * 13 + 1 : 0;
    Recorder a;
    run(stream, split, gap, a);
    if (!gap) {
        Recorder b;
        run(stream, stream.size(), 0, b);  // the same bytes in one piece
        for (Side d : kSides)
            if (a.prefix(d) != b.prefix(d)) std::abort();
    }
    return 0;
}
