#include "analyzers/diagram/html_report.h"

#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/diagram_text.h"
#include "analyzers/diagram/timeline_layout.h"
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/result_spill.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <unordered_map>

namespace stallscope {

std::string html_escape(const std::string& raw) {
    std::string s = clean_text(raw), out;
    out.reserve(s.size() + s.size() / 8);
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

namespace {

const char* kStyle = R"(
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:24px auto;max-width:1240px;color:#222;line-height:1.4;padding:0 16px}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.88em;margin:.6em 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:#666}.kv td:first-child{color:#555}
.finding{border-left:4px solid #d62728;padding:6px 12px;margin:10px 0;background:#fdf3f3}
.finding h3{margin:0 0 4px 0;font-size:1em}.cost{color:#b71c1c;font-weight:bold}
.frames{font-family:"DejaVu Sans Mono",monospace;font-size:.9em}
.timeline{overflow-x:auto;border:1px solid #eee;margin:.6em 0}.timeline svg{display:block;max-width:100%;height:auto}
.warn{color:#8a5a00}
)";

std::string ms(double v) { return html_escape(format_ms(v)); }

std::string list_ids(const std::vector<uint64_t>& ids, size_t max, const char* prefix) {
    std::string s;
    for (size_t i = 0; i < ids.size() && i < max; ++i) s += (i ? ", " : "") + std::string(prefix) + std::to_string(ids[i]);
    if (ids.size() > max) s += ", \u2026 (" + std::to_string(ids.size()) + " in all)";
    return s;
}

std::string call_operation(const Call& c) {
    if (!c.soap.operation.empty()) return c.soap.operation;
    return c.method.empty() ? std::string() : c.method + " " + c.uri;
}

void latency_row(std::ostream& o, const std::string& name, const SummaryGroup& g) {
    o << "<tr><td>" << html_escape(name) << "</td><td class=n>" << g.latency.calls << "</td><td class=n>"
      << ms(g.latency.median_ms) << "</td><td class=n>" << ms(g.latency.p90_ms) << "</td><td class=n>"
      << ms(g.latency.max_ms) << "</td><td class=n>" << ms(g.latency.total_ms) << "</td><td>";
    std::vector<KindLoss> losses = g.losses;
    std::sort(losses.begin(), losses.end(), [](const KindLoss& a, const KindLoss& b) { return a.lost_ms > b.lost_ms; });
    for (size_t i = 0; i < losses.size(); ++i) {
        char share[32];
        std::snprintf(share, sizeof share, "%.0f%%", losses[i].share * 100);
        o << (i ? "<br>" : "") << html_escape(finding_kind_title(losses[i].kind)) << ": " << ms(losses[i].lost_ms)
          << (is_stall_kind(losses[i].kind) ? "" : " server processing, not lost") << " <span class=muted>(" << share
          << ", " << losses[i].calls << (losses[i].calls == 1 ? " call" : " calls") << ")</span>";
    }
    o << "</td><td class=n>" << ms(g.predicted_median_ms) << "</td></tr>\n";
}

} // namespace

namespace {
// The `k` findings that lost the most time (counted, then cost; ties in
// report order, as a stable sort of all of them gives), holding at most 2k
// at a time: a spilled result's findings are read from disk once.
std::vector<Finding> top_findings(const AnalysisResult& r, size_t k) {
    struct Ranked {
        Finding f;
        size_t order;
    };
    auto before = [](const Ranked& a, const Ranked& b) {   // stalls (time lost) before server processing
        const bool sa = is_stall_kind(a.f.kind), sb = is_stall_kind(b.f.kind);
        if (sa != sb) return sa;
        if (a.f.counted_ms != b.f.counted_ms) return a.f.counted_ms > b.f.counted_ms;
        if (a.f.cost_ms != b.f.cost_ms) return a.f.cost_ms > b.f.cost_ms;
        return a.order < b.order;
    };
    std::vector<Ranked> best;
    size_t order = 0;
    for_each_finding(r, [&](const Finding& f) {
        best.push_back({f, order++});
        if (best.size() >= 2 * k + 1) {  // keep the first k in order
            std::nth_element(best.begin(), best.begin() + ptrdiff_t(k), best.end(), before);
            best.resize(k);
        }
        return true;
    });
    std::sort(best.begin(), best.end(), before);
    if (best.size() > k) best.resize(k);
    std::vector<Finding> out;
    for (Ranked& b : best) out.push_back(std::move(b.f));
    return out;
}
} // namespace

namespace {

// Capture summary; totals from the call ledger (the summary): each
// millisecond once, server processing apart from the stalls.
void capture_section(std::ostream& o, const AnalysisResult& r, const HtmlReportOptions& opt) {
    const auto& cap = r.capture;
    const SummaryGroup& all = r.summary.overall;
    o << "<h2>Capture</h2>\n<table class=kv>\n"
      << "<tr><td>File</td><td>" << html_escape(cap.file) << "</td></tr>\n"
      << "<tr><td>Format</td><td>" << html_escape(cap.format);
    for (const auto& lt : cap.link_types) o << ", " << html_escape(lt);
    o << "</td></tr>\n<tr><td>Packets</td><td>" << cap.packets << " (" << cap.bytes << " bytes";
    if (cap.non_tcp_packets) o << ", " << cap.non_tcp_packets << " not TCP";
    if (cap.undecodable_packets) o << ", " << cap.undecodable_packets << " undecodable";
    o << ")</td></tr>\n";
    if (cap.last_ns > cap.first_ns)
        o << "<tr><td>Duration</td><td>" << ms(double(cap.last_ns - cap.first_ns) / 1e6) << "</td></tr>\n";
    const size_t n_calls = call_count(r), n_findings = finding_count(r);
    o << "<tr><td>Connections</td><td>" << connection_count(r) << "</td></tr>\n"
      << "<tr><td>Calls</td><td>" << n_calls << "</td></tr>\n"
      << "<tr><td>Findings</td><td>" << n_findings;
    if (n_findings)
        o << " (avoidable waits " << ms(all.avoidable_ms) << ", server processing " << ms(all.server_ms) << ")";
    o << "</td></tr>\n";
    if (cap.truncated) o << "<tr><td>Damage</td><td class=warn>reading stopped at damage; results are partial</td></tr>\n";
    o << "</table>\n";
    if (!cap.warnings.empty()) {
        o << "<details><summary class=warn>" << cap.warnings.size() << " warnings</summary><ul>\n";
        for (size_t i = 0; i < cap.warnings.size() && i < opt.max_warnings; ++i) {
            const auto& w = cap.warnings[i];
            o << "<li>";
            if (w.frame) o << "frame " << w.frame << ": ";
            o << html_escape(w.message) << "</li>\n";
        }
        if (cap.warnings.size() > opt.max_warnings)
            o << "<li class=muted>\u2026 " << cap.warnings.size() - opt.max_warnings << " more</li>\n";
        o << "</ul></details>\n";
    }
}

// Latency per operation.
void latency_section(std::ostream& o, const AnalysisResult& r, const HtmlReportOptions& opt) {
    o << "<h2>Latency</h2>\n<table><tr><th>Operation</th><th>Calls</th><th>Median</th><th>p90</th><th>Max</th>"
         "<th>Total</th><th>Time lost by kind</th><th>Median without the findings</th></tr>\n";
    latency_row(o, "all calls", r.summary.overall);
    for (const auto& g : r.summary.per_operation) latency_row(o, g.operation.empty() ? "(no operation)" : g.operation, g);
    o << "</table>\n";
}

// The timeline, inline SVG.
void timeline_section(std::ostream& o, const AnalysisResult& r, const HtmlReportOptions& opt) {
    if (call_count(r)) {
        TimelineOptions to;
        to.max_rows = opt.max_timeline_rows;
        std::string svg, err;
        o << "<h2>Timeline</h2>\n";
        if (timeline_svg(layout_timeline(r, to), svg, err)) {
            auto start = svg.find("<svg");   // drop the XML declaration
            if (start != std::string::npos) o << "<div class=timeline>" << svg.substr(start) << "</div>\n";
        } else {
            o << "<p class=warn>timeline not drawn: " << html_escape(err) << "</p>\n";
        }
    }
}

// Findings ranked by time lost.
void findings_section(std::ostream& o, const AnalysisResult& r, const HtmlReportOptions& opt) {
    const size_t n_findings = finding_count(r);
    const std::vector<Finding> ranked = top_findings(r, opt.max_findings);
    o << "<h2>Findings, by time lost</h2>\n";
    if (n_findings == 0) o << "<p>No latency pathologies found.</p>\n";
    for (size_t i = 0; i < ranked.size(); ++i) {
        const Finding& f = ranked[i];
        o << "<div class=finding><h3>" << i + 1 << ". " << html_escape(finding_kind_title(f.kind))
          << (is_stall_kind(f.kind) ? " <span class=cost>" + ms(f.counted_ms) + " lost</span>"
                                    : " <span class=muted>" + ms(f.counted_ms) + " server processing (not a stall)</span>")
          << " <span class=muted>caused by the "
          << (f.side == Side::Client ? "client" : "server") << ", connection " << f.connection_id;
        if (!f.calls.empty()) o << ", " << html_escape(list_ids(f.calls, 20, "call "));
        o << "</span></h3>\n";
        if (!f.explanation.empty()) o << "<div>" << html_escape(f.explanation) << "</div>\n";
        if (!f.frames.empty()) o << "<div>Evidence frames: <span class=frames>" << html_escape(list_ids(f.frames, 40, "#")) << "</span></div>\n";
        for (const auto& d : f.details) o << "<div class=muted>" << html_escape(d.first) << ": " << html_escape(d.second) << "</div>\n";
        if (!f.cost_method.empty()) o << "<div class=muted>Cost: " << html_escape(f.cost_method) << "</div>\n";
        if (f.counted_ms + 0.0005 < f.cost_ms)  // part of it is another finding's time (overlap, details above)
            o << "<div class=muted>Counted: " << ms(f.counted_ms) << " of its " << ms(f.cost_ms)
              << " (the rest is counted once, under the finding that started the chain)</div>\n";
        if (!f.fix.empty()) o << "<div><b>Fix:</b> " << html_escape(f.fix) << "</div>\n";
        if (!f.toolkit_fix.empty())
            o << "<div><b>" << html_escape(f.toolkit.empty() ? std::string("Toolkit") : f.toolkit) << ":</b> "
              << html_escape(f.toolkit_fix) << "</div>\n";
        o << "</div>\n";
    }
    if (n_findings > ranked.size())
        o << "<p class=muted>\u2026 " << n_findings - ranked.size() << " smaller findings not listed.</p>\n";
}

// Calls: the first max_calls (read from disk when the result spilled).
void calls_section(std::ostream& o, const AnalysisResult& r, const HtmlReportOptions& opt) {
    const size_t n_calls = call_count(r);
    std::vector<Call> listed;
    for_each_call(r, [&](const Call& c) {
        if (listed.size() >= opt.max_calls) return false;
        listed.push_back(c);
        return true;
    });
    std::unordered_map<uint64_t, std::vector<std::string>> kinds_of;
    for (const Call& c : listed) kinds_of[c.id];
    for_each_finding(r, [&](const Finding& f) {
        for (uint64_t id : f.calls) {
            auto it = kinds_of.find(id);
            if (it == kinds_of.end()) continue;
            auto& v = it->second;
            if (std::find(v.begin(), v.end(), f.kind) == v.end()) v.push_back(f.kind);
        }
        return true;
    });
    o << "<h2>Calls</h2>\n<table><tr><th>#</th><th>Conn.</th><th>Request</th><th>Operation</th><th>Status</th>"
         "<th>Latency</th><th>Findings</th></tr>\n";
    for (const Call& c : listed) {
        o << "<tr><td class=n>" << c.id << "</td><td class=n>" << c.connection_id << "</td><td>"
          << html_escape(c.method + " " + c.uri) << "</td><td>" << html_escape(call_operation(c)) << "</td><td>";
        if (c.status) o << c.status << " " << html_escape(c.reason);
        if (c.soap_response.fault) o << " <span class=warn>fault " << html_escape(c.soap_response.fault_code) << "</span>";
        o << "</td><td class=n>" << (c.complete ? ms(c.latency_ms) : std::string("incomplete")) << "</td><td>";
        const auto& kinds = kinds_of[c.id];
        for (size_t j = 0; j < kinds.size(); ++j) o << (j ? ", " : "") << html_escape(finding_kind_title(kinds[j]));
        o << "</td></tr>\n";
    }
    o << "</table>\n";
    if (n_calls > listed.size())
        o << "<p class=muted>\u2026 " << n_calls - listed.size() << " more calls not listed.</p>\n";
}

} // namespace

std::string html_report(const AnalysisResult& r, const HtmlReportOptions& opt) {
    std::ostringstream o;
    const auto& cap = r.capture;
    std::string name = cap.file.empty() ? std::string("capture") : cap.file;
    o << "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n"
      << "<meta name=viewport content=\"width=device-width, initial-scale=1\">\n"
      << "<title>StallScope report: " << html_escape(name) << "</title>\n<style>" << kStyle << "</style></head><body>\n"
      << "<h1>StallScope report</h1>\n<p class=muted>" << html_escape(name) << "</p>\n";

    capture_section(o, r, opt);
    latency_section(o, r, opt);
    timeline_section(o, r, opt);
    findings_section(o, r, opt);
    calls_section(o, r, opt);
    o << "<p class=muted>Generated by StallScope.</p>\n</body></html>\n";
    return o.str();
}

} // namespace stallscope
