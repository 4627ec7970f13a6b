#pragma once
// The two latency distributions of a matched group as Qt Charts: every call
// as a dot on a log axis (before | after, medians marked), and histograms on
// shared log-spaced bins. Latencies before and after a fix often differ by
// 100-1000x, so linear bins would squeeze one side into a single bar.
#include "analyzers/compare/compare.h"

#include <cstdint>
#include <vector>

#include <QColor>

class QChart;   // Qt Charts classes live in the global namespace in Qt 6

namespace stallscope::gui {

// Shared bins: edges[i] .. edges[i+1], `per_decade` bins per power of ten,
// covering every positive value of both sides (values <= 0 go in bin 0).
struct SharedLogBins {
    std::vector<double> edges;
    std::vector<uint64_t> before, after;   // counts per bin
};
SharedLogBins sharedLogBins(const std::vector<double>& before, const std::vector<double>& after, int per_decade = 4);

// Both build a new QChart (the caller owns it; a QChartView takes ownership).
QChart* makeDistributionChart(const GroupComparison& g, bool dark);
QChart* makeHistogramChart(const GroupComparison& g, bool dark);
// One colour per capture in every chart: before's and after's series get
// their colours again. Call after themeChart(), whose QChart::setTheme()
// repaints every series in the theme's own colours (in the dark theme
// "after" came out orange in one chart and blue in the other).
void applyCaptureColors(QChart* chart, bool dark);
// The colour of a capture in every Compare chart (side 0: before, 1: after).
QColor captureColor(int side, bool dark);

} // namespace stallscope::gui
