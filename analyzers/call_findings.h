#pragma once
// Per call: which kinds of finding name it (in the order they first do).
// Built in one pass over the findings, with 8 bytes per call, so reports
// need not hold the findings of a big capture. A call's time lost is the
// call ledger's (stall_ms in call_ledger.h), not a sum of costs.
#include "analyzers/model.h"

#include <string>
#include <vector>

namespace stallscope {

class CallFindings {
public:
    explicit CallFindings(const AnalysisResult& r);
    // Kind names, joined by `sep`: in first-seen order, or sorted by name.
    std::string kinds(uint64_t call_id, const char* sep, bool sorted) const;

private:
    struct Entry {
        uint64_t kinds = 0;  // kind index + 1 per 4 bits, first-seen order
    };
    void add(const Finding& f);
    std::vector<Entry> calls_;  // by call id - 1
    std::vector<std::string> names_;  // at most 15 kinds are tracked per capture
};

} // namespace stallscope
