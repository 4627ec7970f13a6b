#include "analyzers/compare/compare_report.h"

#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/ms_text.h"
#include "analyzers/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace stallscope {

namespace {

using json = nlohmann::ordered_json;

std::string printf_str(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string printf_str(const char* f, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// Milliseconds with a precision that suits their size (0.120, 45.31, 1032).
std::string ms(double v) { return ms_number(v); }

std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

std::string p_text(const RankTest& t) {
    if (!t.valid) return "-";
    std::string p = t.p_value < 0.0001 ? "<0.0001" : printf_str("%.4f", t.p_value);
    return p + (t.exact ? " exact" : " normal");
}

std::string shift_text(const ShiftEstimate& s) {
    if (!s.valid) return "-";
    if (!s.has_interval) return "(too few calls)";
    return "[" + ms(s.low) + ", " + ms(s.high) + "]";
}

std::string kind_side_text(const KindSide& s) {
    if (s.findings == 0) return "-";
    return printf_str("%llu, %llu/%llu calls, %s ms", (unsigned long long)s.findings,
                      (unsigned long long)s.calls_affected, (unsigned long long)s.calls_total, ms(s.lost_ms).c_str());
}

// A file set is named by its first file and how many there are.
std::string side_name(const CaptureSideInfo& s) {
    return s.files.size() > 1 ? s.file + " (file set of " + std::to_string(s.files.size()) + " files)" : s.file;
}

std::string side_line(const char* name, const CaptureSideInfo& s) {
    return printf_str("%s %s: %llu calls (%llu complete) on %llu connection%s, %llu finding%s\n", name,
                      side_name(s).c_str(), (unsigned long long)s.calls, (unsigned long long)s.complete_calls,
                      (unsigned long long)s.connections, s.connections == 1 ? "" : "s",
                      (unsigned long long)s.findings, s.findings == 1 ? "" : "s");
}

// A plain text table: columns padded to their widest cell.
std::string table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> w;
    for (auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i) {
            if (w.size() <= i) w.push_back(0);
            w[i] = std::max(w[i], r[i].size());
        }
    std::string out;
    for (auto& r : rows) {
        std::string line = "  ";
        for (size_t i = 0; i < r.size(); ++i) line += (i + 1 < r.size() ? pad(r[i], w[i] + 2) : r[i]);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

// A relative change in whole percent, except that a change just short of
// -100% (91.8 ms -> 0.081 ms) is not rounded to "-100%": that would say the
// calls now take no time at all. Two decimals, truncated toward zero.
std::string percent_change(double ratio) {
    double p = ratio * 100;
    if (std::fabs(p) < 100 && std::fabs(p) >= 99.5) return printf_str("%+.2f%%", std::trunc(p * 100) / 100);
    return printf_str("%+.0f%%", p);
}

std::vector<std::string> group_row(const GroupComparison& g) {
    auto both = [](const LatencyStats& b, const LatencyStats& a, double LatencyStats::*f, bool hb, bool ha) {
        return (hb ? ms(b.*f) : std::string("-")) + " -> " + (ha ? ms(a.*f) : std::string("-"));
    };
    bool hb = !g.before.latencies_ms.empty(), ha = !g.after.latencies_ms.empty();
    std::string change = "-";
    if (hb && ha) {
        change = (g.median_change_ms >= 0 ? "+" : "") + ms(g.median_change_ms);
        if (g.before.stats.median_ms > 0) change += " (" + percent_change(g.median_change_ratio) + ")";
    }
    return {g.label,
            printf_str("%zu/%zu", g.before.latencies_ms.size(), g.after.latencies_ms.size()),
            both(g.before.stats, g.after.stats, &LatencyStats::median_ms, hb, ha),
            both(g.before.stats, g.after.stats, &LatencyStats::p90_ms, hb, ha),
            change,
            hb && ha ? (g.shift.estimate >= 0 ? "+" : "") + ms(g.shift.estimate) + " " + shift_text(g.shift) : "-",
            g.test.valid ? printf_str("%g", g.test.u1) : "-",
            p_text(g.test),
            latency_change_name(g.change)};
}

// "nagle_delayed_ack (client+server)", "nagle_delayed_ack (client) + expect_100_wait (server)", "all stalls".
std::string prediction_label(const PredictionCheck& p) {
    if (p.kind == "all_stalls") return "all stalls";
    if (p.fixes.empty()) return p.kind + " (" + p.side + ")";
    if (p.kind != "combined") return p.kind + " (" + p.side + ")";
    std::string s;
    for (const auto& [kind, side] : p.fixes) s += (s.empty() ? "" : " + ") + kind + " (" + side + ")";
    return s;
}

// "nagle_delayed_ack (server) fixed: predicted median 3.8 ms, measured 5.0 ms (error -1.2 ms)"
std::string prediction_line(const PredictionCheck& p) {
    return prediction_label(p) + " " + p.verdict + ": predicted median " + ms(p.predicted_median_ms) + " ms, measured " +
           ms(p.measured_median_ms) + " ms (error " + (p.error_ms >= 0 ? "+" : "") + ms(p.error_ms) + " ms; before " +
           ms(p.before_median_ms) + " ms" + (p.client_time ? ", client time from SYN)" : ")");
}

// The prediction for what AFTER removed, first: "what after removed,
// nagle_delayed_ack (client+server) fixed: predicted 3.70 / measured 3.49 / error +0.21 ms (median; before 90.0 ms)".
std::string for_after_line(const PredictionCheck& p) {
    return "what after removed, " + prediction_label(p) + " " + p.verdict + ": predicted " + ms(p.predicted_median_ms) +
           " / measured " + ms(p.measured_median_ms) + " / error " + (p.error_ms >= 0 ? "+" : "") + ms(p.error_ms) +
           " ms (median; before " + ms(p.before_median_ms) + " ms)";
}

std::string any_prediction_line(const PredictionCheck& p) { return p.for_after ? for_after_line(p) : prediction_line(p); }

// The verdict lists (fixed, reduced, ...): a kind, or each side of a kind
// found on both sides.
void verdict_lists(const Comparison& c, std::vector<std::string> (&by)[5]) {
    for (const VerdictEntry& e : verdict_entries(c)) by[int(e.verdict)].push_back(e.label + (e.worse ? " (worse)" : ""));
}

std::string list_or_none(const std::vector<std::string>& v) {
    if (v.empty()) return "none";
    std::string s;
    for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

// "p < 0.0001", "p = 0.41" (two significant digits).
std::string p_phrase(const RankTest& t) {
    if (!t.valid) return "no test";
    if (t.p_value < 0.0001) return "p < 0.0001";
    return "p = " + printf_str(t.p_value < 0.01 ? "%.1g" : "%.2g", t.p_value);
}

// "on both sides", "on the client", "" (a kind not split by side).
std::string sides_phrase(const KindComparison& k, Verdict v) {
    bool client = false, server = false;
    for (const SideVerdict& s : k.sides)
        if (s.verdict == v) (s.side == "client" ? client : server) = true;
    if (client && server) return " on both sides";
    if (client) return " on the client";
    if (server) return " on the server";
    return "";
}

std::string kind_title(const std::string& kind) {
    const FindingKindInfo* k = finding_kind_info(kind);
    return k ? std::string(k->title) : kind;
}

} // namespace

std::string compare_verdict_sentence(const Comparison& c) {
    const GroupComparison& g = c.overall;
    std::string out;
    auto medians = [&] {
        std::string change;   // "−96 %, "
        if (g.before.stats.median_ms > 0)
            change = printf_str("%s%.0f %%, ", g.median_change_ratio < 0 ? "\u2212" : "+", std::fabs(g.median_change_ratio) * 100);
        return "median " + ms(g.before.stats.median_ms) + " \u2192 " + ms(g.after.stats.median_ms) + " ms (" + change +
               p_phrase(g.test) + ")";
    };
    switch (g.change) {
    case LatencyChange::Faster: out = "Faster: " + medians(); break;
    case LatencyChange::Slower: out = "Slower: " + medians(); break;
    case LatencyChange::Unchanged: out = "No measurable change (" + p_phrase(g.test) + ")"; break;
    case LatencyChange::TooFewCalls:
        out = printf_str("Too few calls to tell (%zu before, %zu after)", g.before.latencies_ms.size(), g.after.latencies_ms.size());
        break;
    case LatencyChange::OnlyBefore: out = "No complete calls after"; break;
    case LatencyChange::OnlyAfter: out = "No complete calls before"; break;
    }
    // The stalls (time lost) the after capture removed, and any it added.
    std::vector<std::string> fixed, worse;
    for (const KindComparison& k : c.kinds) {
        if (!is_stall_kind(k.kind)) continue;
        if (k.verdict == Verdict::Fixed) fixed.push_back(kind_title(k.kind) + " fixed" + sides_phrase(k, Verdict::Fixed));
        else if (k.split_by_side() && sides_phrase(k, Verdict::Fixed) != "")
            fixed.push_back(kind_title(k.kind) + " fixed" + sides_phrase(k, Verdict::Fixed));
        else if (k.verdict == Verdict::Reduced) fixed.push_back(kind_title(k.kind) + " reduced");
        if (k.worse) worse.push_back(kind_title(k.kind) + (k.verdict == Verdict::New ? " new" : " worse"));
    }
    for (const auto& f : fixed) out += "; " + f;
    for (const auto& w : worse) out += "; " + w;
    return out;
}

std::string compare_text(const Comparison& c, const std::vector<CheckedExpectation>& checked) {
    std::string out = compare_verdict_sentence(c) + "\n\nStallScope comparison\n";
    out += side_line("before", c.before);
    out += side_line("after ", c.after);

    out += printf_str("\nLatency per operation (ms, complete calls; change = after - before; shift = Hodges-Lehmann "
                      "estimate with its %.0f%% confidence interval; U of before and two-sided Mann-Whitney p)\n",
                      c.options.confidence * 100);
    std::vector<std::vector<std::string>> rows = {
        {"operation", "calls b/a", "median b -> a", "p90 b -> a", "median change", "shift [CI]", "U", "p", "latency"}};
    rows.push_back(group_row(c.overall));
    for (auto& g : c.groups) rows.push_back(group_row(g));
    out += table(rows);

    out += "\nFindings per kind (findings, calls hit / calls, time lost)\n";
    rows = {{"kind", "before", "after", "verdict"}};
    for (auto& k : c.kinds) {
        std::string v = verdict_name(k.verdict);
        if (k.worse && k.verdict == Verdict::StillPresent) v += " (worse)";
        if (k.grew && !k.worse && k.has_underlying && !k.underlying.higher)
            v += printf_str(" (not a regression: server time per call %s -> %s ms)",
                            ms(k.underlying.median_before_ms).c_str(), ms(k.underlying.median_after_ms).c_str());
        else if (k.grew && !k.worse)
            v += printf_str(" (%s on %llu call%s: not a regression)", k.verdict == Verdict::New ? "only" : "grew",
                            (unsigned long long)k.after.calls_affected, k.after.calls_affected == 1 ? "" : "s");
        rows.push_back({k.kind, kind_side_text(k.before), kind_side_text(k.after), v});
        if (k.split_by_side())
            for (auto& s : k.sides)
                rows.push_back({"  (" + s.side + ")", kind_side_text(s.before), kind_side_text(s.after), verdict_name(s.verdict)});
    }
    out += table(rows);

    std::vector<std::string> by[5], slower, faster;
    verdict_lists(c, by);
    for (const GroupComparison* g : {&c.overall}) {
        if (g->change == LatencyChange::Slower) slower.push_back(g->label);
        if (g->change == LatencyChange::Faster) faster.push_back(g->label);
    }
    for (auto& g : c.groups) {
        if (g.change == LatencyChange::Slower) slower.push_back(g.label);
        if (g.change == LatencyChange::Faster) faster.push_back(g.label);
    }
    out += "\nVerdict\n";
    out += "  fixed:         " + list_or_none(by[int(Verdict::Fixed)]) + "\n";
    out += "  reduced:       " + list_or_none(by[int(Verdict::Reduced)]) + "\n";
    out += "  still present: " + list_or_none(by[int(Verdict::StillPresent)]) + "\n";
    out += "  new:           " + list_or_none(by[int(Verdict::New)]) + "\n";
    out += "  faster:        " + list_or_none(faster) + "\n";
    out += "  slower:        " + list_or_none(slower) + "\n";
    if (auto left = still_to_fix(c); !left.empty()) {
        out += "\nStill to fix (per side)\n";
        for (auto& e : left) out += "  " + e.label + " " + verdict_name(e.verdict) + ": " + e.side->still + "\n";
    }
    for (auto& n : c.notes) out += "note: " + n + "\n";
    if (!c.predictions.empty()) {
        out += "\nPredictions (made from before's findings, checked against after's median)\n";
        for (auto& p : c.predictions) out += "  " + any_prediction_line(p) + "\n";
    }
    for (auto& e : checked) {
        out += "\n" + e.name + ": " + (e.result.ok ? "passed" : "FAILED") + "\n";
        for (auto& r : e.result.reasons) out += "  " + r + "\n";
    }
    return out;
}

namespace {

json side_json(const CaptureSideInfo& s) {
    json j = {{"file", s.file},         {"calls", s.calls},       {"complete_calls", s.complete_calls},
              {"connections", s.connections}, {"findings", s.findings}, {"duration_ms", round_ms(s.duration_ms)}};
    if (!s.files.empty()) j["files"] = s.files;  // a file set: `file` is its first
    return j;
}

json latency_json(const SideLatency& s) {
    return {{"calls", s.latencies_ms.size()}, {"median_ms", round_ms(s.stats.median_ms)},
            {"p90_ms", round_ms(s.stats.p90_ms)}, {"mean_ms", round_ms(s.stats.mean_ms)},
            {"max_ms", round_ms(s.stats.max_ms)}, {"call_ids", s.call_ids}};
}

json num_or_null(double v, bool ok) { return ok && std::isfinite(v) ? json(v) : json(nullptr); }

json group_json(const GroupComparison& g) {
    bool both = g.test.valid;
    json pairs = json::array();
    for (auto& [b, a] : g.pairs) pairs.push_back({b, a});
    json j = {{"label", g.label},
              {"operation", g.operation.empty() ? json(nullptr) : json(g.operation)},
              {"size_bucket", g.size_bucket.empty() ? json(nullptr) : json(g.size_bucket)},
              {"change", latency_change_name(g.change)},
              {"significant", g.significant},
              {"before", latency_json(g.before)},
              {"after", latency_json(g.after)},
              {"median_change_ms", num_or_null(round_ms(g.median_change_ms), both)},
              {"median_change_ratio", num_or_null(std::round(g.median_change_ratio * 10000) / 10000, both)},
              {"p90_change_ms", num_or_null(round_ms(g.p90_change_ms), both)}};
    j["rank_test"] = {{"u_before", num_or_null(g.test.u1, both)},
                      {"u_after", num_or_null(g.test.u2, both)},
                      {"p_value", num_or_null(g.test.p_value, both)},
                      {"z", num_or_null(g.test.z, both && !g.test.exact)},
                      {"exact", g.test.exact},
                      {"ties", g.test.ties},
                      {"min_p_value", num_or_null(g.test.min_p_value, both)},
                      {"method", g.test.method}};
    j["shift"] = {{"estimate_ms", num_or_null(round_ms(g.shift.estimate), g.shift.valid)},
                  {"ci_low_ms", num_or_null(round_ms(g.shift.low), g.shift.has_interval)},
                  {"ci_high_ms", num_or_null(round_ms(g.shift.high), g.shift.has_interval)},
                  {"confidence", num_or_null(std::round(g.shift.confidence * 10000) / 10000, g.shift.has_interval)},
                  {"exact", g.shift.exact},
                  {"thinned", g.shift.thinned}};
    j["pairs"] = pairs;
    return j;
}

json kind_side_json(const KindSide& s) {
    return {{"findings", s.findings}, {"calls_affected", s.calls_affected}, {"calls_total", s.calls_total},
            {"lost_ms", round_ms(s.lost_ms)}, {"lost_per_call_ms", round_ms(s.lost_per_call_ms())},
            {"affected_share", std::round(s.affected_share() * 10000) / 10000}};
}

json sides_json(const KindComparison& k) {
    json a = json::array();
    for (auto& s : k.sides)
        a.push_back({{"side", s.side},
                     {"verdict", verdict_name(s.verdict)},
                     {"before", kind_side_json(s.before)},
                     {"after", kind_side_json(s.after)},
                     {"still", s.still.empty() ? json(nullptr) : json(s.still)}});
    return a;
}

} // namespace

// For a pull request: the verdict first, then compact tables without the
// rows that say nothing (kinds absent in both; "(all calls)" when there is
// only one operation), the predictions and the expectations.
std::string compare_markdown(const Comparison& c, const std::vector<CheckedExpectation>& checked) {
    auto cell = [](std::string v) {
        std::string o;
        for (char ch : v) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
        return o;
    };
    auto base = [](const std::string& f) { auto k = f.find_last_of('/'); return k == std::string::npos ? f : f.substr(k + 1); };
    std::vector<std::string> by[5], faster, slower;
    verdict_lists(c, by);
    auto latency = [&](const GroupComparison& g) {
        if (g.change == LatencyChange::Faster) faster.push_back(g.label);
        if (g.change == LatencyChange::Slower) slower.push_back(g.label);
    };
    if (c.groups.size() != 1) latency(c.overall);
    for (auto& g : c.groups) latency(g);

    std::string out = "**" + cell(compare_verdict_sentence(c)) + "**\n\n";
    out += "### StallScope: `" + cell(base(c.before.file)) + "` → `" + cell(base(c.after.file)) + "`\n\n";
    out += "**Verdict:** fixed: " + list_or_none(by[int(Verdict::Fixed)]) + "; reduced: " +
           list_or_none(by[int(Verdict::Reduced)]) + "; still present: " + list_or_none(by[int(Verdict::StillPresent)]) +
           "; new: " + list_or_none(by[int(Verdict::New)]) + "; faster: " + list_or_none(faster) +
           "; slower: " + list_or_none(slower) + "\n\n";

    out += "| operation | calls b/a | median ms b → a | p90 ms b → a | median change | p | latency |\n";
    out += "|---|---:|---:|---:|---:|---:|---|\n";
    auto group_md = [&](const GroupComparison& g) {
        auto r = group_row(g);  // operation, calls, median, p90, change, shift, U, p, latency
        out += "| " + cell(r[0]) + " | " + r[1] + " | " + r[2] + " | " + r[3] + " | " + r[4] + " | " + r[7] + " | " +
               r[8] + " |\n";
    };
    if (c.groups.size() != 1) group_md(c.overall);
    for (auto& g : c.groups) group_md(g);

    bool any_kind = false;
    for (auto& k : c.kinds) any_kind |= k.verdict != Verdict::AbsentInBoth;
    if (any_kind) {
        out += "\n| finding | before | after | verdict |\n|---|---|---|---|\n";
        for (auto& k : c.kinds) {
            if (k.verdict == Verdict::AbsentInBoth) continue;
            std::string v = verdict_name(k.verdict);
            if (k.worse && k.verdict == Verdict::StillPresent) v += " (worse)";
            out += "| " + cell(k.kind) + " | " + kind_side_text(k.before) + " | " + kind_side_text(k.after) + " | " + v + " |\n";
            if (k.split_by_side())
                for (auto& sv : k.sides)
                    out += "| " + cell(k.kind) + " (" + sv.side + ") | " + kind_side_text(sv.before) + " | " +
                           kind_side_text(sv.after) + " | " + verdict_name(sv.verdict) + " |\n";
        }
    }
    if (auto left = still_to_fix(c); !left.empty()) {
        out += "\n**Still to fix** (per side):\n\n";
        for (auto& e : left) out += "- " + cell(e.label) + " " + verdict_name(e.verdict) + ": " + e.side->still + "\n";
    }
    if (!c.predictions.empty()) {
        out += "\n**Predictions** (from before's findings, checked against after's median):\n\n";
        for (auto& p : c.predictions)
            out += "- " + (p.for_after ? "**" + for_after_line(p) + "**" : prediction_line(p)) + "\n";
    }
    for (auto& n : c.notes) out += "\n> " + n + "\n";
    if (!checked.empty()) out += "\n";
    for (auto& e : checked) {
        out += "- `" + e.name + "`: " + (e.result.ok ? "passed" : "**FAILED**") + "\n";
        for (auto& r : e.result.reasons) out += "  - " + r + "\n";
    }
    return out;
}

std::string compare_json(const Comparison& c, const std::vector<CheckedExpectation>& checked, int indent) {
    json doc;
    doc["stallscope_version"] = "0.1.0";
    doc["comparison_format"] = 1;
    doc["verdict_sentence"] = compare_verdict_sentence(c);
    doc["before"] = side_json(c.before);
    doc["after"] = side_json(c.after);
    const CompareOptions& o = c.options;
    doc["options"] = {{"alpha", o.alpha},
                      {"confidence", o.confidence},
                      {"min_change_ms", o.min_change_ms},
                      {"min_change_ratio", o.min_change_ratio},
                      {"reduced_ratio", o.reduced_ratio},
                      {"worse_ratio", o.worse_ratio},
                      {"min_worse_calls", o.min_worse_calls},
                      {"match_by_size", o.match_by_size}};
    doc["overall"] = group_json(c.overall);
    json ops = json::array();
    for (auto& g : c.groups) ops.push_back(group_json(g));
    doc["operations"] = ops;
    json kinds = json::array();
    for (auto& k : c.kinds)
        kinds.push_back({{"kind", k.kind},
                         {"verdict", verdict_name(k.verdict)},
                         {"grew", k.grew},
                         {"worse", k.worse},
                         {"before", kind_side_json(k.before)},
                         {"after", kind_side_json(k.after)},
                         {"measure", k.measure.empty() ? json(nullptr) : json(k.measure)},
                         {"ratio", num_or_null(std::round(k.ratio * 10000) / 10000, !k.measure.empty())},
                         {"reason", k.reason},
                         {"underlying", k.has_underlying
                                            ? json{{"name", k.underlying.name},
                                                   {"median_before_ms", round_ms(k.underlying.median_before_ms)},
                                                   {"median_after_ms", round_ms(k.underlying.median_after_ms)},
                                                   {"p_value", k.underlying.test.p_value},
                                                   {"higher", k.underlying.higher}}
                                            : json(nullptr)},
                         {"sides", sides_json(k)}});
    doc["kinds"] = kinds;
    doc["notes"] = c.notes;
    json preds = json::array();
    for (auto& p : c.predictions) {
        // Rounded to the microseconds they have, as every other ms field.
        json e = {{"kind", p.kind}, {"side", p.side}, {"predicted_median_ms", round_ms(p.predicted_median_ms)},
                  {"measured_median_ms", round_ms(p.measured_median_ms)}, {"error_ms", round_ms(p.error_ms)},
                  {"verdict", p.verdict}, {"before_median_ms", round_ms(p.before_median_ms)}};
        if (p.client_time) e["of"] = "client_ms";
        json fixes = json::array();
        for (const auto& [kind, side] : p.fixes) fixes.push_back({{"kind", kind}, {"side", side}});
        e["fixes"] = fixes;
        e["for_after"] = p.for_after;
        if (p.for_after) doc["prediction_for_after"] = e;
        preds.push_back(e);
    }
    doc["predictions"] = preds;
    if (!doc.contains("prediction_for_after")) doc["prediction_for_after"] = nullptr;
    json exp = json::array();
    for (auto& e : checked) exp.push_back({{"name", e.name}, {"ok", e.result.ok}, {"reasons", e.result.reasons}});
    doc["expectations"] = exp;
    // Operation names come from the captures: invalid UTF-8 is replaced, as in analyze's JSON, not thrown.
    return doc.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace stallscope
