#pragma once
// Latency histogram bins for the overview chart (pure, no Qt).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace stallscope::gui {

struct HistogramBin {
    double lo_ms = 0, hi_ms = 0;   // [lo, hi), the last bin includes hi
    uint64_t count = 0;
};

// Equal-width bins over [min, max] of the values; bin width rounded to a
// 1-2-5 step so the labels read well. Empty input -> no bins.
std::vector<HistogramBin> latencyHistogram(const std::vector<double>& values_ms, int max_bins);

// Log-spaced bins, edges at 10^(k / per_decade) ms, from the edge at or below
// the smallest value to the first above the largest: latencies spread over
// decades (0.2 ms calls and 200 ms stalls) each get readable bars. Values
// <= 0 count in the first bin. Empty input -> no bins.
std::vector<HistogramBin> logLatencyHistogram(const std::vector<double>& values_ms, int per_decade = 4);

// The same bins from counts per log bin (log_latency_bin, analyzers/pipeline/
// load_figures.h) and of latencies <= 0: what a load's figures so far keep
// instead of the values.
std::vector<HistogramBin> logHistogramOfBins(const std::map<int, uint64_t>& by_bin, uint64_t not_positive, int per_decade = 4);

// The bin holding the q-quantile of the counted values (the median: 0.5),
// null when there are none: where a percentile lies when only bins are kept.
const HistogramBin* quantileBin(const std::vector<HistogramBin>& bins, double q);

// Tick labels for log bins made with `per_decade`: the decade edges ("0.1",
// "1", "10") and the first bin when no decade edge is near it; "" for the
// rest. A small chart has room for a label every few bins, not for each one.
std::vector<std::string> logHistogramTickLabels(const std::vector<HistogramBin>& bins, int per_decade = 4);

// The count axis of a histogram: 0 to a round top at a 1-2-5 step, about
// four intervals, every tick a whole number (never 7055 / 14110).
struct CountAxis {
    uint64_t top = 1, step = 1;
    int ticks() const { return int(top / step) + 1; }
};
CountAxis countAxis(uint64_t peak);

} // namespace stallscope::gui
