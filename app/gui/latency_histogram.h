#pragma once
// Latency histogram bins for the overview chart (pure, no Qt).
#include <cstdint>
#include <vector>

namespace stallscope::gui {

struct HistogramBin {
    double lo_ms = 0, hi_ms = 0;   // [lo, hi), the last bin includes hi
    uint64_t count = 0;
};

// Equal-width bins over [min, max] of the values; bin width rounded to a
// 1-2-5 step so the labels read well. Empty input -> no bins.
std::vector<HistogramBin> latencyHistogram(const std::vector<double>& values_ms, int max_bins);

} // namespace stallscope::gui
