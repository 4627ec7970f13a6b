#include "analyzers/diagram/time_axis.h"

#include <algorithm>
#include <cmath>

namespace stallscope {

bool TimeAxis::add_knot(int64_t t_ns, double px) {
    if (!std::isfinite(px)) return false;
    if (!knots_.empty() && (t_ns < knots_.back().first || px <= knots_.back().second)) return false;
    knots_.emplace_back(t_ns, px);
    return true;
}

double TimeAxis::px_of(int64_t t) const {
    if (knots_.empty()) return 0;
    if (t <= knots_.front().first) return knots_.front().second;
    if (t >= knots_.back().first) {
        // The first knot carrying the last time (repeated times keep the first).
        auto it = std::lower_bound(knots_.begin(), knots_.end(), knots_.back().first,
                                   [](const auto& k, int64_t v) { return k.first < v; });
        return it->second;
    }
    // First knot with time >= t; t lies in (prev.time, it.time].
    auto it = std::lower_bound(knots_.begin(), knots_.end(), t,
                               [](const auto& k, int64_t v) { return k.first < v; });
    if (it->first == t) return it->second;
    auto prev = std::prev(it);
    // Interpolate from the LAST knot at prev's time (its row is the lowest).
    double dt = double(it->first - prev->first);
    double f = double(t - prev->first) / dt;
    return prev->second + f * (it->second - prev->second);
}

int64_t TimeAxis::t_of(double px) const {
    if (knots_.empty()) return 0;
    if (px <= knots_.front().second) return knots_.front().first;
    if (px >= knots_.back().second) return knots_.back().first;
    auto it = std::lower_bound(knots_.begin(), knots_.end(), px,
                               [](const auto& k, double v) { return k.second < v; });
    if (it->second == px) return it->first;
    auto prev = std::prev(it);
    double f = (px - prev->second) / (it->second - prev->second);
    // Work in differences: absolute epoch nanoseconds do not fit a double.
    return prev->first + int64_t(std::llround(f * double(it->first - prev->first)));
}

} // namespace stallscope
