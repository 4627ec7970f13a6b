#pragma once
// Turns 32-bit TCP sequence numbers into 64-bit positions so that
// wraparound (a stream passing 2^32) never breaks ordering. Each value is
// taken as the one nearest the previous value (RFC 1982 serial arithmetic).
#include <cstdint>

namespace stallscope {

class SeqUnwrapper {
public:
    void reset(uint32_t first) { last_ = int64_t(first) + (int64_t(1) << 32); init_ = true; }
    bool initialised() const { return init_; }
    // Position of `seq` as a 64-bit number; the first value maps to 2^32 + seq
    // so that values slightly before it stay positive.
    int64_t unwrap(uint32_t seq) {
        if (!init_) { reset(seq); return last_; }
        int32_t delta = int32_t(seq - uint32_t(last_));
        int64_t v = last_ + delta;
        if (delta > 0) last_ = v;   // track forward progress only
        return v;
    }
    // Like unwrap() but does not move the reference point.
    int64_t peek(uint32_t seq) const {
        if (!init_) return 0;
        return last_ + int32_t(seq - uint32_t(last_));
    }
private:
    int64_t last_ = 0;
    bool init_ = false;
};

} // namespace stallscope
