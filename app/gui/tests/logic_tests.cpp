// Pure logic of the GUI (no QApplication, no display): time axis, waterfall
// rows and hit-testing, latency histogram.
#include "app/gui/latency_histogram.h"
#include "app/gui/tests/fake_result.h"
#include "app/gui/time_axis.h"
#include "app/gui/timeline_rows.h"

#include <catch2/catch.hpp>
#include <cmath>

using stallscope::AnalysisResult;
using stallscope::Call;
using namespace stallscope::gui;

static constexpr int64_t kT0 = 1'700'000'000'000'000'000;

TEST_CASE("TimeAxis maps ns to pixels and back without losing epoch precision") {
    TimeAxis a;
    a.setViewport(100, 1000);
    a.setDataRange(kT0, kT0 + 1'000'000);   // 1 ms of data
    // fitAll shows the whole range inside the viewport.
    CHECK(a.toPixel(kT0) >= 100);
    CHECK(a.toPixel(kT0 + 1'000'000) <= 1100);
    CHECK(a.toPixel(kT0) < a.toPixel(kT0 + 1'000'000));
    // Round trip at 1 ns resolution even though kT0 is far beyond 2^53.
    for (int64_t t : {kT0, kT0 + 1, kT0 + 123'457, kT0 + 999'999}) {
        const double px = a.toPixel(t);
        CHECK(std::llabs(a.pixelToTime(px) - t) <= 1);
    }
    CHECK(a.toPixel(kT0 + 1) - a.toPixel(kT0) == Approx(1.0 / a.nsPerPixel()));
}

TEST_CASE("TimeAxis zoom keeps the time under the anchor in place") {
    TimeAxis a;
    a.setViewport(0, 800);
    a.setDataRange(kT0, kT0 + 10'000'000);
    const double anchor = 300;
    const int64_t before = a.pixelToTime(anchor);
    const double span_before = a.viewSpan();
    a.zoomAt(anchor, 4);
    CHECK(a.viewSpan() == Approx(span_before / 4));
    CHECK(std::llabs(a.pixelToTime(anchor) - before) <= 1);
    a.zoomAt(anchor, 0.5);
    CHECK(a.viewSpan() == Approx(span_before / 2));
    CHECK(std::llabs(a.pixelToTime(anchor) - before) <= 1);
}

TEST_CASE("TimeAxis zoom and pan are clamped") {
    TimeAxis a;
    a.setViewport(0, 1000);
    a.setDataRange(kT0, kT0 + 1'000'000);
    for (int i = 0; i < 100; ++i) a.zoomAt(500, 10);
    CHECK(a.nsPerPixel() == Approx(TimeAxis::kMinNsPerPixel));
    for (int i = 0; i < 100; ++i) a.zoomAt(500, 0.1);
    CHECK(a.viewSpan() <= 1.5 * 1'000'000 + 1);
    a.fitAll();
    a.zoomAt(500, 10);
    const double start = a.viewStartOffset();
    a.panBy(-100);   // drag left: later times come into view
    CHECK(a.viewStartOffset() == Approx(start + 100 * a.nsPerPixel()));
    for (int i = 0; i < 1000; ++i) a.panBy(-1000);
    CHECK(a.viewStartOffset() <= 1'000'000 - a.viewSpan() / 2 + 1);
    for (int i = 0; i < 1000; ++i) a.panBy(1000);
    CHECK(a.viewStartOffset() >= -a.viewSpan() / 2 - 1);
}

TEST_CASE("TimeAxis keeps the visible span when the viewport is resized") {
    TimeAxis a;
    a.setViewport(0, 500);
    a.setDataRange(0, 1'000'000);
    const double span = a.viewSpan();
    a.setViewport(0, 1000);
    CHECK(a.viewSpan() == Approx(span));
    CHECK(a.nsPerPixel() == Approx(span / 1000));
}

TEST_CASE("TimeAxis ticks are 1-2-5 steps inside the viewport") {
    CHECK(TimeAxis::niceStep(0.7) == Approx(1));
    CHECK(TimeAxis::niceStep(1.5) == Approx(2));
    CHECK(TimeAxis::niceStep(3) == Approx(5));
    CHECK(TimeAxis::niceStep(7) == Approx(10));
    CHECK(TimeAxis::niceStep(42'000) == Approx(50'000));
    TimeAxis a;
    a.setViewport(50, 1000);
    a.setDataRange(0, 45'000'000);
    const auto ticks = a.ticks(80);
    REQUIRE(ticks.size() >= 3);
    for (size_t i = 0; i < ticks.size(); ++i) {
        CHECK(ticks[i].x >= 50 - 1e-6);
        CHECK(ticks[i].x <= 1050 + 1e-6);
        if (i) CHECK(ticks[i].x - ticks[i - 1].x >= 80 - 1e-6);
    }
}

TEST_CASE("Timeline rows follow start order and carry their stalls") {
    const LoadedResult r(test::makeResult());
    const TimelineRows all = TimelineRows::build(r, {}, true);
    REQUIRE(all.rows.size() == r.calls.size());
    for (size_t i = 1; i < all.rows.size(); ++i) CHECK(all.rows[i - 1].start_ns <= all.rows[i].start_ns);
    CHECK(all.start_ns == r.calls.front().start_ns);
    CHECK(all.end_ns >= r.calls.back().end_ns);
    // Call 2 has the Nagle finding (index 1); calls 5 and 6 share finding 2.
    const auto row2 = all.rowOfCall(2);
    REQUIRE(row2);
    REQUIRE(all.rows[*row2].stalls.size() == 1);
    CHECK(all.rows[*row2].stalls[0].finding == 1);
    CHECK(all.rows[*all.rowOfCall(5)].stalls.size() == 1);
    CHECK(all.rows[*all.rowOfCall(6)].stalls.size() == 1);
    CHECK(all.rows[*all.rowOfCall(1)].stalls.empty());

    const TimelineRows some = TimelineRows::build(r, {2, 5}, false);
    REQUIRE(some.rows.size() == 2);
    CHECK(some.rows[0].call_id == 2);
    CHECK(some.rows[1].call_id == 5);
    CHECK_FALSE(some.rowOfCall(1));
    CHECK(TimelineRows::build(r, {}, false).rows.empty());
}

TEST_CASE("Timeline hit-testing: row under y, phase and stall under t") {
    CHECK_FALSE(rowAtY(10, 28, 22, 5));
    CHECK(rowAtY(28, 28, 22, 5) == size_t(0));
    CHECK(rowAtY(28 + 22 * 4 + 21, 28, 22, 5) == size_t(4));
    CHECK_FALSE(rowAtY(28 + 22 * 5, 28, 22, 5));

    const LoadedResult r(test::makeResult());
    const Call& c = r.calls[1];
    REQUIRE(phaseAt(c, c.phases[2].start_ns + 1));
    CHECK(*phaseAt(c, c.phases[2].start_ns + 1) == 2);
    CHECK_FALSE(phaseAt(c, c.start_ns - 1));
    const TimelineRows rows = TimelineRows::build(r, {}, true);
    const TimelineRow& row = rows.rows[*rows.rowOfCall(2)];
    const auto& s = row.stalls[0];
    CHECK(stallAt(row, (s.start_ns + s.end_ns) / 2, 0));
    CHECK_FALSE(stallAt(row, s.end_ns + 10, 0));
    CHECK(stallAt(row, s.end_ns + 10, 20));
}

TEST_CASE("Latency histogram counts every value once in readable bins") {
    CHECK(latencyHistogram({}, 10).empty());
    const std::vector<double> v = {1, 2, 2.5, 3, 10, 45, 45, 99.9};
    const auto bins = latencyHistogram(v, 10);
    REQUIRE(!bins.empty());
    CHECK(bins.size() <= 10);
    uint64_t total = 0;
    for (const auto& b : bins) total += b.count;
    CHECK(total == v.size());
    CHECK(bins.front().lo_ms <= 1);
    CHECK(bins.back().hi_ms >= 99.9);
    const double w = bins[0].hi_ms - bins[0].lo_ms;
    CHECK(w == Approx(TimeAxis::niceStep(w)));   // a 1-2-5 width
    const auto one = latencyHistogram({7, 7, 7}, 12);
    REQUIRE(!one.empty());
    uint64_t n = 0;
    for (const auto& b : one) n += b.count;
    CHECK(n == 3);
}

TEST_CASE("Histogram count axis: round ticks at a 1-2-5 step, the peak inside") {
    for (uint64_t peak : {0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 7ull, 13ull, 99ull, 28220ull, 40991ull, 202502ull}) {
        INFO("peak " << peak);
        const CountAxis a = countAxis(peak);
        CHECK(a.top >= peak);
        CHECK(a.top % a.step == 0);
        CHECK(a.ticks() >= 2);
        CHECK(a.ticks() <= 6);
        const double mag = std::pow(10.0, std::floor(std::log10(double(a.step))));
        const double m = double(a.step) / mag;
        CHECK((m == 1 || m == 2 || m == 5));
    }
    CHECK(countAxis(28220).step == 10000);   // the 768 MB capture's peak: 0, 10000, 20000, 30000
    CHECK(countAxis(28220).top == 30000);
    CHECK(countAxis(2).top == 2);
}
