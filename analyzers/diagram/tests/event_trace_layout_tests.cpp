#include "analyzers/diagram/event_trace_layout.h"
#include "capture/packet_decoder.h"
#include "diagram_fixtures.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;
using namespace stallscope::test;

namespace {
const TraceArrow& arrow(const EventTraceLayout& L, uint64_t frame) {
    auto it = std::find_if(L.arrows.begin(), L.arrows.end(), [&](const TraceArrow& a) { return a.frame == frame; });
    REQUIRE(it != L.arrows.end());
    return *it;
}

void check_well_formed(const EventTraceLayout& L, const std::vector<SegmentInfo>& segs) {
    REQUIRE(L.arrows.size() == segs.size());
    for (size_t i = 0; i < L.arrows.size(); ++i) {
        const auto& a = L.arrows[i];
        if (i > 0) {
            REQUIRE(a.ts_ns >= L.arrows[i - 1].ts_ns);
            REQUIRE(a.y_from > L.arrows[i - 1].y_from);
            // The next arrow starts below where this one's predecessor landed.
            REQUIRE(a.y_from > L.arrows[i - 1].y_to);
        }
        REQUIRE(a.y_to > a.y_from);
        REQUIRE(a.x_from == (a.from == Side::Client ? L.client_x : L.server_x));
        REQUIRE(a.x_to == (a.from == Side::Client ? L.server_x : L.client_x));
        REQUIRE(a.y_from >= L.top);
        REQUIRE(a.y_to <= L.lanes_bottom);
    }
    REQUIRE(L.height >= L.lanes_bottom);
    REQUIRE(L.client_x < L.server_x);
    REQUIRE(L.server_x < L.width);
}
} // namespace

TEST_CASE("Fig. 2: one arrow per segment, in time order, the Nagle stall bracketed", "[trace]") {
    auto segs = fig2_segments();
    std::reverse(segs.begin(), segs.end());     // input order must not matter
    auto L = layout_event_trace(segs, {fig2_nagle_finding(), fig2_split_finding()}, "Call 1", "10.0.0.1:40000",
                                "10.0.0.2:8080");
    check_well_formed(L, segs);
    for (size_t i = 0; i < L.arrows.size(); ++i) CHECK(L.arrows[i].frame == i + 1);

    CHECK(arrow(L, 1).label == "#1 [S]");
    CHECK(arrow(L, 2).label == "#2 [S.]");
    CHECK(arrow(L, 4).label == "#4 [P.] 231 B request headers");
    CHECK(arrow(L, 5).label == "#5 [.] ACK");
    CHECK(arrow(L, 5).pure_ack);
    CHECK_FALSE(arrow(L, 4).pure_ack);
    CHECK_FALSE(arrow(L, 1).pure_ack);
    CHECK(arrow(L, 10).label == "#10 [F.]");
    CHECK(arrow(L, 1).time_label == "+0.000 ms");
    CHECK(arrow(L, 6).time_label == "+40.771 ms");

    // Evidence: the Nagle frames, nothing else.
    for (const auto& a : L.arrows) CHECK(a.evidence == (a.frame >= 4 && a.frame <= 6));

    // One bracket (the split write has no interval), on the client lane: the
    // hold the ledger counts, one RTT after the headers up to the body.
    REQUIRE(L.stalls.size() == 1);
    const auto& st = L.stalls[0];
    CHECK(st.side == Side::Client);
    CHECK(st.kind == "nagle_delayed_ack");
    CHECK(st.label == "Nagle / delayed ACK: 40.2 ms");
    CHECK(st.y_start == Approx(L.axis.px_of(fig2_nagle_finding().intervals[0].start_ns)));
    CHECK(st.y_start > arrow(L, 4).y_from);
    CHECK(st.y_end == Approx(arrow(L, 6).y_from));
    CHECK(st.x < L.client_x);
    CHECK(st.label_y >= st.y_start);
    CHECK(st.label_y <= st.y_end);

    // The 40 ms wait reads as the longest gap of the call.
    double stall_gap = arrow(L, 5).y_from - arrow(L, 4).y_from;
    for (size_t i = 1; i < L.arrows.size(); ++i)
        if (L.arrows[i].frame != 5) CHECK(L.arrows[i].y_from - L.arrows[i - 1].y_from < stall_gap);
    CHECK(L.breaks.empty());
}

TEST_CASE("Evidence highlights follow the findings that cost time", "[trace]") {
    Finding split = fig2_split_finding();           // no cost of its own: frames 4, 6
    Finding tiny = fig2_nagle_finding();            // a 0.5 ms finding next to a 40 ms one
    tiny.kind = "connection_setup";
    tiny.frames = {1, 2, 3};
    tiny.start_ns = kT0;
    tiny.end_ns = kT0 + int64_t(0.102 * kMs);
    tiny.cost_ms = 0.1;
    auto only_split = layout_event_trace(fig2_segments(), {split}, "", "", "");
    for (const auto& a : only_split.arrows) CHECK_FALSE(a.evidence);
    auto both = layout_event_trace(fig2_segments(), {tiny, fig2_nagle_finding(), split}, "", "", "");
    for (const auto& a : both.arrows) CHECK(a.evidence == (a.frame >= 4 && a.frame <= 6));
    REQUIRE(both.stalls.size() == 1);               // a 0.1 ms handshake is too small to be drawn as a stall
    CHECK(both.stalls[0].kind == "nagle_delayed_ack");
    EventTraceOptions all;
    all.evidence_min_share = 0;
    auto every = layout_event_trace(fig2_segments(), {tiny, split}, "", "", "", all);
    for (const auto& a : every.arrows) CHECK(a.evidence == (a.frame <= 4 || a.frame == 6));
}

TEST_CASE("Fig. 3: the server waits for the client's delayed ACK of the 100 Continue", "[trace]") {
    auto segs = fig3_segments();
    auto L = layout_event_trace(segs, {fig3_nagle_finding()}, "", "c", "s");
    check_well_formed(L, segs);
    CHECK(arrow(L, 5).label == "#5 [P.] 25 B 100 Continue");
    CHECK(arrow(L, 4).label == "#4 [P.] 702 B request headers+body");
    REQUIRE(L.stalls.size() == 1);
    CHECK(L.stalls[0].side == Side::Server);
    CHECK(L.stalls[0].x > L.server_x);
    CHECK(L.stalls[0].y_start == Approx(arrow(L, 5).y_from));
    CHECK(L.stalls[0].y_end == Approx(arrow(L, 7).y_from));
}

TEST_CASE("Long idle stretches are cut out of the axis", "[trace]") {
    auto segs = fig2_segments();
    auto second = fig2_segments();
    for (auto& s : second) { s.ts_ns += 7'000 * kMs; s.frame += 100; }   // 7 s later, same connection
    segs.insert(segs.end(), second.begin(), second.end());
    auto L = layout_event_trace(segs, {}, "", "c", "s");
    check_well_formed(L, segs);
    REQUIRE(L.breaks.size() == 1);
    const auto& br = L.breaks[0];
    CHECK(br.idle);
    CHECK(br.from_ns == arrow(L, 12).ts_ns);
    CHECK(br.to_ns == arrow(L, 101).ts_ns);
    CHECK(br.y > arrow(L, 12).y_to);
    CHECK(br.y_end < arrow(L, 101).y_from);
    CHECK(br.label.find("idle") != std::string::npos);
    // The 7 s cost less room than the 40 ms stall: it is cut, not scaled.
    CHECK(arrow(L, 101).y_from - arrow(L, 12).y_from < arrow(L, 5).y_from - arrow(L, 4).y_from);

    // The same gap inside a stall is compressed but not called idle.
    Finding f;
    f.kind = "server_time";
    f.start_ns = arrow(L, 12).ts_ns;
    f.end_ns = arrow(L, 101).ts_ns;
    auto L2 = layout_event_trace(segs, {f}, "", "c", "s");
    REQUIRE(L2.breaks.size() == 1);
    CHECK_FALSE(L2.breaks[0].idle);
    CHECK(L2.breaks[0].label.find("idle") == std::string::npos);
}

TEST_CASE("Degenerate and large inputs stay sensible", "[trace]") {
    SECTION("no segments") {
        auto L = layout_event_trace({}, {fig2_nagle_finding()}, "empty", "", "");
        CHECK(L.arrows.empty());
        CHECK(L.stalls.empty());
        CHECK(L.height > L.top);
        CHECK(L.height < 400);
    }
    SECTION("one segment") {
        std::vector<SegmentInfo> one = {seg(7, 0, Side::Client, tcpflag::kPsh | tcpflag::kAck, 100, carries::kRequestHeaders)};
        auto L = layout_event_trace(one, {}, "", "", "");
        check_well_formed(L, one);
        CHECK(L.height < 400);
    }
    SECTION("5000 segments, no cap") {
        auto many = many_segments(5000);
        auto L = layout_event_trace(many, {}, "", "", "");
        check_well_formed(L, many);
        EventTraceOptions o;
        // Every segment costs at least one row, and bursts do not cost much more.
        CHECK(L.height > 5000 * o.row_height);
        CHECK(L.height < 5000 * (o.row_height + 12) + 5000);
    }
    SECTION("duplicated frames (a connection's calls overlapping) are drawn once") {
        auto segs = fig2_segments();
        auto doubled = segs;
        doubled.insert(doubled.end(), segs.begin() + 3, segs.end());
        auto L = layout_event_trace(doubled, {}, "", "", "");
        check_well_formed(L, segs);
    }
    SECTION("hostile findings: reversed or far-away intervals are ignored") {
        Finding back = fig2_nagle_finding();
        std::swap(back.start_ns, back.end_ns);
        Finding far = fig2_nagle_finding();
        far.start_ns = INT64_MAX - 10;
        far.end_ns = INT64_MAX;
        auto L = layout_event_trace(fig2_segments(), {back, far}, "", "", "");
        CHECK(L.stalls.empty());
    }
}

TEST_CASE("Linear time axis: y grows in proportion to time, so a 40 ms stall is drawn 40 ms long", "[trace]") {
    const auto segs = fig2_segments();
    EventTraceOptions opt;
    opt.linear_time = true;
    opt.px_per_ms = 10;
    auto L = layout_event_trace(segs, {fig2_nagle_finding()}, "Call 1", "c", "s", opt);
    REQUIRE(L.px_per_ms == 10);
    REQUIRE(L.arrows.size() == segs.size());
    const int64_t t0 = L.arrows.front().ts_ns;
    for (const TraceArrow& a : L.arrows) {
        if (a.ts_ns == t0) continue;
        CHECK(a.y_from - L.top == Approx(double(a.ts_ns - t0) / 1e6 * 10).margin(0.05 * double(L.arrows.size())));
    }
    REQUIRE(!L.stalls.empty());
    const TraceStall& st = L.stalls.front();
    CHECK(st.y_end - st.y_start == Approx(double(st.end_ns - st.start_ns) / 1e6 * 10).margin(0.5));
    CHECK(time_axis_note(L).find("to scale") != std::string::npos);
    // The default layout is not to scale and says so.
    auto rows = layout_event_trace(segs, {fig2_nagle_finding()}, "Call 1", "c", "s");
    CHECK(rows.px_per_ms == 0);
    CHECK(time_axis_note(rows).find("not to scale") != std::string::npos);
}

TEST_CASE("No highlight: evidence frames are drawn like any other", "[trace]") {
    EventTraceOptions opt;
    opt.highlight_evidence = false;
    auto L = layout_event_trace(fig2_segments(), {fig2_nagle_finding()}, "Call 1", "c", "s", opt);
    for (const TraceArrow& a : L.arrows) CHECK_FALSE(a.evidence);
    auto H = layout_event_trace(fig2_segments(), {fig2_nagle_finding()}, "Call 1", "c", "s");
    CHECK(std::any_of(H.arrows.begin(), H.arrows.end(), [](const TraceArrow& a) { return a.evidence; }));
}

TEST_CASE("Linear time axis: crowded arrows never print time labels over each other", "[trace]") {
    const auto segs = fig2_segments();
    for (double px_per_ms : {0.2, 1.0, 3.0}) {
        for (bool highlight : {true, false}) {
            EventTraceOptions opt;
            opt.linear_time = true;
            opt.px_per_ms = px_per_ms;
            opt.highlight_evidence = highlight;
            auto L = layout_event_trace(segs, {fig2_nagle_finding()}, "Call 1", "c", "s", opt);
            double last = -1e18;
            for (const TraceArrow& a : L.arrows) {
                if (a.time_label.empty()) continue;
                CHECK(a.y_from - last >= 13);  // a label is about 13 px tall
                last = a.y_from;
            }
            // Crowding thins labels out, never removes them all.
            CHECK(std::any_of(L.arrows.begin(), L.arrows.end(), [](const TraceArrow& a) { return !a.time_label.empty(); }));
        }
    }
}

TEST_CASE("Stall brackets are the ledger's counted stretches: an overlap once, under its root, none under 1 ms",
          "[trace]") {
    // An Expect wait covering the Nagle hold (the chain started by Expect):
    // one bracket, the expect_100_wait one; the Nagle finding draws none.
    Finding nagle = fig2_nagle_finding();
    Finding expect = nagle;
    expect.kind = "expect_100_wait";
    expect.intervals = {{nagle.start_ns, nagle.end_ns}};
    auto L = layout_event_trace(fig2_segments(), {nagle, expect}, "", "", "");
    REQUIRE(L.stalls.size() == 1);
    CHECK(L.stalls[0].kind == "expect_100_wait");
    CHECK(L.stalls[0].start_ns == nagle.start_ns);
    CHECK(L.stalls[0].end_ns == nagle.end_ns);
    // A Nagle hold that starts inside the Expect wait and runs past it keeps
    // the part after it.
    Finding early = expect;
    early.intervals = {{nagle.start_ns, nagle.start_ns + 20 * kMs}};
    early.end_ns = nagle.start_ns + 20 * kMs;
    auto M = layout_event_trace(fig2_segments(), {nagle, early}, "", "", "");
    REQUIRE(M.stalls.size() == 2);
    for (const auto& st : M.stalls)
        if (st.kind == "nagle_delayed_ack") {
            CHECK(st.start_ns == nagle.start_ns + 20 * kMs);
            CHECK(st.end_ns == nagle.end_ns);
        }
    // Just under / at the threshold.
    Finding small = nagle;
    small.intervals = {{nagle.end_ns - int64_t(0.999 * kMs), nagle.end_ns}};
    CHECK(layout_event_trace(fig2_segments(), {small}, "", "", "").stalls.empty());
    small.intervals = {{nagle.end_ns - int64_t(1.0 * kMs), nagle.end_ns}};
    CHECK(layout_event_trace(fig2_segments(), {small}, "", "", "").stalls.size() == 1);
}
