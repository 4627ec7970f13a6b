#include "app/gui/latency_histogram.h"

#include "app/gui/time_axis.h"
#include "analyzers/pipeline/load_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

CountAxis countAxis(uint64_t peak) {
    CountAxis a;
    a.step = std::max<uint64_t>(1, uint64_t(TimeAxis::niceStep(double(std::max<uint64_t>(peak, 1)) / 4)));
    a.top = std::max<uint64_t>(1, (peak + a.step - 1) / a.step) * a.step;
    return a;
}

std::vector<HistogramBin> logLatencyHistogram(const std::vector<double>& values, int per_decade) {
    per_decade = std::clamp(per_decade, 1, 20);
    std::map<int, uint64_t> by_bin;
    uint64_t not_positive = 0;
    for (double v : values) {
        if (v > 0) ++by_bin[log_latency_bin(v, per_decade)];
        else ++not_positive;
    }
    return logHistogramOfBins(by_bin, not_positive, per_decade);
}

std::vector<HistogramBin> logHistogramOfBins(const std::map<int, uint64_t>& by_bin, uint64_t not_positive, int per_decade) {
    if (by_bin.empty()) return not_positive ? std::vector<HistogramBin>{{0, 1, not_positive}} : std::vector<HistogramBin>{};
    per_decade = std::clamp(per_decade, 1, 20);
    const int k0 = by_bin.begin()->first;
    const int k1 = std::min(by_bin.rbegin()->first + 1, k0 + 12 * per_decade);
    std::vector<HistogramBin> bins;
    for (int k = k0; k < k1; ++k)
        bins.push_back({std::pow(10.0, double(k) / per_decade), std::pow(10.0, double(k + 1) / per_decade), 0});
    for (auto [k, n] : by_bin) bins[size_t(std::clamp(k - k0, 0, int(bins.size()) - 1))].count += n;
    bins.front().count += not_positive;   // a latency of 0 counts in the first bin
    return bins;
}

const HistogramBin* quantileBin(const std::vector<HistogramBin>& bins, double q) {
    uint64_t n = 0;
    for (const HistogramBin& b : bins) n += b.count;
    if (n == 0) return nullptr;
    const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(q * double(n))));
    uint64_t seen = 0;
    for (const HistogramBin& b : bins)
        if ((seen += b.count) >= rank) return &b;
    return &bins.back();
}

std::vector<std::string> logHistogramTickLabels(const std::vector<HistogramBin>& bins, int per_decade) {
    per_decade = std::clamp(per_decade, 1, 20);
    auto text = [](double ms) {
        char buf[32];
        if (ms >= 10) std::snprintf(buf, sizeof buf, "%.0f", ms);  // "1000", never "1e+03"
        else std::snprintf(buf, sizeof buf, "%.2g", ms);
        return std::string(buf);
    };
    std::vector<std::string> labels(bins.size());
    size_t first_decade = bins.size();
    for (size_t i = 0; i < bins.size(); ++i) {
        if (bins[i].lo_ms <= 0) continue;
        const double k = std::log10(bins[i].lo_ms) * per_decade;
        if (std::fabs(k - std::round(k)) > 1e-6 || long(std::lround(k)) % per_decade != 0) continue;
        labels[i] = text(bins[i].lo_ms);
        first_decade = std::min(first_decade, i);
    }
    // No decade edge near the start, or none at all (a single bin): the first bin says where the axis starts.
    if (!bins.empty() && (first_decade >= 2 || first_decade == bins.size())) labels[0] = text(bins[0].lo_ms);
    return labels;
}

} // namespace stallscope::gui
