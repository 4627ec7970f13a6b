// A call's or a connection's event trace from a big analysis, whose calls
// are on disk, is the one drawn from the same analysis kept in memory:
// `export` spills as `analyze` does and reads just what the diagram needs.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/event_trace_layout.h"
#include "analyzers/diagram/html_report.h"
#include "analyzers/diagram/timeline_layout.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/tests/capture_files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

// Everything a drawing is made of, as text (cairo's SVG numbers its surfaces
// per process, so two drawings of one layout differ in their ids).
std::string layout_text(const EventTraceLayout& L) {
    std::ostringstream o;
    o << L.title << '|' << L.client_name << '|' << L.server_name << '|' << L.width << 'x' << L.height << '\n';
    for (const TraceArrow& a : L.arrows)
        o << "arrow " << a.frame << ' ' << a.ts_ns << ' ' << int(a.from) << ' ' << a.y_from << ' ' << a.y_to << ' '
          << int(a.flags) << ' ' << a.len << ' ' << a.evidence << ' ' << a.label << ' ' << a.time_label << '\n';
    for (const TraceStall& t : L.stalls)
        o << "stall " << t.kind << ' ' << t.label << ' ' << t.y_start << ' ' << t.y_end << ' ' << t.cost_ms << ' '
          << t.column << '\n';
    for (const TraceBreak& b : L.breaks) o << "break " << b.label << ' ' << b.y << ' ' << b.y_end << '\n';
    return o.str();
}

// cairo numbers its SVG surfaces per process: the inlined timeline's ids differ.
std::string page(const AnalysisResult& r, const HtmlReportOptions& opt = {}) {
    static const std::regex surface("surface[0-9]+");
    return std::regex_replace(html_report(r, opt), surface, "surface");
}

std::vector<std::string> bundled_captures() { return test::bundled_captures(STALLSCOPE_TESTDATA_DIR); }

} // namespace

TEST_CASE("event traces of a spilled analysis are those of the analysis in memory", "[spill]") {
    size_t calls = 0, connections = 0;
    for (const std::string& p : bundled_captures()) {
        INFO(p);
        AnalysisOptions opt;
        opt.keep_segments = true;
        AnalyzeOutcome mem = analyze_file(p, opt);
        opt.spill_after_calls = 2;  // everything past the second call goes to disk
        AnalyzeOutcome disk = analyze_file(p, opt);
        REQUIRE(mem.ok == disk.ok);
        if (!mem.ok || mem.result.calls.size() <= 2) continue;
        REQUIRE(disk.result.spill);
        REQUIRE(disk.result.calls.empty());
        for (size_t i = 0; i < mem.result.calls.size() && i < 40; ++i) {
            const uint64_t id = mem.result.calls[i].id;
            EventTraceLayout a, b;
            std::string ea, eb;
            const bool oka = call_event_trace(mem.result, id, a, ea), okb = call_event_trace(disk.result, id, b, eb);
            CHECK(oka == okb);
            CHECK(ea == eb);
            if (oka && okb) CHECK(layout_text(a) == layout_text(b));
            ++calls;
        }
        for (size_t i = 0; i < mem.result.connections.size() && i < 10; ++i) {
            const uint64_t id = mem.result.connections[i].id;
            EventTraceLayout a, b;
            std::string ea, eb;
            const bool oka = connection_event_trace(mem.result, id, a, ea);
            const bool okb = connection_event_trace(disk.result, id, b, eb);
            CHECK(oka == okb);
            CHECK(ea == eb);
            if (oka && okb) CHECK(layout_text(a) == layout_text(b));
            ++connections;
        }
        // Asking for what is not there names the real totals.
        EventTraceLayout none;
        std::string e1, e2;
        CHECK_FALSE(call_event_trace(disk.result, 999999, none, e1));
        CHECK(e1 == "no call 999999 (the capture has " + std::to_string(mem.result.calls.size()) + " calls)");
        CHECK_FALSE(connection_event_trace(disk.result, 999999, none, e2));
        CHECK(e2 == "no connection 999999 (the capture has " + std::to_string(mem.result.connections.size()) +
                        " connections)");
    }
    CHECK(calls > 100);
    CHECK(connections > 20);
}

TEST_CASE("the HTML report and its timeline of a spilled analysis are those of the analysis in memory", "[spill]") {
    size_t pages = 0;
    HtmlReportOptions small;  // caps below the captures' sizes, so the cut-offs are tested too
    small.max_calls = 7;
    small.max_findings = 3;
    small.max_timeline_rows = 5;
    for (const std::string& p : bundled_captures()) {
        INFO(p);
        AnalysisOptions opt;
        AnalyzeOutcome mem = analyze_file(p, opt);
        opt.spill_after_calls = 2;
        AnalyzeOutcome disk = analyze_file(p, opt);
        REQUIRE(mem.ok == disk.ok);
        if (!mem.ok || mem.result.calls.size() <= 2) continue;
        REQUIRE(disk.result.spill);
        CHECK(page(disk.result) == page(mem.result));
        CHECK(page(disk.result, small) == page(mem.result, small));
        TimelineOptions rows;
        rows.max_rows = 5;
        const TimelineLayout a = layout_timeline(mem.result, rows), b = layout_timeline(disk.result, rows);
        CHECK(a.title == b.title);
        CHECK(a.calls_total == b.calls_total);
        REQUIRE(a.rows.size() == b.rows.size());
        for (size_t i = 0; i < a.rows.size(); ++i) {
            CHECK(a.rows[i].call_id == b.rows[i].call_id);
            CHECK(a.rows[i].label == b.rows[i].label);
            CHECK(a.rows[i].stalls.size() == b.rows[i].stalls.size());
        }
        ++pages;
    }
    CHECK(pages > 10);
}

TEST_CASE("the HTML report lists the findings that lost the most time, ties in report order", "[spill]") {
    // counted_ms, cost_ms per finding (connection 101..108 names it).
    const std::vector<std::pair<double, double>> costs = {{5, 5}, {9, 9}, {5, 7}, {9, 9}, {1, 1}, {9, 12}, {5, 7}, {0, 3}};
    AnalysisResult r;
    for (size_t i = 0; i < costs.size(); ++i) {
        Finding f;
        f.kind = "nagle_delayed_ack";
        f.connection_id = 101 + i;
        f.counted_ms = costs[i].first;
        f.cost_ms = costs[i].second;
        r.findings.push_back(f);
    }
    auto order = [&](size_t max) {
        HtmlReportOptions opt;
        opt.max_findings = max;
        const std::string html = html_report(r, opt);
        std::vector<uint64_t> seen;
        for (size_t at = html.find(", connection "); at != std::string::npos; at = html.find(", connection ", at + 1))
            seen.push_back(std::stoull(html.substr(at + 13, 3)));
        return seen;
    };
    // A stable sort by (counted, cost), both descending: 106 (9, 12), 102, 104 (9, 9; report order), 103, 107, 101, 105, 108.
    CHECK(order(100) == std::vector<uint64_t>{106, 102, 104, 103, 107, 101, 105, 108});
    CHECK(order(3) == std::vector<uint64_t>{106, 102, 104});
    CHECK(order(1) == std::vector<uint64_t>{106});
    CHECK(order(0).empty());
    HtmlReportOptions none;
    none.max_findings = 0;
    const std::string html = html_report(r, none);
    CHECK(html.find("No latency pathologies found") == std::string::npos);  // there are 8, none listed
    CHECK(html.find("8 smaller findings not listed") != std::string::npos);
}

// A timeline of a big capture draws a selection (export --slowest, --window):
// the rows are the calls a brute-force pass over the calls picks, in call
// order, the same from disk as from memory, and the layout says what it left out.
TEST_CASE("timeline selections: the slowest calls and a time window, from disk as from memory", "[spill][timeline]") {
    size_t checked = 0;
    for (const std::string& p : bundled_captures()) {
        INFO(p);
        AnalysisOptions opt;
        AnalyzeOutcome mem = analyze_file(p, opt);
        opt.spill_after_calls = 0;
        AnalyzeOutcome disk = analyze_file(p, opt);
        if (!mem.ok || mem.result.calls.size() < 4) continue;
        REQUIRE(disk.result.spill);
        const std::vector<Call>& calls = mem.result.calls;

        // The 3 slowest, brute force: complete calls by latency, incomplete by
        // the time seen, ties to the earlier call.
        auto slowness = [](const Call& c) {
            if (c.complete) return c.latency_ms;
            int64_t a = c.start_ns, b = std::max(c.end_ns, c.start_ns);
            bool any = c.start_ns != 0;
            for (const Phase& ph : c.phases) {
                if (!any) { a = ph.start_ns; b = ph.end_ns; any = true; }
                a = std::min({a, ph.start_ns, ph.end_ns});
                b = std::max({b, ph.start_ns, ph.end_ns});
            }
            return double(b - a) / 1e6;
        };
        std::vector<const Call*> order;
        for (const Call& c : calls) order.push_back(&c);
        std::stable_sort(order.begin(), order.end(),
                         [&](const Call* x, const Call* y) { return slowness(*x) > slowness(*y); });
        std::vector<uint64_t> want;
        for (size_t i = 0; i < 3; ++i) want.push_back(order[i]->id);
        std::sort(want.begin(), want.end());

        TimelineOptions slow;
        slow.slowest = 3;
        for (const AnalysisResult* r : {&mem.result, &disk.result}) {
            const TimelineLayout L = layout_timeline(*r, slow);
            std::vector<uint64_t> got;
            for (const TimelineRow& row : L.rows) got.push_back(row.call_id);
            CHECK(got == want);
            CHECK(L.calls_total == calls.size());
            CHECK(L.selection == "the 3 slowest of " + std::to_string(calls.size()) + " calls");
            CHECK(L.left_out == std::to_string(calls.size() - 3) + " of " + std::to_string(calls.size()) +
                                    " calls not shown (faster)");
            CHECK(L.title.rfind("Timeline: the 3 slowest of ", 0) == 0);
        }

        // A window around the second call's start: every call that overlaps it.
        const int64_t t0 = mem.result.capture.first_ns;
        TimelineOptions win;
        win.window = true;
        win.window_from_ns = calls[1].start_ns - t0;
        win.window_to_ns = calls[1].start_ns - t0 + 1'000'000;  // 1 ms
        std::vector<uint64_t> in;
        for (const Call& c : calls) {
            int64_t a = c.start_ns, b = std::max(c.end_ns, c.start_ns);
            for (const Phase& ph : c.phases) { a = std::min({a, ph.start_ns, ph.end_ns}); b = std::max({b, ph.start_ns, ph.end_ns}); }
            if (a <= t0 + win.window_to_ns && b >= t0 + win.window_from_ns) in.push_back(c.id);
        }
        REQUIRE(!in.empty());
        const TimelineLayout wm = layout_timeline(mem.result, win), wd = layout_timeline(disk.result, win);
        for (const TimelineLayout* L : {&wm, &wd}) {
            std::vector<uint64_t> got;
            for (const TimelineRow& row : L->rows) got.push_back(row.call_id);
            CHECK(got == in);
            CHECK(L->left_out.empty() == (in.size() == calls.size()));
        }
        CHECK(wm.title == wd.title);
        ++checked;
    }
    CHECK(checked > 10);
}
