#pragma once
// Per-capture and per-operation latency statistics, time lost to each kind
// of finding, and the latency predicted once those stalls are fixed.
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/model.h"
#include "analyzers/accounting/summary_records.h"

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope {

// The name calls are grouped by: the SOAP operation, else "METHOD /path".
std::string operation_key(const Call& c);
LatencyStats latency_stats(std::vector<double> latencies_ms);
Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings);

// Builds the Summary from a few numbers per complete call (a fixed-size
// record, analyzers/accounting/summary_records.h), so a capture whose calls are already
// on disk can still be summarised exactly. Calls may come in any order;
// findings come after all calls, in report order (the order fixes how sums
// round).
class SummaryBuilder {
public:
    // With several threads `c` may be made of a digest: it reads only the
    // fields analyzers/pipeline/call_digest.h lists (add one there if needed).
    void add_call(const Call& c);
    void add_finding(const Finding& f);
    // The same, given complete_calls(f) (the caller has it already).
    void add_finding(const Finding& f, size_t complete);
    // Whether call `id` was added complete; how many of f.calls were (what
    // the ledger needs to count a finding's time, account_finding).
    bool is_complete(uint64_t id);
    size_t complete_calls(const Finding& f);
    // From now on the per-call records live in `file`: memory stops growing
    // with calls. Throws SpillError.
    void spill_to(std::unique_ptr<SpillFile> file) {
        spill_dir_ = file->dir();
        calls_.to_file(std::move(file));
    }
    // With a core to spare (the analysis ran on several threads): after
    // the last call, sorts on another thread the series the findings do not
    // change (the latency, the client's time, its lived time, the latency
    // with every stall fixed: each group's that sorts in memory) while the
    // caller adds the findings; build() takes them sorted. The same values
    // sorted the same way, so the same summary. Throws SpillError.
    void sort_ahead();
    // Sorts each series of one group at a time (the exact medians need
    // them): in memory, or, once spilled, by an external sort in the same
    // directory (2 MiB runs). Throws SpillError.
    Summary build();

private:
    struct Group {
        std::map<std::string, KindLoss> losses;
    };
    // The row of c's operation (operation_key), added when new.
    uint32_t op_index(const Call& c);
    uint32_t kind_bit(const std::string& kind);
    uint32_t fix_index(const std::string& kind, Side side);
    // The statistics of value(id, rec) over the complete calls of group g (0 =
    // all, else 1 + op; NaN = the call has none), `members` of them. When
    // `keep` is given and the series sorted in memory, its sorted values are
    // left there for series_from (unless one is -0.0).
    template <class Value>
    LatencyStats series(size_t g, size_t members, Value value, std::vector<double>* keep = nullptr);
    // The same, for a series equal to base_value's in most calls: `base`
    // holds base_value's sorted values over group g (from series()'s keep);
    // the calls where the two differ are replaced in it (sorted_series.h).
    // Falls back to series() when many differ.
    template <class Value, class Base>
    LatencyStats series_from(size_t g, size_t members, const std::vector<double>& base, Base base_value, Value value);

    // Series sort_ahead() sorts, by group and which (build()'s keys) and
    // the values in id order: they are taken once the sorting is done.
    struct Ahead {
        std::vector<double> v;
        bool plain = true;  // no -0.0: build may keep it as a what-if base
        LatencyStats stats;  // of the sorted values
    };
    // The statistics of a series sorted ahead (made there too), if it was;
    // its sorted values go to `keep` as series() leaves them.
    std::optional<LatencyStats> take_ahead(size_t g, int64_t which, std::vector<double>* keep);

    SummaryRecords calls_;         // by call id; incomplete calls stay zero
    std::string spill_dir_;        // set once calls_ is on file
    std::vector<std::string> ops_;
    std::unordered_map<std::string, uint32_t> op_index_;
    uint32_t last_op_ = UINT32_MAX;  // the operation of the last call added
    std::vector<Group> groups_;    // 0 = overall, 1 + op index
    std::vector<LedgerTotals> totals_;  // the partition summed, same groups
    std::vector<KindTotals> totals_by_kind_;  // the findings' counted time, same groups
    std::vector<std::string> kinds_;
    std::vector<std::pair<std::string, Side>> fixes_;
    std::map<std::pair<size_t, int64_t>, Ahead> ahead_;
    std::future<void> ahead_sorted_;  // after ahead_: waited for before it goes
};

} // namespace stallscope
