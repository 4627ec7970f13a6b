#include "analyzers/calls/parked_calls.h"

#include "analyzers/result/model_spill.h"

#include <algorithm>
#include <stdexcept>

namespace stallscope {

void ParkedCalls::park(Fifo<CallStatePtr>& calls) {
    // Encoded into one buffer kept per thread, then copied at its size: one
    // allocation a call (encoding straight into the call's string grew it a
    // few times and shrink_to_fit copied it once more).
    thread_local std::string scratch;
    for (auto& cs : calls) {
        Parked p;
        scratch.clear();
        spill_encode(cs->call, scratch);
        p.call.assign(scratch);
        p.seg_first = cs->seg_first;
        p.seg_last = cs->seg_last;
        p.start_line = cs->start_line;
        calls_.push_back(std::move(p));
    }
    calls = {};
}

// No parked call becomes done any more (no bytes come), so only the end
// hands them on, with the windows take_ready would have given them.
void ParkedCalls::take_all(uint64_t segs_end, uint32_t& calls_started, std::vector<ReadyCall>& out) {
    while (!calls_.empty() && !calls_.back().start_line) {
        calls_.pop_back();
        --calls_started;
    }
    for (size_t i = 0; i < calls_.size(); ++i) {
        Parked& p = calls_[i];
        uint64_t end = p.seg_last + 1;
        if (i + 1 < calls_.size()) end = std::max(end, calls_[i + 1].seg_first);
        else end = segs_end;
        ReadyCall r{new_call_state(), p.seg_first, end};
        // Into the (empty) state's own call, whose strings and vectors keep
        // the memory of the calls it held before.
        if (!spill_decode_into(p.call, r.call())) throw std::logic_error("parked call does not decode");
        out.push_back(std::move(r));
    }
    calls_ = {};
}

void ParkedCalls::provisional(std::vector<Call>& out) const {
    for (auto& p : calls_)
        if (Call c; p.start_line && spill_decode(p.call, c)) out.push_back(std::move(c));
}

} // namespace stallscope
