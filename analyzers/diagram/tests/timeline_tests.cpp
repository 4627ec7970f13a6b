#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/timeline_layout.h"
#include "diagram_fixtures.h"
#include "export_check.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("Compressed time axis: linear inside activity, long idle gaps become breaks", "[timeline]") {
    // Two bursts of 100 ms, 60 s apart, and a third 20 ms after the second.
    const int64_t s = kT0;
    std::vector<std::pair<int64_t, int64_t>> iv = {
        {s, s + 100 * kMs}, {s + 60'000 * kMs, s + 60'100 * kMs}, {s + 60'120 * kMs, s + 60'130 * kMs}};
    std::vector<std::pair<int64_t, int64_t>> breaks;
    TimeAxis ax = build_compressed_axis(iv, 200, 1000, 18, &breaks);
    REQUIRE(breaks.size() == 1);
    CHECK(breaks[0].first == s + 100 * kMs);
    CHECK(breaks[0].second == s + 60'000 * kMs);
    CHECK(ax.px_of(s) == Approx(200));
    CHECK(ax.px_of(s + 60'130 * kMs) == Approx(1000));
    CHECK(ax.px_of(s + 60'000 * kMs) - ax.px_of(s + 100 * kMs) == Approx(18));
    // The same scale inside every burst, and for the small gap kept to scale.
    double per_ms_a = (ax.px_of(s + 100 * kMs) - ax.px_of(s)) / 100;
    double per_ms_b = (ax.px_of(s + 60'100 * kMs) - ax.px_of(s + 60'000 * kMs)) / 100;
    double per_ms_gap = (ax.px_of(s + 60'120 * kMs) - ax.px_of(s + 60'100 * kMs)) / 20;
    CHECK(per_ms_a == Approx(per_ms_b));
    CHECK(per_ms_gap == Approx(per_ms_a));
    CHECK(per_ms_a == Approx((800.0 - 18) / 230));

    // Monotone and invertible over the whole range, breaks included.
    double prev = -1;
    for (int64_t t = s; t <= s + 60'130 * kMs; t += 97 * kMs + 12345) {
        double x = ax.px_of(t);
        REQUIRE(x >= prev);
        prev = x;
        REQUIRE(ax.t_of(x) == t);
    }
}

TEST_CASE("Compressed axis edge cases", "[timeline]") {
    CHECK(build_compressed_axis({}, 0, 100, 18).empty());
    // A single instant still spans the axis.
    auto one = build_compressed_axis({{kT0, kT0}}, 10, 110, 18);
    CHECK(one.px_of(kT0) == Approx(10));
    // Thousands of isolated instants far apart: breaks never take more than half the axis.
    std::vector<std::pair<int64_t, int64_t>> many;
    for (int i = 0; i < 5000; ++i) many.push_back({kT0 + i * 1000 * kMs, kT0 + i * 1000 * kMs + kMs});
    std::vector<std::pair<int64_t, int64_t>> br;
    auto ax = build_compressed_axis(many, 0, 1000, 18, &br);
    CHECK(br.size() == 4999);
    CHECK(ax.px_of(many.back().second) == Approx(1000));
    double active_px = 0;
    for (const auto& p : many) active_px += ax.px_of(p.second) - ax.px_of(p.first);
    CHECK(active_px >= 499);
}

TEST_CASE("Timeline layout: one row per call, phases in order, stalls over their call", "[timeline]") {
    auto r = sample_result(6, 2);
    auto L = layout_timeline(r);
    REQUIRE(L.rows.size() == 6);
    CHECK(L.calls_total == 6);
    // sample_result puts a 5 s idle gap in the middle.
    REQUIRE(L.breaks.size() == 1);
    CHECK_FALSE(L.ticks.empty());
    for (size_t i = 0; i < L.rows.size(); ++i) {
        const auto& row = L.rows[i];
        CHECK(row.call_id == i + 1);
        if (i) CHECK(row.y > L.rows[i - 1].y + L.rows[i - 1].height);
        REQUIRE(row.phases.size() == r.calls[i].phases.size());
        for (size_t p = 0; p < row.phases.size(); ++p) {
            CHECK(row.phases[p].x0 >= L.plot_left - 1e-9);
            CHECK(row.phases[p].x1 <= L.plot_right + 2);
            CHECK(row.phases[p].x1 > row.phases[p].x0);
            if (p) CHECK(row.phases[p].x0 >= row.phases[p - 1].x0);
        }
        REQUIRE(row.stalls.size() == 1);
        CHECK(row.stalls[0].label == "Nagle / delayed ACK (client): 40.2 ms");   // the side named
        // The stall is the hold the ledger counts: from one RTT after the
        // request headers leave.
        CHECK(row.stalls[0].x0 == Approx(L.axis.px_of(r.findings[i].intervals[0].start_ns)));
        CHECK(row.stalls[0].x0 >= L.axis.px_of(r.calls[i].segments[3].ts_ns));
        CHECK(row.label == "#" + std::to_string(i + 1) + " doNothing");
    }
    // Calls later in time are further right.
    CHECK(L.rows[5].phases[0].x0 > L.rows[0].phases[0].x0);

    TimelineOptions o;
    o.max_rows = 2;
    auto cut = layout_timeline(r, o);
    CHECK(cut.rows.size() == 2);
    CHECK(cut.calls_total == 6);

    auto empty = layout_timeline(AnalysisResult{});
    CHECK(empty.rows.empty());
    CHECK(empty.height > 0);
}

TEST_CASE("Timeline exports as SVG and PNG", "[timeline][export]") {
    std::string dir = temp_dir(), err;
    auto r = sample_result(40, 3);
    r.calls[2].soap.operation = "<script>alert(1)</script>\xff";
    REQUIRE(export_timeline(r, dir + "/t.svg", "svg", err));
    const std::string svg = read_file(dir + "/t.svg");
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("<text ") != std::string::npos);   // real text, not glyph outlines
    CHECK(svg.find("<symbol") == std::string::npos);
    CHECK(svg.find("<script>") == std::string::npos);
    if (have_tool("rsvg-convert")) CHECK(run("rsvg-convert -o '" + dir + "/c.png' '" + dir + "/t.svg' 2>/dev/null") == 0);
    REQUIRE(export_timeline(r, dir + "/t.png", "png", err));
    uint32_t w = 0, h = 0;
    REQUIRE(png_size(dir + "/t.png", w, h));
    auto L = layout_timeline(r);
    CHECK(w == uint32_t(std::ceil(L.width)));
    CHECK(h == uint32_t(std::ceil(L.height)));
    CHECK(png_decodes(dir + "/t.png"));
    CHECK_FALSE(export_timeline(r, dir + "/t.bmp", "bmp", err));
    // Empty result: still a valid picture.
    REQUIRE(export_timeline(AnalysisResult{}, dir + "/e.png", "png", err));
    CHECK(png_decodes(dir + "/e.png"));
}

TEST_CASE("Call and connection diagrams find their segments and findings", "[export]") {
    std::string dir = temp_dir(), err;
    auto r = sample_result(4, 2);
    EventTraceLayout L;
    REQUIRE(call_event_trace(r, 3, L, err));
    CHECK(L.title.rfind("Call 3: POST /soap doNothing \xE2\x80\x94 ", 0) == 0);
    CHECK(L.title.find("ms") != std::string::npos);
    CHECK(L.title.ends_with(" \xE2\x80\x94 synthetic.pcapng"));   // the capture's name (docs/cli.md)
    CHECK(L.client_name == "10.0.0.1:40000");
    CHECK(L.server_name == "10.0.0.2:8080");
    CHECK(L.arrows.size() == r.calls[2].segments.size());
    REQUIRE(L.stalls.size() == 1);        // its own finding only
    CHECK(L.stalls[0].start_ns == r.findings[2].intervals[0].start_ns);  // the hold the ledger counts

    // Connection 1 holds calls 1 and 3: both calls' segments and stalls.
    REQUIRE(connection_event_trace(r, 1, L, err));
    CHECK(L.arrows.size() == r.calls[0].segments.size() + r.calls[2].segments.size());
    CHECK(L.stalls.size() == 2);
    CHECK(L.title == "Connection 1: 2 calls \xE2\x80\x94 synthetic.pcapng");   // the capture's name, not its path

    for (const char* fmt : {"svg", "pdf", "png"}) {
        std::string p = dir + "/call." + fmt;
        REQUIRE(export_call_diagram(r, 1, fmt, p, err));
        CHECK(read_file(p).size() > 100);
        REQUIRE(export_connection_diagram(r, 2, fmt, dir + "/conn." + fmt, err));
    }
    CHECK_FALSE(export_call_diagram(r, 99, "svg", dir + "/x.svg", err));
    CHECK(err.find("no call 99") != std::string::npos);
    CHECK_FALSE(export_connection_diagram(r, 99, "svg", dir + "/x.svg", err));
    CHECK(err.find("no connection 99") != std::string::npos);
    r.calls[0].segments.clear();
    CHECK_FALSE(export_call_diagram(r, 1, "svg", dir + "/x.svg", err));
    CHECK(err.find("no segments") != std::string::npos);
    CHECK_FALSE(export_call_diagram(r, 2, "tiff", dir + "/x.tiff", err));
}

TEST_CASE("Timeline layout is bounded by what it draws, not by the time a call spans", "[timeline]") {
    // Issue 22: a call placed at time 0 (epoch) beside calls of today spans
    // 1.7e18 ns. The tick loop stepped through that span at the step of the
    // finest stretch and ran for minutes; it must finish with few ticks.
    // Its shape then: no phases, start and end 0 (a zero-length stretch at
    // the epoch), an idle break of 1.7e18 ns, then the other calls.
    auto r = sample_result(6, 2);
    r.calls[0].start_ns = r.calls[0].end_ns = 0;
    r.calls[0].phases.clear();
    auto t0 = std::chrono::steady_clock::now();
    auto L = layout_timeline(r);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    CHECK(ms < 1000);
    CHECK(L.rows.size() == 6);
    CHECK(L.ticks.size() <= size_t(L.width / 70) + 2);  // at least 70 px apart
    for (size_t i = 1; i < L.ticks.size(); ++i) CHECK(L.ticks[i].x - L.ticks[i - 1].x >= 70 - 1e-9);
}
