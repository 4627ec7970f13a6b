#include "analyzers/diagram/time_axis.h"

#include <catch2/catch.hpp>

using namespace stallscope;

TEST_CASE("TimeAxis maps monotonically and inverts inside its range", "[time_axis]") {
    const int64_t t0 = 1'700'000'000'000'000'000LL;   // epoch ns: too big for exact doubles
    TimeAxis ax;
    REQUIRE(ax.add_knot(t0, 100));
    REQUIRE(ax.add_knot(t0 + 50'000, 126));
    REQUIRE(ax.add_knot(t0 + 50'000, 152));       // same time, next row
    REQUIRE(ax.add_knot(t0 + 40'000'000, 400));
    REQUIRE(ax.add_knot(t0 + 9'000'000'000, 460));

    double prev = -1;
    for (int64_t t = t0 - 1000; t <= t0 + 9'000'001'000; t += 1'234'567) {
        double px = ax.px_of(t);
        REQUIRE(px >= prev);
        prev = px;
        if (t >= t0 && t <= t0 + 9'000'000'000) {
            // Several ns share a pixel only at 1e-9 px precision; the inverse is exact.
            REQUIRE(ax.t_of(px) == t);
        }
    }
    // A repeated time maps to its first row; between the rows belongs to that time.
    CHECK(ax.px_of(t0 + 50'000) == 126);
    CHECK(ax.t_of(140) == t0 + 50'000);
    // Clamping outside the range.
    CHECK(ax.px_of(t0 - 5) == 100);
    CHECK(ax.px_of(t0 + 10'000'000'000) == 460);
    CHECK(ax.t_of(0) == t0);
    CHECK(ax.t_of(1e6) == t0 + 9'000'000'000);
}

TEST_CASE("TimeAxis refuses knots that would break monotonicity", "[time_axis]") {
    TimeAxis ax;
    CHECK(ax.px_of(5) == 0);   // empty: harmless
    CHECK(ax.t_of(5) == 0);
    REQUIRE(ax.add_knot(10, 10));
    CHECK_FALSE(ax.add_knot(9, 20));    // time going back
    CHECK_FALSE(ax.add_knot(11, 10));   // pixel not increasing
    CHECK_FALSE(ax.add_knot(11, std::numeric_limits<double>::quiet_NaN()));
    CHECK(ax.knots().size() == 1);
    CHECK(ax.px_of(10) == 10);
}
