#pragma once
// Two-sample statistics for the before/after comparison: the Mann-Whitney U
// rank test and the Hodges-Lehmann shift with its distribution-free
// confidence interval. Pure functions; the method is written down in
// docs/compare.md ("How the statistics work").
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stallscope {

// Samples of up to this many values together get the exact permutation
// distribution (ties included); larger ones the normal approximation.
constexpr size_t kExactRankTestMaxN = 50;

struct RankTest {
    bool valid = false;      // both samples non-empty
    size_t n1 = 0, n2 = 0;   // sizes of sample 1 (before) and 2 (after)
    // U of sample 1: pairs (x, y) with x > y, a tie counting 1/2
    // (= R1 - n1(n1+1)/2, R1 = rank sum of sample 1 with mid-ranks).
    double u1 = 0;
    double u2 = 0;           // n1*n2 - u1
    double p_value = 1;      // two-sided
    double z = 0;            // normal approximation only (0 when exact)
    bool exact = false;
    bool ties = false;
    // The smallest two-sided p-value these sample sizes can give at all
    // (2 / C(n1+n2, n1) without ties); above alpha no difference can show.
    double min_p_value = 1;
    std::string method;      // e.g. "exact" / "normal, tie- and continuity-corrected"
};

enum class RankTestMethod : uint8_t { Auto, Exact, Normal };  // Auto: exact up to kExactRankTestMaxN values

// Two-sided Mann-Whitney U test of x (sample 1) against y (sample 2).
// Exact is refused (falls back to Normal) above kExactRankTestMaxN values.
RankTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                        RankTestMethod method = RankTestMethod::Auto);

// Location shift of y relative to x: the Hodges-Lehmann estimate (median of
// all differences y_j - x_i) and the confidence interval made of two order
// statistics of those differences (Moses / Bauer 1972), chosen with the null
// distribution of U. Valid when the two distributions differ by a shift.
struct ShiftEstimate {
    bool valid = false;        // both samples non-empty
    double estimate = 0;       // Hodges-Lehmann shift, y - x
    bool has_interval = false; // false: too few values for the confidence asked
    double low = 0, high = 0;
    double confidence = 0;     // achieved coverage (>= the one asked), 0 when no interval
    bool exact = false;        // interval ranks from the exact distribution
    bool thinned = false;      // samples were reduced to kShiftMaxPerSide order statistics
};
constexpr size_t kShiftMaxPerSide = 2000;

ShiftEstimate hodges_lehmann_shift(const std::vector<double>& x, const std::vector<double>& y,
                                   double confidence = 0.95);

// Helpers, exposed for tests.
// Mid-ranks (1-based; tied values share the mean of their ranks) of v.
std::vector<double> mid_ranks(const std::vector<double>& v);
// Exact null distribution of U for sizes n1, n2 without ties:
// result[u] = P(U = u), u = 0 .. n1*n2.
std::vector<double> u_distribution(size_t n1, size_t n2);
// Standard normal upper quantile: z with P(Z > z) = p.
double normal_upper_quantile(double p);

} // namespace stallscope
