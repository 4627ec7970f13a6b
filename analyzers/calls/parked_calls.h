#pragma once
// The calls of a closed connection while it lingers (ExchangeTracker::park):
// no more bytes come, so they are kept encoded (model_spill), a few hundred
// bytes each instead of a CallState, until the end hands them on with the
// segment windows they would have had.
#include "analyzers/calls/call_state_pool.h"
#include "analyzers/calls/fifo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope {

class ParkedCalls {
public:
    // Encodes and takes every call of `calls` (left empty, its memory given back).
    void park(Fifo<CallStatePtr>& calls);
    // Hands every parked call on into `out` (a call whose request line never
    // completed is not one: those at the end are dropped, each taking one off
    // `calls_started`). The last call's window runs to `segs_end`.
    void take_all(uint64_t segs_end, uint32_t& calls_started, std::vector<ReadyCall>& out);
    // Copies of the parked calls that are calls (for live snapshots), appended to `out`.
    void provisional(std::vector<Call>& out) const;
    // The oldest segment a parked call needs; `none` when none is parked.
    uint64_t oldest_needed_segment(uint64_t none) const {
        return calls_.empty() ? none : calls_.front().seg_first;
    }

private:
    struct Parked {
        std::string call;  // spill_encode(Call)
        uint64_t seg_first = 0, seg_last = 0;
        bool start_line = false;
    };
    std::vector<Parked> calls_;
};

} // namespace stallscope
