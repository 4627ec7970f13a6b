#pragma once
// Before/after comparison of two analyses (a toolkit fix, a setting): calls
// matched by operation (and message size), latency per operation with a rank
// test, findings per kind with a verdict, and the CI expectations.
// Pure: two AnalysisResults in, a Comparison out. Rules: docs/compare.md.
#include "analyzers/compare/compare_stats.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

struct CompareOptions {
    double alpha = 0.05;           // rank test significance level
    double confidence = 0.95;      // of the shift interval
    // A significant change counts as faster/slower only when the median moved
    // by at least this much AND at least this fraction of the before median.
    double min_change_ms = 1.0;
    double min_change_ratio = 0.10;
    // A kind present on both sides: reduced when its measure (time lost per
    // call, or share of calls hit for kinds without a cost) fell to at most
    // reduced_ratio x before; grown when it rose to at least worse_ratio x.
    // Time lost per call must also move by at least min_change_ms: a ratio
    // of microseconds (a loopback handshake) is noise.
    double reduced_ratio = 0.8;
    double worse_ratio = 1.25;
    // ... and counts as worse (a regression) only when it hits at least this
    // many calls after: one cold first call is not a trend (1 = strict).
    uint64_t min_worse_calls = 2;
    bool match_by_size = true;     // split an operation by message size bucket
};

// Latency of one side of a matched group: complete calls only.
struct SideLatency {
    std::vector<uint64_t> call_ids;   // in call order
    std::vector<double> latencies_ms; // same order
    LatencyStats stats;
};

enum class LatencyChange : uint8_t { Faster, Slower, Unchanged, TooFewCalls, OnlyBefore, OnlyAfter };
const char* latency_change_name(LatencyChange c);  // "faster", "slower", "unchanged", "too few calls", ...

struct GroupComparison {
    std::string operation;            // "" for the whole capture
    std::string size_bucket;          // "" when not split by size
    std::string label;                // operation [size bucket], or "(all calls)"
    SideLatency before, after;
    // Matched calls: the i-th complete call of the group before with the
    // i-th after (ids), as many as the shorter side has.
    std::vector<std::pair<uint64_t, uint64_t>> pairs;
    double median_change_ms = 0;      // after - before
    double median_change_ratio = 0;   // change / before median (0 when before median is 0)
    double p90_change_ms = 0;
    RankTest test;                    // before = sample 1
    ShiftEstimate shift;              // after - before
    bool significant = false;         // test.p_value < alpha
    LatencyChange change = LatencyChange::Unchanged;
};

enum class Verdict : uint8_t { Fixed, Reduced, StillPresent, New, AbsentInBoth };
const char* verdict_name(Verdict v);  // "fixed", "reduced", "still present", "new", "absent in both"

struct KindSide {
    uint64_t findings = 0;
    uint64_t calls_affected = 0;      // distinct calls named by the findings
    uint64_t calls_total = 0;         // calls of the capture (complete or not)
    double lost_ms = 0;               // summed counted_ms (the ledger: each millisecond once)
    double lost_per_call_ms() const { return calls_total ? lost_ms / double(calls_total) : 0; }
    double affected_share() const { return calls_total ? double(calls_affected) / double(calls_total) : 0; }
};

// For kinds whose detector flags a share of the call (server_time: at least
// half the call), a finding can appear just because the rest of the call got
// shorter. Such kinds are judged worse on their own measure per call instead.
struct UnderlyingMeasure {
    std::string name;                 // "server_time_ms": server time per call
    double median_before_ms = 0, median_after_ms = 0;
    RankTest test;                    // before = sample 1
    bool higher = false;              // significantly and noticeably higher after
};

// The verdict of one side's findings of a kind (client or server, the side
// that must change): a partial fix shows which side still stalls.
struct SideVerdict {
    std::string side;                 // "client" / "server"
    KindSide before, after;           // only this side's findings
    Verdict verdict = Verdict::AbsentInBoth;  // same rules as the kind's
    // What is left on this side after, and its fix, when it is still
    // present, reduced or new ("the server still holds its response for the
    // client's delayed ACK: set TCP_NODELAY on the server"); else "".
    std::string still;
};

struct KindComparison {
    std::string kind;
    KindSide before, after;
    Verdict verdict = Verdict::AbsentInBoth;
    bool grew = false;                // new, or still present and grown by worse_ratio
    bool worse = false;               // grew, on at least min_worse_calls calls after: a regression
    std::string measure;              // "lost_per_call_ms" or "affected_share": what the ratio compared
    double ratio = 0;                 // after / before of that measure (present on both sides)
    std::string reason;               // one line: why this verdict
    bool has_underlying = false;      // worse was decided by `underlying`
    UnderlyingMeasure underlying;
    // Per side with findings before or after, client first.
    std::vector<SideVerdict> sides;
    // Found on both sides with a verdict that differs between them (a
    // partial fix): reports then name each side.
    bool split_by_side() const {
        for (const SideVerdict& s : sides)
            if (s.verdict != verdict) return true;
        return false;
    }
};

// A prediction of BEFORE (summary.what_if) checked against what AFTER
// measured, for each fix that AFTER shows as made: that kind on that side
// gone (fixed) or hitting a smaller share of the calls (reduced). all_stalls
// when every stall of BEFORE is fixed or reduced. When AFTER made several
// fixes, one more: the prediction for all of them removed together (kind
// and side as below, `fixes` listing them). The one for exactly what AFTER
// removed (`for_after`) comes first. See docs/compare.md.
struct PredictionCheck {
    // A finding kind, "all_stalls", or for fixes removed together: their one
    // kind (side "client+server") or "combined" (side "").
    std::string kind, side;           // side "" for all_stalls
    std::string verdict;              // "fixed" / "reduced"
    bool client_time = false;         // of client_ms (connection_setup), else of latency_ms
    double before_median_ms = 0;
    double predicted_median_ms = 0;
    double measured_median_ms = 0;
    double error_ms = 0;              // predicted - measured
    // The fixes (kind, side) this prediction removes; empty for all_stalls
    // and a single fix (kind, side above).
    std::vector<std::pair<std::string, std::string>> fixes;
    // The prediction for what AFTER removed: its latency fixes (every one
    // made, the Nagle hold fixed on both sides together), not one of them.
    bool for_after = false;
};

struct CaptureSideInfo {
    std::string file;
    std::vector<std::string> files;   // a file set's files (empty: one file)
    uint64_t calls = 0, complete_calls = 0, connections = 0, findings = 0;
    double duration_ms = 0;
};

struct Comparison {
    CompareOptions options;
    CaptureSideInfo before, after;
    GroupComparison overall;                // every complete call
    std::vector<GroupComparison> groups;    // per operation (and size bucket), sorted by label
    std::vector<KindComparison> kinds;      // known kinds first (report order), then others
    std::vector<std::string> notes;         // things the reader must know (e.g. an empty side)
    std::vector<PredictionCheck> predictions;  // BEFORE's what_if against AFTER
};

// The verdict entries reports list: "kind" with the kind's verdict, or
// "kind (side)" with each side's verdict when the kind is split by side.
struct VerdictEntry {
    std::string label;                // "nagle_delayed_ack" / "nagle_delayed_ack (server)"
    std::string kind;
    Verdict verdict = Verdict::AbsentInBoth;
    bool worse = false;               // the kind got worse and this entry is still present
    const SideVerdict* side = nullptr;  // null for a whole kind
};
std::vector<VerdictEntry> verdict_entries(const Comparison& c);

// What is left after a partial fix: the sides of avoidable kinds (not
// server_time) that still cost time after (still present, reduced or new),
// each with its `still` sentence. Empty unless some kind or side was fixed
// or reduced: only a partial fix has a "still".
std::vector<VerdictEntry> still_to_fix(const Comparison& c);

// The sentence for a kind still found on a side after a fix (see SideVerdict::still).
std::string still_sentence(const std::string& kind, const std::string& side, bool is_new);

// The finding kinds the detectors report, in report order.
const std::vector<std::string>& known_finding_kinds();

// Size bucket of a call: request + response body bytes, by decade
// ("<1 KiB", "1-10 KiB", "10-100 KiB", "100 KiB-1 MiB", ">=1 MiB").
std::string size_bucket(const Call& c);

Comparison compare_results(const AnalysisResult& before, const AnalysisResult& after,
                           const CompareOptions& options = {});
// The same from what compare needs of each side (analyzers/compare/compare_input.h):
// the CLI builds each side's input from a spilled analysis and drops the
// analysis before reading the other capture, so memory stays small.
struct CompareInput;
Comparison compare_inputs(const CompareInput& before, const CompareInput& after, const CompareOptions& options = {});

// The expectations a CI gate checks. ok=false comes with one reason per
// failure, each a full sentence naming the kind / operation and the numbers.
struct ExpectationResult {
    bool ok = true;
    std::vector<std::string> reasons;
};
// Present before (>= 1 finding) and gone after (0 findings), with calls after.
ExpectationResult expect_fixed(const Comparison& c, const std::string& kind);
// No kind worse (new, or grown) and no operation (nor all calls) slower.
ExpectationResult expect_no_regression(const Comparison& c);

} // namespace stallscope
