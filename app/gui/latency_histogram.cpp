#include "app/gui/latency_histogram.h"

#include "app/gui/time_axis.h"

#include <algorithm>
#include <cmath>

namespace stallscope::gui {

std::vector<HistogramBin> latencyHistogram(const std::vector<double>& values, int max_bins) {
    std::vector<HistogramBin> bins;
    if (values.empty() || max_bins < 1) return bins;
    double lo = values.front(), hi = values.front();
    for (double v : values) { lo = std::min(lo, v); hi = std::max(hi, v); }
    // niceStep works on any positive unit; reuse it for ms.
    double width = TimeAxis::niceStep(std::max(1e-3, (hi - lo) / max_bins));
    double start = std::floor(lo / width) * width;
    int n = std::max(1, int(std::ceil((hi - start) / width + 1e-9)));
    while (n > max_bins) {  // rounding up the start can need one more bin
        width = TimeAxis::niceStep(width * 1.01);
        start = std::floor(lo / width) * width;
        n = std::max(1, int(std::ceil((hi - start) / width + 1e-9)));
    }
    if (start + n * width <= hi) ++n;  // hi exactly on an edge lands in a real bin
    if (n > max_bins) n = max_bins;
    for (int i = 0; i < n; ++i) bins.push_back({start + i * width, start + (i + 1) * width, 0});
    for (double v : values) {
        int i = int(std::floor((v - start) / width));
        bins[std::clamp(i, 0, n - 1)].count++;
    }
    return bins;
}

} // namespace stallscope::gui
