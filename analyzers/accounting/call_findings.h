#pragma once
// Per call: which kinds of finding name it (in the order they first do).
// Built in one pass over the findings, with 8 bytes per call (in a spill
// file next to a spilled result's, a few blocks cached), so reports need
// not hold the findings of a big capture. A call's time lost is the
// call ledger's (stall_ms in call_ledger.h), not a sum of costs.
#include "analyzers/result/model.h"
#include "analyzers/spill/spill_array.h"

#include <string>
#include <vector>

namespace stallscope {

class CallFindings {
public:
    explicit CallFindings(const AnalysisResult& r) : CallFindings(r, true) {}
    // `fill` false: empty, for a reader that makes its own pass over the
    // findings: add() each in report order, then done().
    CallFindings(const AnalysisResult& r, bool fill);
    void add(const Finding& f);  // needs kind and calls only
    void done() { calls_.flush(); }
    // Kind names, joined by `sep`: in first-seen order, or sorted by name.
    std::string kinds(uint64_t call_id, const char* sep, bool sorted) const;

private:
    uint64_t entry(uint64_t call_id) const;
    // By call id - 1: kind index + 1 per 4 bits, first-seen order.
    SpillArray<uint64_t> calls_{4096, 4};
    mutable std::vector<uint64_t> chunk_;  // reports ask in id order: read 4096 entries at a time
    mutable uint64_t chunk_first_ = 0;
    std::vector<std::string> names_;  // at most 15 kinds are tracked per capture
};

} // namespace stallscope
