// The Overview while a capture loads: the analysis's figures of the calls
// finished so far (LoadCounters::figures, no Qt), shown through the same
// boxes as a result's and marked "so far · N %". What a load cannot know
// before its end (connections, where it was captured, the median without
// stalls, the findings list) says "at the end"; percentiles come from the
// histogram's bins, so they are shown as the bin they lie in.
#include "app/gui/overview_page.h"

#include "analyzers/pipeline/load_figures.h"
#include "analyzers/result/finding_kinds.h"
#include "app/gui/display_text.h"
#include "app/gui/findings_tree_model.h"
#include "app/gui/selection_hub.h"

#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QTimer>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

namespace stallscope::gui {

namespace {

// The figures so far as a summary row, for the boxes a result fills. Only
// what they hold: no percentiles (bins only), no calls per kind, no prediction.
SummaryGroup summarySoFar(const LoadFigures& f) {
    SummaryGroup g;
    g.latency.calls = f.complete_calls;
    g.latency.max_ms = f.latency_max_ms;
    g.latency.total_ms = f.latency_total_ms;
    g.avoidable_ms = f.ledger.avoidable_ms();
    g.server_ms = f.ledger.cause_ms(kServer);
    g.transfer_ms = f.ledger.transfer_ms();
    g.setup_ms = f.ledger.setup_ms();
    for (const auto& [kind, k] : f.kinds) {
        KindLoss loss;
        loss.kind = kind;
        loss.findings = k.findings;
        loss.lost_ms = k.lost_ms;
        loss.avoidable = is_avoidable(kind);
        // As the summary's: connection_setup's share is of the client's time (setup + latency)
        const double base = f.latency_total_ms + (kind == "connection_setup" ? f.ledger.setup_ms() : 0.0);
        loss.share = base > 0 ? k.lost_ms / base : 0;
        g.losses.push_back(loss);
    }
    std::stable_sort(g.losses.begin(), g.losses.end(), [](auto& a, auto& b) { return a.lost_ms > b.lost_ms; });
    return g;
}

QString binText(const HistogramBin* b) {
    return b ? QObject::tr("in %1–%2 (histogram bin)").arg(formatMs(b->lo_ms), formatMs(b->hi_ms)) : QStringLiteral("—");
}

} // namespace

void OverviewPage::setPartialTitles(const QString& so_far) {
    const QString mark = so_far.isEmpty() ? QString() : QStringLiteral(" \u2014 ") + so_far;
    stats_box_->setTitle(tr("Capture") + mark);
    loss_box_->setTitle(tr("Time per kind (stalls: time lost)") + mark);
    chart_view_->chart()->setTitle(tr("Latency histogram: calls per bin") + mark);   // the y axis needs no title then
    findings_box_->setTitle(so_far.isEmpty() ? tr("Findings by kind, ranked by time lost (expand a row for each finding)")
                                             : tr("Findings by kind: listed when the load ends"));
}

void OverviewPage::startPartial(const QString& file_name, std::shared_ptr<const LoadCounters> counters) {
    stopPartial(true);   // a load replacing a running one: nothing of that one stays
    counters_ = std::move(counters);
    loading_name_ = file_name;
    fraction_ = -1;
    packets_ = 0;
    partial_shown_ = false;
    if (counters_) partial_timer_->start();
}

void OverviewPage::setLoadProgress(double fraction, quint64 packets) {
    fraction_ = fraction;
    packets_ = packets;
    if (partial_shown_) refreshPartial();   // the per cent and the figures of the same moment
}

void OverviewPage::stopPartial(bool restore) {
    partial_timer_->stop();
    counters_.reset();
    if (!partial_shown_) return;
    partial_shown_ = false;
    banner_->hide();
    setPartialTitles({});
    if (restore) onResult(hub_->result());   // nothing of the load stays
}

void OverviewPage::refreshPartial() {
    if (!counters_) return;
    const uint64_t calls = counters_->calls.load(std::memory_order_relaxed);
    if (calls == 0 && !partial_shown_) return;   // nothing to show yet: the page stays as it was
    const LoadFigures f = counters_->figures->get();
    if (f.ended) return;   // the result is on its way (SelectionHub::resultChanged)
    const uint64_t findings = counters_->findings.load(std::memory_order_relaxed);
    const bool first = !partial_shown_;
    if (first) findings_model_->setResult(nullptr);   // a previous capture's findings are not this one's
    partial_shown_ = true;
    const QLocale loc;
    auto count = [&loc](uint64_t n, const QString& one, const QString& many) {
        return loc.toString(qulonglong(n)) + QLatin1Char(' ') + (n == 1 ? one : many);
    };
    const QString so_far = fraction_ >= 0 ? tr("so far \u00b7 %1 %").arg(qRound(fraction_ * 100)) : tr("so far");
    setPartialTitles(so_far);
    banner_->setText(tr("<b>Loading %1, %2 read:</b> the figures of the %3 and %4 found so far. "
                        "They fill in as the load goes on; the final result replaces them at its end.")
                         .arg(loading_name_.toHtmlEscaped(),
                              fraction_ >= 0 ? tr("%1 %").arg(qRound(fraction_ * 100)) : loc.toString(packets_) + tr(" packets"),
                              count(calls, tr("call"), tr("calls")), count(findings, tr("finding"), tr("findings"))));
    banner_->show();

    clearFigures();
    const SummaryGroup g = summarySoFar(f);
    setStat("file", loading_name_ + tr(" (loading)"));
    setStat("packets", packets_ ? loc.toString(packets_) + tr(" so far") : QStringLiteral("—"));
    setStat("calls", tr("%1 so far (%2 complete)").arg(loc.toString(qulonglong(calls)), loc.toString(qulonglong(f.complete_calls))));
    const QString at_end = tr("at the end");
    for (const char* key : {"connections", "captured", "view", "predicted", "warnings"}) setStat(QString::fromLatin1(key), at_end);
    fillTimeStats(g);
    fillLossTable(g);
    for (int i = 0; i < losses_->rowCount(); ++i)   // calls per kind: at the end
        if (QTableWidgetItem* it = losses_->item(i, 2)) it->setText(QStringLiteral("—"));
    const std::vector<HistogramBin> bins = logHistogramOfBins(f.latency_bins, f.latency_not_positive, LoadFigures::kBinsPerDecade);
    setStat("median", binText(quantileBin(bins, 0.5)));
    setStat("p90", binText(quantileBin(bins, 0.9)));
    setStat("predicted", at_end);
    fillHistogram(bins);
    if (first) refreshColors();   // the chart's theme once (a theme change while loading: changeEvent)
    if (first) emit partialShown();
}

std::vector<uint64_t> OverviewPage::histogramCounts() const {
    std::vector<uint64_t> counts;
    for (QAbstractSeries* s : chart_view_->chart()->series())
        if (auto* bars = qobject_cast<QBarSeries*>(s))
            for (QBarSet* set : bars->barSets())
                for (int i = 0; i < set->count(); ++i) counts.push_back(uint64_t(set->at(i)));
    return counts;
}

} // namespace stallscope::gui
