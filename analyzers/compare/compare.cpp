#include "analyzers/compare/compare.h"

#include "analyzers/accounting/summary.h"
#include "analyzers/compare/compare_input.h"
#include "analyzers/compare/compare_predictions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace stallscope {

const char* latency_change_name(LatencyChange c) {
    switch (c) {
    case LatencyChange::Faster: return "faster";
    case LatencyChange::Slower: return "slower";
    case LatencyChange::Unchanged: return "unchanged";
    case LatencyChange::TooFewCalls: return "too few calls";
    case LatencyChange::OnlyBefore: return "only before";
    case LatencyChange::OnlyAfter: return "only after";
    }
    return "?";
}

const char* verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Fixed: return "fixed";
    case Verdict::Reduced: return "reduced";
    case Verdict::StillPresent: return "still present";
    case Verdict::New: return "new";
    case Verdict::AbsentInBoth: return "absent in both";
    }
    return "?";
}

const std::vector<std::string>& known_finding_kinds() {
    static const std::vector<std::string> k = [] {
        std::vector<std::string> v;
        for (const FindingKindInfo& f : finding_kinds()) v.emplace_back(f.id);
        return v;
    }();
    return k;
}

std::string size_bucket(const Call& c) { return size_bucket_names()[size_bucket_index(c)]; }

namespace {

std::string fmt(const char* f, double a) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, a);
    return buf;
}

CaptureSideInfo side_info(const CompareInput& r) {
    CaptureSideInfo s;
    s.file = r.file;
    s.files = r.files;
    s.calls = r.calls;
    s.complete_calls = r.complete.size();
    s.connections = r.connections;
    s.findings = r.findings;
    s.duration_ms = r.duration_ms;
    return s;
}

using CallList = std::vector<const CompareCall*>;

SideLatency side_latency(const CallList& calls) {
    SideLatency s;
    s.call_ids.reserve(calls.size());
    s.latencies_ms.reserve(calls.size());
    for (const CompareCall* c : calls) {
        s.call_ids.push_back(c->id);
        s.latencies_ms.push_back(c->latency_ms);
    }
    s.stats = latency_stats(s.latencies_ms);
    return s;
}

GroupComparison compare_group(std::string operation, std::string bucket, const CallList& before,
                              const CallList& after, const CompareOptions& o) {
    GroupComparison g;
    g.operation = std::move(operation);
    g.size_bucket = std::move(bucket);
    g.label = g.operation.empty() ? "(all calls)"
                                  : g.size_bucket.empty() ? g.operation : g.operation + " [" + g.size_bucket + "]";
    g.before = side_latency(before);
    g.after = side_latency(after);
    for (size_t i = 0; i < std::min(before.size(), after.size()); ++i)
        g.pairs.emplace_back(before[i]->id, after[i]->id);
    if (before.empty()) { g.change = LatencyChange::OnlyAfter; return g; }
    if (after.empty()) { g.change = LatencyChange::OnlyBefore; return g; }

    double mb = g.before.stats.median_ms, ma = g.after.stats.median_ms;
    g.median_change_ms = ma - mb;
    g.median_change_ratio = mb > 0 ? g.median_change_ms / mb : 0;
    g.p90_change_ms = g.after.stats.p90_ms - g.before.stats.p90_ms;
    g.test = mann_whitney_u(g.before.latencies_ms, g.after.latencies_ms);
    g.shift = hodges_lehmann_shift(g.before.latencies_ms, g.after.latencies_ms, o.confidence);
    g.significant = g.test.valid && g.test.p_value < o.alpha;
    double moved = std::fabs(g.median_change_ms);
    bool large = moved >= o.min_change_ms && moved >= o.min_change_ratio * mb && moved > 0;
    if (g.significant && large)
        g.change = g.median_change_ms < 0 ? LatencyChange::Faster : LatencyChange::Slower;
    else if (!g.significant && g.test.min_p_value >= o.alpha)
        g.change = LatencyChange::TooFewCalls;
    else
        g.change = LatencyChange::Unchanged;
    return g;
}

using Groups = std::map<std::string, std::map<std::string, CallList>>;  // op -> bucket -> calls

Groups group_calls(const CompareInput& r) {
    Groups g;
    for (const CompareCall& c : r.complete)
        g[r.operations[c.operation]][size_bucket_names()[c.bucket]].push_back(&c);
    return g;
}

CallList all_buckets(const Groups& g, const std::string& op) {
    CallList v;
    auto it = g.find(op);
    if (it == g.end()) return v;
    for (auto& [b, calls] : it->second) v.insert(v.end(), calls.begin(), calls.end());
    std::sort(v.begin(), v.end(), [](const CompareCall* a, const CompareCall* b) { return a->id < b->id; });
    return v;
}

// The findings of `kind` (of one side only when `side` is not empty).
KindSide kind_side(const CompareInput& r, const std::string& kind, const std::string& side = "") {
    KindSide s;
    s.calls_total = r.calls;
    auto it = r.tallies.find({kind, side});
    if (it == r.tallies.end()) return s;
    s.findings = it->second.findings;
    s.lost_ms = it->second.lost_ms;
    s.calls_affected = it->second.calls.size();
    return s;
}

std::string describe(const KindSide& s) {
    if (s.findings == 0) return "none";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%llu finding%s on %llu of %llu calls, %.1f ms lost",
                  (unsigned long long)s.findings, s.findings == 1 ? "" : "s", (unsigned long long)s.calls_affected,
                  (unsigned long long)s.calls_total, s.lost_ms);
    return buf;
}

KindComparison compare_kind_counts(const std::string& kind, const CompareInput& before, const CompareInput& after,
                                   const CompareOptions& o, const std::string& side = "");

// Server time of every complete call: the server_time phases, summed.
std::vector<double> server_times(const CompareInput& r) {
    std::vector<double> v;
    v.reserve(r.complete.size());
    for (const CompareCall& c : r.complete) v.push_back(c.server_ms);
    return v;
}

bool noticeably_higher(double before, double after, const RankTest& t, const CompareOptions& o) {
    double up = after - before;
    return t.valid && t.p_value < o.alpha && up > 0 && up >= o.min_change_ms && up >= o.min_change_ratio * before;
}

// The kinds judged on their own measure (see UnderlyingMeasure).
void judge_on_underlying(KindComparison& k, const CompareInput& before, const CompareInput& after,
                         const CompareOptions& o) {
    if (k.kind != "server_time") return;
    std::vector<double> b = server_times(before), a = server_times(after);
    if (b.empty() || a.empty()) return;
    k.has_underlying = true;
    UnderlyingMeasure& u = k.underlying;
    u.name = "server_time_ms";
    u.median_before_ms = latency_stats(b).median_ms;
    u.median_after_ms = latency_stats(a).median_ms;
    u.test = mann_whitney_u(b, a);
    u.higher = noticeably_higher(u.median_before_ms, u.median_after_ms, u.test, o);
    if (k.grew) {
        k.worse = u.higher && k.after.calls_affected >= o.min_worse_calls;
        char buf[200];
        std::snprintf(buf, sizeof buf, "; server time per call: median %.1f -> %.1f ms (p = %.3g)%s", u.median_before_ms,
                      u.median_after_ms, u.test.p_value,
                      u.higher ? "" : ", not longer: the finding shows because the rest of the call got shorter");
        k.reason += buf;
    }
}

KindComparison compare_kind(const std::string& kind, const CompareInput& before, const CompareInput& after,
                            const CompareOptions& o) {
    KindComparison k = compare_kind_counts(kind, before, after, o);
    judge_on_underlying(k, before, after, o);
    // The same rules per side that has findings on either capture.
    for (Side sd : {Side::Client, Side::Server}) {
        std::string name = side_name(sd);
        KindComparison part = compare_kind_counts(kind, before, after, o, name);
        if (part.verdict == Verdict::AbsentInBoth) continue;
        SideVerdict v{name, part.before, part.after, part.verdict, ""};
        if (part.verdict == Verdict::StillPresent || part.verdict == Verdict::Reduced || part.verdict == Verdict::New)
            v.still = still_sentence(kind, name, part.verdict == Verdict::New);
        k.sides.push_back(std::move(v));
    }
    return k;
}

KindComparison compare_kind_counts(const std::string& kind, const CompareInput& before, const CompareInput& after,
                                   const CompareOptions& o, const std::string& side) {
    KindComparison k;
    k.kind = kind;
    k.before = kind_side(before, kind, side);
    k.after = kind_side(after, kind, side);
    std::string facts = "before: " + describe(k.before) + "; after: " + describe(k.after);
    bool b = k.before.findings > 0, a = k.after.findings > 0;
    if (!b && !a) {
        k.verdict = Verdict::AbsentInBoth;
        k.reason = "no finding before or after";
        return k;
    }
    if (b && !a) {
        k.verdict = Verdict::Fixed;
        k.reason = facts;
        if (k.after.calls_total == 0) k.reason += " (but the after capture has no calls)";
        return k;
    }
    if (!b && a) {
        k.verdict = Verdict::New;
        k.grew = true;
        k.worse = k.after.calls_affected >= o.min_worse_calls;
        k.reason = facts;
        return k;
    }
    bool by_cost = k.before.lost_ms > 0 || k.after.lost_ms > 0;
    k.measure = by_cost ? "lost_per_call_ms" : "affected_share";
    double mb = by_cost ? k.before.lost_per_call_ms() : k.before.affected_share();
    double ma = by_cost ? k.after.lost_per_call_ms() : k.after.affected_share();
    k.ratio = mb > 0 ? ma / mb : (ma > 0 ? INFINITY : 1.0);
    // Time lost must move by a noticeable amount too, not just by a ratio.
    bool moved = !by_cost || std::fabs(ma - mb) >= o.min_change_ms;
    k.verdict = k.ratio <= o.reduced_ratio && moved ? Verdict::Reduced : Verdict::StillPresent;
    k.grew = k.ratio >= o.worse_ratio && moved;
    k.worse = k.grew && k.after.calls_affected >= o.min_worse_calls;
    std::string what = by_cost ? "time lost per call" : "share of calls hit";
    k.reason = facts + "; " + what + " x" + (std::isinf(k.ratio) ? std::string("inf") : fmt("%.2f", k.ratio));
    return k;
}

} // namespace

Comparison compare_results(const AnalysisResult& before, const AnalysisResult& after, const CompareOptions& o) {
    return compare_inputs(compare_input(before), compare_input(after), o);
}

Comparison compare_inputs(const CompareInput& before, const CompareInput& after, const CompareOptions& o) {
    Comparison c;
    c.options = o;
    c.before = side_info(before);
    c.after = side_info(after);
    if (c.before.complete_calls == 0) c.notes.push_back("the before capture has no complete call");
    if (c.after.complete_calls == 0) c.notes.push_back("the after capture has no complete call");

    CallList all_b, all_a;
    for (const CompareCall& x : before.complete) all_b.push_back(&x);
    for (const CompareCall& x : after.complete) all_a.push_back(&x);
    c.overall = compare_group("", "", all_b, all_a, o);
    all_b = CallList();
    all_a = CallList();

    Groups gb = group_calls(before), ga = group_calls(after);
    std::set<std::string> ops;
    for (auto& [op, _] : gb) ops.insert(op);
    for (auto& [op, _] : ga) ops.insert(op);
    for (const std::string& op : ops) {
        auto ib = gb.find(op), ia = ga.find(op);
        bool both = ib != gb.end() && ia != ga.end();
        std::set<std::string> bb, ba;
        if (ib != gb.end()) for (auto& [bucket, _] : ib->second) bb.insert(bucket);
        if (ia != ga.end()) for (auto& [bucket, _] : ia->second) ba.insert(bucket);
        // Split by size only where both sides saw the same sizes; a fix that
        // changes message sizes must still be matched by operation.
        if (o.match_by_size && both && bb == ba) {
            for (const std::string& bucket : bb)
                c.groups.push_back(compare_group(op, bucket, ib->second.at(bucket), ia->second.at(bucket), o));
        } else {
            if (o.match_by_size && both)
                c.notes.push_back("operation " + op + ": message sizes differ before and after; matched by operation only");
            c.groups.push_back(compare_group(op, "", all_buckets(gb, op), all_buckets(ga, op), o));
        }
    }

    std::vector<std::string> kinds = known_finding_kinds();
    for (const CompareInput* r : {&before, &after})
        for (const std::string& kind : r->kinds)
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    for (const std::string& k : kinds) c.kinds.push_back(compare_kind(k, before, after, o));
    c.predictions = check_predictions(before, after);
    return c;
}

namespace {
const KindComparison* find_kind(const Comparison& c, const std::string& kind) {
    for (const KindComparison& k : c.kinds)
        if (k.kind == kind) return &k;
    return nullptr;
}

std::string group_change_sentence(const GroupComparison& g) {
    char buf[320];
    std::snprintf(buf, sizeof buf, "median %.3f -> %.3f ms (%+.3f ms, %+.0f%%), Mann-Whitney p = %.4g (%s, %zu vs %zu calls)",
                  g.before.stats.median_ms, g.after.stats.median_ms, g.median_change_ms,
                  g.median_change_ratio * 100, g.test.p_value, g.test.exact ? "exact" : "normal approximation",
                  g.before.latencies_ms.size(), g.after.latencies_ms.size());
    return buf;
}
} // namespace

ExpectationResult expect_fixed(const Comparison& c, const std::string& kind) {
    ExpectationResult r;
    const KindComparison* k = find_kind(c, kind);
    if (!k) {
        r.ok = false;
        r.reasons.push_back("unknown finding kind '" + kind + "'");
        return r;
    }
    if (k->before.findings == 0) {
        r.ok = false;
        r.reasons.push_back(kind + " was not present before (" + c.before.file + ": no finding of that kind), so there is nothing to fix");
    }
    if (k->after.findings > 0) {
        r.ok = false;
        r.reasons.push_back(kind + " is still present after (" + c.after.file + "): " + describe(k->after) +
                            "; before: " + describe(k->before));
    }
    if (c.after.complete_calls == 0) {
        r.ok = false;
        r.reasons.push_back("the after capture (" + c.after.file + ") has no complete call, so it cannot show a fix");
    }
    return r;
}

ExpectationResult expect_no_regression(const Comparison& c) {
    ExpectationResult r;
    for (const KindComparison& k : c.kinds) {
        if (!k.worse) continue;
        r.ok = false;
        r.reasons.push_back(k.kind + (k.verdict == Verdict::New ? " is new: " : " got worse: ") + k.reason);
    }
    auto check = [&](const GroupComparison& g) {
        if (g.change != LatencyChange::Slower) return;
        r.ok = false;
        r.reasons.push_back(g.label + " got slower: " + group_change_sentence(g));
    };
    check(c.overall);
    for (const GroupComparison& g : c.groups) check(g);
    return r;
}

} // namespace stallscope
