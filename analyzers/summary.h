#pragma once
// Per-capture and per-operation latency statistics, time lost to each kind
// of finding, and the latency predicted once those stalls are fixed.
#include "analyzers/call_ledger.h"
#include "analyzers/model.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope {

// The name calls are grouped by: the SOAP operation, else "METHOD /path".
std::string operation_key(const Call& c);
LatencyStats latency_stats(std::vector<double> latencies_ms);
Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings);

// Builds the Summary from a few numbers per complete call (about 50 bytes),
// so a capture whose calls are already on disk can still be summarised
// exactly. Calls may come in any order; findings come after all calls, in
// report order (the order fixes how sums round).
class SummaryBuilder {
public:
    void add_call(const Call& c);
    void add_finding(const Finding& f);
    Summary build() const;

private:
    struct Saving {
        uint32_t fix = 0;          // index into fixes_
        double ms = 0;
    };
    struct CallRec {
        bool complete = false;
        uint32_t op = 0;
        uint32_t kinds = 0;        // bit per kind_index(): kinds counted for this call
        double latency_ms = 0;
        double avoidable_ms = 0;   // the stalls' part of the call's partition
        double setup_ms = -1;      // SYN -> first request byte (-1: not this call's connection)
        std::vector<Saving> savings;  // what each fix takes off (the ledger's; connection_setup: off setup)
    };
    struct Group {
        std::map<std::string, KindLoss> losses;
    };
    uint32_t kind_bit(const std::string& kind);
    uint32_t fix_index(const std::string& kind, Side side);

    std::vector<CallRec> calls_;   // by call id - 1; incomplete calls stay default
    std::vector<std::string> ops_;
    std::unordered_map<std::string, uint32_t> op_index_;
    std::vector<Group> groups_;    // 0 = overall, 1 + op index
    std::vector<LedgerTotals> totals_;  // the partition summed, same groups
    std::vector<std::string> kinds_;
    std::vector<std::pair<std::string, Side>> fixes_;
};

} // namespace stallscope
