#include "analyzers/compare/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace stallscope {

std::vector<double> mid_ranks(const std::vector<double>& v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {
        size_t j = i;
        while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
        double mid = (double(i + 1) + double(j + 1)) / 2.0;  // ranks i+1 .. j+1 share their mean
        for (size_t k = i; k <= j; ++k) r[idx[k]] = mid;
        i = j + 1;
    }
    return r;
}

namespace {

// ways[s] = number of k-subsets of the items whose doubled ranks sum to s.
// Doubled mid-ranks are integers, so ties are handled exactly. With N <= 50
// the counts (<= C(50,25) ~ 1.3e14) are exact in a double.
std::vector<double> subset_sum_counts(const std::vector<int>& doubled_ranks, size_t k) {
    int total = 0;
    for (int r : doubled_ranks) total += r;
    std::vector<std::vector<double>> ways(k + 1, std::vector<double>(size_t(total) + 1, 0.0));
    ways[0][0] = 1;
    size_t seen = 0;
    for (int r : doubled_ranks) {
        ++seen;
        for (size_t j = std::min(k, seen); j >= 1; --j) {
            auto& to = ways[j];
            const auto& from = ways[j - 1];
            for (int s = total; s >= r; --s) to[size_t(s)] += from[size_t(s - r)];
        }
    }
    return ways[k];
}

double binomial(size_t n, size_t k) {
    if (k > n) return 0;
    k = std::min(k, n - k);
    double c = 1;
    for (size_t i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
    return c;
}

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

} // namespace

double normal_upper_quantile(double p) {
    if (p <= 0) return INFINITY;
    if (p >= 1) return -INFINITY;
    double lo = -40, hi = 40;  // upper tail is decreasing in z
    for (int i = 0; i < 200; ++i) {
        double mid = (lo + hi) / 2;
        if (normal_upper_tail(mid) > p) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2;
}

std::vector<double> u_distribution(size_t n1, size_t n2) {
    size_t n = n1 + n2;
    std::vector<int> ranks(n);
    for (size_t i = 0; i < n; ++i) ranks[i] = int(2 * (i + 1));
    std::vector<double> ways = subset_sum_counts(ranks, n1);
    double total = std::accumulate(ways.begin(), ways.end(), 0.0);
    std::vector<double> p(n1 * n2 + 1, 0.0);
    size_t base = n1 * (n1 + 1);  // doubled minimum rank sum
    for (size_t s = base; s < ways.size(); s += 2) {
        size_t u = (s - base) / 2;
        if (u < p.size()) p[u] = ways[s] / total;
    }
    return p;
}

RankTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, RankTestMethod method) {
    RankTest t;
    t.n1 = x.size();
    t.n2 = y.size();
    if (x.empty() || y.empty()) {
        t.method = "not possible: a sample is empty";
        return t;
    }
    t.valid = true;
    size_t n = t.n1 + t.n2;
    std::vector<double> all(x);
    all.insert(all.end(), y.begin(), y.end());
    std::vector<double> r = mid_ranks(all);
    double r1 = 0;
    for (size_t i = 0; i < t.n1; ++i) r1 += r[i];
    double nn1 = double(t.n1), nn2 = double(t.n2), nn = double(n);
    t.u1 = r1 - nn1 * (nn1 + 1) / 2;
    t.u2 = nn1 * nn2 - t.u1;

    // Tie groups: sum of (t^3 - t) over groups of equal values.
    std::vector<double> sorted(all);
    std::sort(sorted.begin(), sorted.end());
    double tie_term = 0;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i]) ++j;
        double g = double(j - i + 1);
        if (g > 1) { tie_term += g * g * g - g; t.ties = true; }
        i = j + 1;
    }
    t.min_p_value = std::min(1.0, 2.0 / binomial(n, t.n1));

    if (n <= kExactRankTestMaxN && method != RankTestMethod::Normal) {
        // Exact permutation distribution of the rank sum of the smaller
        // sample; two-sided: every arrangement at least as far from the mean.
        bool first_smaller = t.n1 <= t.n2;
        size_t k = first_smaller ? t.n1 : t.n2;
        std::vector<int> doubled(n);
        for (size_t i = 0; i < n; ++i) doubled[i] = int(std::lround(2 * r[i]));
        long observed = 0;
        for (size_t i = 0; i < k; ++i) observed += doubled[first_smaller ? i : t.n1 + i];
        long mean2 = long(k) * long(n + 1);  // doubled expected rank sum
        long dist = std::labs(observed - mean2);
        std::vector<double> ways = subset_sum_counts(doubled, k);
        double total = 0, extreme = 0;
        for (size_t s = 0; s < ways.size(); ++s) {
            if (ways[s] == 0) continue;
            total += ways[s];
            if (std::labs(long(s) - mean2) >= dist) extreme += ways[s];
        }
        t.exact = true;
        t.p_value = std::min(1.0, extreme / total);
        t.method = t.ties ? "exact permutation distribution (ties by mid-ranks)" : "exact";
        return t;
    }

    double mu = nn1 * nn2 / 2;
    double var = nn1 * nn2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
    t.method = "normal approximation, tie- and continuity-corrected";
    if (var <= 0) {  // every value equal
        t.p_value = 1;
        return t;
    }
    double d = std::max(0.0, std::fabs(t.u1 - mu) - 0.5);
    double z = d / std::sqrt(var);
    t.z = t.u1 >= mu ? z : -z;
    t.p_value = std::min(1.0, 2 * normal_upper_tail(z));
    return t;
}

namespace {

// Up to `cap` evenly spaced order statistics of v (all of v when it is small).
std::vector<double> thin(std::vector<double> v, size_t cap, bool& thinned) {
    std::sort(v.begin(), v.end());
    if (v.size() <= cap) return v;
    thinned = true;
    std::vector<double> out(cap);
    for (size_t i = 0; i < cap; ++i) out[i] = v[size_t((double(i) + 0.5) * double(v.size()) / double(cap))];
    return out;
}

} // namespace

ShiftEstimate hodges_lehmann_shift(const std::vector<double>& x0, const std::vector<double>& y0,
                                   double confidence) {
    ShiftEstimate e;
    if (x0.empty() || y0.empty()) return e;
    e.valid = true;
    std::vector<double> x = thin(x0, kShiftMaxPerSide, e.thinned);
    std::vector<double> y = thin(y0, kShiftMaxPerSide, e.thinned);
    size_t n1 = x.size(), n2 = y.size(), m = n1 * n2;
    std::vector<double> d;
    d.reserve(m);
    for (double a : x)
        for (double b : y) d.push_back(b - a);
    std::sort(d.begin(), d.end());
    e.estimate = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;

    // The interval [d_(k), d_(m+1-k)] misses the true shift with probability
    // 2 P(U <= k-1); take the largest k that keeps this within 1 - confidence.
    double half_alpha = (1 - confidence) / 2;
    size_t k = 0;
    double miss = 0;
    if (n1 + n2 <= kExactRankTestMaxN) {
        std::vector<double> p = u_distribution(n1, n2);
        double cdf = 0;  // P(U <= k-1) for the candidate k
        for (size_t cand = 1; cand <= m; ++cand) {
            cdf += p[cand - 1];
            if (cdf > half_alpha + 1e-12) break;  // tolerance: 1 - 0.9 is not exactly 0.1
            k = cand;
            miss = 2 * cdf;
        }
        e.exact = true;
    } else {
        double mu = double(m) / 2, sd = std::sqrt(double(m) * double(n1 + n2 + 1) / 12.0);
        double z = normal_upper_quantile(half_alpha);
        double kk = std::floor(mu - z * sd + 0.5);
        if (kk >= 1) {
            k = size_t(kk);
            miss = 2 * (1 - normal_upper_tail((double(k) - 0.5 - mu) / sd));
        }
    }
    if (k >= 1 && 2 * k <= m + 1) {
        e.has_interval = true;
        e.low = d[k - 1];
        e.high = d[m - k];
        e.confidence = 1 - miss;
    }
    return e;
}

} // namespace stallscope
