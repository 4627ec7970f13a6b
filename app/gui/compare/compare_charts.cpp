#include "app/gui/compare/compare_charts.h"

#include "app/gui/display_text.h"
#include "app/gui/theme.h"

#include <QPen>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

namespace stallscope::gui {

SharedLogBins sharedLogBins(const std::vector<double>& before, const std::vector<double>& after, int per_decade) {
    SharedLogBins b;
    per_decade = std::clamp(per_decade, 1, 20);
    double lo = INFINITY, hi = -INFINITY;
    for (const auto* v : {&before, &after})
        for (double x : *v)
            if (x > 0) { lo = std::min(lo, x); hi = std::max(hi, x); }
    if (!std::isfinite(lo)) {  // nothing positive: one bin for everything
        b.edges = {0, 1};
        b.before = {uint64_t(before.size())};
        b.after = {uint64_t(after.size())};
        return b;
    }
    // Edges at 10^(k / per_decade), from the one at or below lo to the first above hi.
    int k0 = int(std::floor(std::log10(lo) * per_decade + 1e-9));
    int k1 = int(std::floor(std::log10(hi) * per_decade + 1e-9)) + 1;
    k1 = std::min(k1, k0 + 20 * per_decade);  // at most 20 decades
    for (int k = k0; k <= k1; ++k) b.edges.push_back(std::pow(10.0, double(k) / per_decade));
    size_t n = b.edges.size() - 1;
    b.before.assign(n, 0);
    b.after.assign(n, 0);
    auto bin_of = [&](double x) -> size_t {
        if (x <= b.edges.front()) return 0;
        auto it = std::upper_bound(b.edges.begin(), b.edges.end(), x);
        size_t i = size_t(it - b.edges.begin()) - 1;
        return std::min(i, n - 1);
    };
    for (double x : before) ++b.before[bin_of(x)];
    for (double x : after) ++b.after[bin_of(x)];
    return b;
}

namespace {

QColor beforeColor(bool dark) { return captureColor(0, dark); }
QColor afterColor(bool dark) { return captureColor(1, dark); }

QString msLabel(double v) {
    if (v >= 100) return QString::number(v, 'f', 0);
    if (v >= 10) return QString::number(v, 'f', 1);
    if (v >= 1) return QString::number(v, 'f', 2);
    return QString::number(v, 'g', 2);
}

// A bin's start in at most 4 characters, so a dozen bins fit under a
// half-window chart unelided ("0.05", "0.22", "2.2", "46"; "22" for 21.5).
QString binStartLabel(double v) {
    if (v >= 10) return QString::number(v, 'f', 0);
    if (v >= 1) return QString::number(v, 'f', 1);
    return QString::number(v, 'g', v < 0.1 ? 1 : 2);
}

QChart* baseChart(const QString& title) {
    auto* chart = new QChart;
    // Qt Charts read titles as rich text: "echoString [<1 KiB]" lost its "<1 KiB]".
    chart->setTitle(title.toHtmlEscaped());
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

} // namespace

QChart* makeDistributionChart(const GroupComparison& g, bool dark) {
    QChart* chart = baseChart(QObject::tr("Latency of every call: %1").arg(QString::fromStdString(g.label)));
    const std::vector<double>* sides[2] = {&g.before.latencies_ms, &g.after.latencies_ms};
    const double medians[2] = {g.before.stats.median_ms, g.after.stats.median_ms};
    double lo = INFINITY, hi = 0;
    for (auto* v : sides)
        for (double x : *v) { lo = std::min(lo, std::max(x, 1e-3)); hi = std::max(hi, std::max(x, 1e-3)); }
    if (!std::isfinite(lo)) { lo = 0.01; hi = 1; }

    auto* x_axis = new QCategoryAxis;
    x_axis->setRange(0.5, 2.5);
    x_axis->setStartValue(0.5);
    x_axis->append(QObject::tr("before (%1)").arg(countNoun(g.before.latencies_ms.size(), QObject::tr("call"), QObject::tr("calls"))), 1.5);
    x_axis->append(QObject::tr("after (%1)").arg(countNoun(g.after.latencies_ms.size(), QObject::tr("call"), QObject::tr("calls"))), 2.5);
    x_axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    x_axis->setGridLineVisible(false);
    auto* y_axis = new QLogValueAxis;
    y_axis->setBase(10);
    y_axis->setRange(std::pow(10, std::floor(std::log10(lo))), std::pow(10, std::ceil(std::log10(hi * 1.01))));
    y_axis->setLabelFormat(QStringLiteral("%g"));
    y_axis->setTitleText(QObject::tr("ms (log scale)"));
    y_axis->setMinorTickCount(8);
    chart->addAxis(x_axis, Qt::AlignBottom);
    chart->addAxis(y_axis, Qt::AlignLeft);

    const QString names[2] = {QObject::tr("before"), QObject::tr("after")};
    const QColor colors[2] = {beforeColor(dark), afterColor(dark)};
    for (int s = 0; s < 2; ++s) {
        auto* dots = new QScatterSeries;
        dots->setName(names[s]);
        dots->setMarkerSize(9);
        dots->setColor(colors[s]);
        dots->setBorderColor(colors[s].darker(130));
        const auto& v = *sides[s];
        for (size_t i = 0; i < v.size(); ++i) {
            // Spread the dots sideways (deterministically) so equal values stay visible.
            double jitter = v.size() > 1 ? (double(i % 9) / 8.0 - 0.5) * 0.5 : 0;
            dots->append(1.0 + s + jitter, std::max(v[i], 1e-3));
        }
        chart->addSeries(dots);
        dots->attachAxis(x_axis);
        dots->attachAxis(y_axis);
        if (!v.empty()) {
            auto* med = new QLineSeries;
            med->setName(QObject::tr("median %1: %2 ms").arg(names[s], msLabel(medians[s])));
            QPen pen(colors[s].darker(150));
            pen.setWidth(3);
            med->setPen(pen);
            med->append(0.65 + s, std::max(medians[s], 1e-3));
            med->append(1.35 + s, std::max(medians[s], 1e-3));
            chart->addSeries(med);
            med->attachAxis(x_axis);
            med->attachAxis(y_axis);
        }
    }
    return chart;
}

QChart* makeHistogramChart(const GroupComparison& g, bool dark) {
    QChart* chart = baseChart(QObject::tr("Latency histogram, shared log bins (ms)"));
    SharedLogBins bins = sharedLogBins(g.before.latencies_ms, g.after.latencies_ms, 3);  // 1, 2.2, 4.6, 10: short labels
    auto* before = new QBarSet(QObject::tr("before"));
    auto* after = new QBarSet(QObject::tr("after"));
    before->setColor(beforeColor(dark));
    after->setColor(afterColor(dark));
    QStringList categories;
    uint64_t top = 1;
    for (size_t i = 0; i + 1 < bins.edges.size(); ++i) {
        *before << double(bins.before[i]);
        *after << double(bins.after[i]);
        top = std::max({top, bins.before[i], bins.after[i]});
        categories << binStartLabel(bins.edges[i]);
    }
    auto* series = new QBarSeries;
    series->append(before);
    series->append(after);
    chart->addSeries(series);
    auto* x_axis = new QBarCategoryAxis;
    x_axis->append(categories);
    x_axis->setTitleText(QObject::tr("bin from (ms)"));
    auto* y_axis = new QValueAxis;
    y_axis->setRange(0, double(top));
    y_axis->applyNiceNumbers();   // whole-number ticks (0, 2, 4, ...) instead of 0, 1.6, 3.2
    y_axis->setLabelFormat(QStringLiteral("%d"));
    y_axis->setTitleText(QObject::tr("calls"));
    chart->addAxis(x_axis, Qt::AlignBottom);
    chart->addAxis(y_axis, Qt::AlignLeft);
    series->attachAxis(x_axis);
    series->attachAxis(y_axis);
    return chart;
}

QColor captureColor(int side, bool dark) {
    if (side == 0) return stallColor(dark);
    return dark ? QColor(0x5d, 0xa5, 0xe8) : QColor(0x1f, 0x6f, 0xb5);
}

void applyCaptureColors(QChart* chart, bool dark) {
    if (!chart) return;
    // The dots and median lines are named after their capture ("before",
    // "median after: 3.49 ms"); the bar series holds the before set first.
    for (QAbstractSeries* s : chart->series()) {
        const int side = s->name().contains(QObject::tr("after")) ? 1 : 0;
        if (auto* bars = qobject_cast<QBarSeries*>(s)) {
            const auto sets = bars->barSets();
            for (int i = 0; i < sets.size() && i < 2; ++i) {
                sets[i]->setColor(captureColor(i, dark));
                sets[i]->setBorderColor(captureColor(i, dark).darker(130));
            }
        } else if (auto* dots = qobject_cast<QScatterSeries*>(s)) {
            dots->setColor(captureColor(side, dark));
            dots->setBorderColor(captureColor(side, dark).darker(130));
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            QPen pen(captureColor(side, dark).darker(dark ? 100 : 150));
            pen.setWidth(3);
            line->setPen(pen);
        }
    }
}

} // namespace stallscope::gui
