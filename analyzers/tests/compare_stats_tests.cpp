// Mann-Whitney U and the Hodges-Lehmann shift: textbook values, ties,
// tiny and identical samples, and a brute-force enumeration of the
// permutation distribution as an independent reference.
#include "analyzers/compare/compare_stats.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace stallscope;

namespace {

// U of x by its definition: pairs with x > y, ties 1/2.
double u_by_pairs(const std::vector<double>& x, const std::vector<double>& y) {
    double u = 0;
    for (double a : x)
        for (double b : y) u += a > b ? 1.0 : a == b ? 0.5 : 0.0;
    return u;
}

// Two-sided permutation p-value by enumerating every way to relabel the
// pooled values (same n1), counting arrangements whose U is at least as far
// from n1*n2/2 as the observed one.
double brute_force_p(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<double> all(x);
    all.insert(all.end(), y.begin(), y.end());
    size_t n = all.size(), n1 = x.size();
    double mean = double(n1 * y.size()) / 2, obs = std::fabs(u_by_pairs(x, y) - mean);
    std::vector<bool> pick(n, false);
    std::fill(pick.begin(), pick.begin() + long(n1), true);
    double total = 0, extreme = 0;
    // prev_permutation walks every n1-subset exactly once.
    do {
        std::vector<double> a, b;
        for (size_t i = 0; i < n; ++i) (pick[i] ? a : b).push_back(all[i]);
        ++total;
        if (std::fabs(u_by_pairs(a, b) - mean) >= obs - 1e-9) ++extreme;
    } while (std::prev_permutation(pick.begin(), pick.end()));
    return extreme / total;
}

} // namespace

TEST_CASE("mid-ranks share the mean rank of tied values", "[compare][stats]") {
    std::vector<double> r = mid_ranks({3.0, 1.0, 3.0, 2.0, 3.0});
    CHECK(r == std::vector<double>{4.0, 1.0, 4.0, 2.0, 4.0});
    CHECK(mid_ranks({}).empty());
}

TEST_CASE("U and exact p of Conover's example (as in SciPy's mannwhitneyu docs)", "[compare][stats]") {
    // males vs females: U1 = 17, exact two-sided p = 0.1111 (14 of 126 arrangements).
    std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
    RankTest t = mann_whitney_u(males, females);
    REQUIRE(t.valid);
    CHECK(t.exact);
    CHECK(t.u1 == 17.0);
    CHECK(t.u2 == 3.0);
    CHECK(t.p_value == Approx(14.0 / 126.0).epsilon(1e-12));
    // The normal approximation with continuity correction: p = 0.11134688653314041.
    RankTest n = mann_whitney_u(males, females, RankTestMethod::Normal);
    CHECK_FALSE(n.exact);
    CHECK(n.u1 == 17.0);
    CHECK(n.p_value == Approx(0.11134688653314041).epsilon(1e-9));
    CHECK(n.z > 0);
}

TEST_CASE("normal approximation with ties matches SciPy", "[compare][stats]") {
    // scipy.stats.mannwhitneyu([1,2,2,3], [2,3,3,4,5], method='asymptotic'):
    // statistic 3.0, pvalue 0.09934224785346528 (tie-corrected, continuity-corrected).
    RankTest n = mann_whitney_u({1, 2, 2, 3}, {2, 3, 3, 4, 5}, RankTestMethod::Normal);
    CHECK(n.ties);
    CHECK(n.u1 == 3.0);
    CHECK(n.p_value == Approx(0.09934224785346528).epsilon(1e-9));
    // ... and method='exact' there gives 0.1111 (it ignores ties); ours is the
    // exact permutation distribution with mid-ranks, checked by enumeration below.
}

TEST_CASE("exact null distribution of U for tiny samples", "[compare][stats]") {
    // n1 = n2 = 2: the six arrangements give U = 0,1,2,2,3,4.
    std::vector<double> p = u_distribution(2, 2);
    REQUIRE(p.size() == 5);
    CHECK(p[0] == Approx(1.0 / 6));
    CHECK(p[1] == Approx(1.0 / 6));
    CHECK(p[2] == Approx(2.0 / 6));
    CHECK(p[3] == Approx(1.0 / 6));
    CHECK(p[4] == Approx(1.0 / 6));
    // n1 = n2 = 5: P(U <= 2) = 4/252 (the 0.016 of the classic tables).
    std::vector<double> q = u_distribution(5, 5);
    CHECK(q[0] + q[1] + q[2] == Approx(4.0 / 252));
    double sum = 0;
    for (double v : q) sum += v;
    CHECK(sum == Approx(1.0));
}

TEST_CASE("complete separation of 5 and 5 calls", "[compare][stats]") {
    std::vector<double> before = {45.1, 44.0, 47.3, 46.2, 44.8}, after = {0.1, 0.12, 0.09, 0.2, 0.11};
    RankTest t = mann_whitney_u(before, after);
    CHECK(t.u1 == 25.0);
    CHECK(t.u2 == 0.0);
    CHECK(t.p_value == Approx(2.0 / 252).epsilon(1e-12));
    CHECK(t.min_p_value == Approx(2.0 / 252).epsilon(1e-12));
    CHECK_FALSE(t.ties);
}

TEST_CASE("n = 1 on each side can never be significant", "[compare][stats]") {
    RankTest t = mann_whitney_u({1000.0}, {10.0});
    REQUIRE(t.valid);
    CHECK(t.u1 == 1.0);
    CHECK(t.p_value == Approx(1.0));
    CHECK(t.min_p_value == Approx(1.0));
    ShiftEstimate s = hodges_lehmann_shift({1000.0}, {10.0});
    CHECK(s.valid);
    CHECK(s.estimate == Approx(-990.0));
    CHECK_FALSE(s.has_interval);
}

TEST_CASE("identical samples give p = 1 and a zero shift", "[compare][stats]") {
    std::vector<double> a = {5, 5, 5, 5};
    RankTest t = mann_whitney_u(a, a);
    CHECK(t.ties);
    CHECK(t.u1 == 8.0);
    CHECK(t.p_value == Approx(1.0));
    RankTest n = mann_whitney_u(a, a, RankTestMethod::Normal);
    CHECK(n.p_value == Approx(1.0));  // zero variance: no evidence at all
    std::vector<double> b = {1, 2, 3, 4, 5, 6};
    CHECK(mann_whitney_u(b, b).p_value == Approx(1.0));
    CHECK(hodges_lehmann_shift(b, b).estimate == Approx(0.0));
}

TEST_CASE("an empty sample is not a test", "[compare][stats]") {
    CHECK_FALSE(mann_whitney_u({}, {1.0, 2.0}).valid);
    CHECK_FALSE(hodges_lehmann_shift({1.0}, {}).valid);
}

TEST_CASE("exact p with ties equals brute-force enumeration", "[compare][stats]") {
    std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
        {{1, 2, 2, 3}, {2, 3, 3, 4, 5}},
        {{40, 40, 41, 44, 44, 44}, {0.1, 0.1, 40, 0.2}},
        {{7}, {7, 7, 8}},
        {{1, 1, 1, 2}, {1, 2, 2, 2}},
    };
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> val(0, 4), len(1, 7);
    for (int i = 0; i < 30; ++i) {  // random small samples with many ties
        std::vector<double> x(size_t(len(rng))), y(size_t(len(rng)));
        for (auto& v : x) v = val(rng);
        for (auto& v : y) v = val(rng);
        cases.push_back({x, y});
    }
    for (auto& [x, y] : cases) {
        RankTest t = mann_whitney_u(x, y, RankTestMethod::Exact);
        CHECK(t.exact);
        CHECK(t.u1 == Approx(u_by_pairs(x, y)));
        CHECK(t.u1 + t.u2 == Approx(double(x.size() * y.size())));
        CHECK(t.p_value == Approx(brute_force_p(x, y)).epsilon(1e-12));
    }
}

TEST_CASE("normal approximation is close to exact for moderate n and used above the limit", "[compare][stats]") {
    std::mt19937 rng(7);
    std::normal_distribution<double> d(10, 3);
    std::vector<double> x(20), y(20);
    for (auto& v : x) v = d(rng);
    for (auto& v : y) v = d(rng) + 2.5;
    RankTest e = mann_whitney_u(x, y, RankTestMethod::Exact), n = mann_whitney_u(x, y, RankTestMethod::Normal);
    CHECK(e.exact);
    CHECK(e.u1 == n.u1);
    CHECK(n.p_value == Approx(e.p_value).margin(0.01));

    std::vector<double> big1(30), big2(30);
    for (auto& v : big1) v = d(rng);
    for (auto& v : big2) v = d(rng);
    RankTest a = mann_whitney_u(big1, big2);
    CHECK_FALSE(a.exact);  // 60 values > kExactRankTestMaxN
    CHECK(a.p_value > 0);
    CHECK(a.p_value <= 1);
}

TEST_CASE("tie correction makes the normal p smaller than without it", "[compare][stats]") {
    // Many ties shrink the variance of U; the corrected z is larger.
    std::vector<double> x = {1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    std::vector<double> y = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3};
    RankTest t = mann_whitney_u(x, y);
    REQUIRE_FALSE(t.exact);
    double n1 = double(x.size()), n2 = double(y.size());
    double sd_untied = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
    double p_untied = std::erfc((std::fabs(t.u1 - n1 * n2 / 2) - 0.5) / sd_untied / std::sqrt(2.0));
    CHECK(t.p_value < p_untied);
    CHECK(t.u1 == Approx(u_by_pairs(x, y)));
}

TEST_CASE("Hodges-Lehmann shift and its exact interval", "[compare][stats]") {
    // Differences y - x of {1,2,3} and {4,5,6}: 1,2,2,3,3,3,4,4,5 -> median 3.
    ShiftEstimate s = hodges_lehmann_shift({1, 2, 3}, {4, 5, 6});
    CHECK(s.estimate == Approx(3.0));
    // 3 vs 3: P(U = 0) = 1/20 > 0.025, so no 95% interval exists.
    CHECK_FALSE(s.has_interval);
    // At 90% it does: k = 1, the extreme differences, coverage 1 - 2/20.
    ShiftEstimate s90 = hodges_lehmann_shift({1, 2, 3}, {4, 5, 6}, 0.90);
    REQUIRE(s90.has_interval);
    CHECK(s90.low == Approx(1.0));
    CHECK(s90.high == Approx(5.0));
    CHECK(s90.confidence == Approx(0.9));

    // 5 vs 5 at 95%: k = 3 (P(U <= 2) = 4/252), coverage 1 - 8/252.
    std::vector<double> x = {10, 11, 12, 13, 14}, y = {20, 21, 22, 23, 24};
    ShiftEstimate f = hodges_lehmann_shift(x, y);
    REQUIRE(f.has_interval);
    CHECK(f.exact);
    CHECK(f.estimate == Approx(10.0));
    CHECK(f.confidence == Approx(1 - 8.0 / 252));
    // Sorted differences: 6,7,7,8,8,8,... -> the 3rd is 7, the 23rd (25+1-3) is 13.
    CHECK(f.low == Approx(7.0));
    CHECK(f.high == Approx(13.0));
    CHECK(f.low <= f.estimate);
    CHECK(f.estimate <= f.high);
}

TEST_CASE("normal-approximation interval for large samples contains the true shift", "[compare][stats]") {
    std::mt19937 rng(99);
    std::normal_distribution<double> d(50, 5);
    std::vector<double> x(200), y(300);
    for (auto& v : x) v = d(rng);
    for (auto& v : y) v = d(rng) - 40;  // the fix took 40 ms off
    ShiftEstimate s = hodges_lehmann_shift(x, y);
    REQUIRE(s.has_interval);
    CHECK_FALSE(s.exact);
    CHECK(s.low < -40.0 + 2);
    CHECK(s.high > -40.0 - 2);
    CHECK(s.high - s.low < 4);
    CHECK(s.confidence >= 0.95 - 1e-9);
}

TEST_CASE("normal upper quantile", "[compare][stats]") {
    CHECK(normal_upper_quantile(0.025) == Approx(1.959964).epsilon(1e-6));
    CHECK(normal_upper_quantile(0.5) == Approx(0.0).margin(1e-9));
}
