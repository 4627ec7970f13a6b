#pragma once
// A piecewise-linear, monotone mapping between capture time (ns) and one
// pixel coordinate. Both diagrams use it: the event trace gives every segment
// a minimum row and cuts idle stretches out; the timeline compresses idle
// gaps between calls. Keeping it one small invertible function lets the GUI
// map a mouse position back to a time.
#include <cstdint>
#include <utility>
#include <vector>

namespace stallscope {

class TimeAxis {
public:
    // Knots must be added with non-decreasing time and strictly increasing
    // pixel (a repeated time is allowed: several segments at one timestamp
    // each get their own row; the first knot wins when mapping that time).
    // Returns false (and ignores the knot) when the order would break.
    bool add_knot(int64_t t_ns, double px);

    bool empty() const { return knots_.empty(); }
    const std::vector<std::pair<int64_t, double>>& knots() const { return knots_; }

    // Time -> pixel; clamps outside the knots' time range. Non-decreasing.
    double px_of(int64_t t_ns) const;
    // Pixel -> time; clamps outside the knots' pixel range. Inverse of px_of
    // for every time inside the range (to the nanosecond, rounding to nearest).
    int64_t t_of(double px) const;

private:
    std::vector<std::pair<int64_t, double>> knots_;  // (time, pixel)
};

} // namespace stallscope
