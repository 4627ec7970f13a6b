#include "app/gui/overview_page.h"

#include "analyzers/result/finding_kinds.h"
#include "app/gui/capture_point_text.h"
#include "app/gui/display_text.h"
#include "app/gui/findings_tree_model.h"
#include "app/gui/latency_histogram.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"
#include "app/gui/chart_theme.h"

#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>

namespace stallscope::gui {

static const char* const kStatKeys[][2] = {
    {"file", "File"},       {"packets", "Packets"},   {"calls", "Calls"},
    {"connections", "Connections"}, {"captured", "Captured"}, {"view", "Latencies"}, {"median", "Latency median"}, {"p90", "Latency p90"},
    {"max", "Latency max"}, {"lost", "Time lost to stalls"}, {"setup", "Lost to connection setup"},
    {"rest", "The rest of the time"}, {"predicted", "Median without stalls"}, {"warnings", "Warnings"},
};

OverviewPage::OverviewPage(SelectionHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), losses_(new QTableWidget(0, 4)), findings_(new QTreeView),
      findings_model_(new FindingsTreeModel(this)), chart_view_(new QChartView), banner_(new QLabel),
      stats_box_(new QGroupBox), loss_box_(new QGroupBox), findings_box_(new QGroupBox), partial_timer_(new QTimer(this)) {
    auto* stats_box = stats_box_;
    auto* form = new QFormLayout(stats_box);
    for (const auto& kv : kStatKeys) {
        auto* value = new QLabel(QStringLiteral("—"));
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        QFont f = value->font();
        f.setBold(true);
        value->setFont(f);
        stats_.insert(QString::fromLatin1(kv[0]), value);
        form->addRow(tr(kv[1]) + QLatin1Char(':'), value);
    }

    losses_->setHorizontalHeaderLabels({tr("Kind"), tr("Findings"), tr("Calls"), tr("Time")});
    losses_->verticalHeader()->hide();
    losses_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    losses_->setSelectionMode(QAbstractItemView::NoSelection);
    losses_->horizontalHeader()->setStretchLastSection(true);
    auto* loss_box = loss_box_;
    auto* loss_lay = new QVBoxLayout(loss_box);
    loss_lay->addWidget(losses_);

    auto* chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart_view_->setChart(chart);
    chart_view_->setRenderHint(QPainter::Antialiasing);
    chart_view_->setMinimumHeight(220);

    findings_->setModel(findings_model_);
    findings_->setSelectionBehavior(QAbstractItemView::SelectRows);
    findings_->setSelectionMode(QAbstractItemView::SingleSelection);
    findings_->setUniformRowHeights(true);   // 100k children stay fast
    findings_->header()->setStretchLastSection(true);
    findings_->setAlternatingRowColors(true);
    auto* findings_box = findings_box_;
    auto* fl = new QVBoxLayout(findings_box);
    fl->addWidget(findings_);

    auto* top = new QHBoxLayout;
    // Its width: the table's (every column whole, OverviewPage::onResult).
    // The top row stays compact so the ranked findings get the room.
    // (The Capture rows take the height they need: their text is never clipped.)
    for (QWidget* w : {static_cast<QWidget*>(loss_box), static_cast<QWidget*>(chart_view_)}) w->setMaximumHeight(250);
    top->addWidget(stats_box, 0);
    top->addWidget(loss_box, 0);   // its columns' width; the rest to the histogram
    top->addWidget(chart_view_, 1);
    // A load's figures so far say so above them (overview_so_far.cpp).
    banner_->setObjectName(QStringLiteral("partialBanner"));
    banner_->setWordWrap(true);
    banner_->setMargin(6);
    banner_->setStyleSheet(QStringLiteral("QLabel#partialBanner { background: #dbe9f7; color: #123a5e; border: 1px solid #9dbfe0; }"));
    banner_->hide();
    partial_timer_->setInterval(250);
    connect(partial_timer_, &QTimer::timeout, this, &OverviewPage::refreshPartial);
    setPartialTitles({});
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(banner_, 0);
    lay->addLayout(top, 0);
    lay->addWidget(findings_box, 1);
    stats_box->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);

    connect(hub_, &SelectionHub::resultChanged, this, &OverviewPage::onResult);
    connect(findings_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid()) hub_->selectFinding(cur.data(FindingsTreeModel::FindingIndexRole).toInt());
    });
    onResult(hub_->result());
}

QChart* OverviewPage::chart() const { return chart_view_->chart(); }

QString OverviewPage::statText(const QString& key) const {
    auto* l = stats_.value(key);
    return l ? l->text() : QString();
}

void OverviewPage::setStat(const QString& key, const QString& value) {
    if (auto* l = stats_.value(key)) l->setText(value);
}

void OverviewPage::refreshColors() { themeChart(chart_view_->chart(), phaseColor(PhaseKind::RequestHeaders, isDarkPalette())); }

// The chart keeps its one series and two axes (made once, fillHistogram):
// removing and deleting them at each refresh of a load's figures left
// stale axis labels drawn under the new ones.
void OverviewPage::clearFigures() {
    QChart* chart = chart_view_->chart();
    for (QAbstractSeries* s : chart->series())
        if (auto* bars = qobject_cast<QBarSeries*>(s))
            for (QBarSet* set : bars->barSets()) set->remove(0, set->count());
    for (QAbstractAxis* a : chart->axes()) {
        if (auto* x = qobject_cast<QBarCategoryAxis*>(a)) x->clear();
        a->hide();
    }
    losses_->setRowCount(0);
}

void OverviewPage::onResult(const ResultPtr& r) {
    findings_model_->setResult(r);
    clearFigures();
    if (!r) {
        for (auto* l : stats_) l->setText(QStringLiteral("—"));
        return;
    }
    fillStats(*r);
    fillLossTable(r->summary.overall);
    std::vector<double> lat;
    lat.reserve(r->callCount());
    for (const CallKey& c : r->callKeys())
        if (c.complete()) lat.push_back(c.latency_ms);
    fillHistogram(logLatencyHistogram(lat, 4));
    refreshColors();
    for (int c = 0; c < FindingsTreeModel::Fix; ++c) findings_->resizeColumnToContents(c);
}

// The Capture box: the file, counts, where it was captured, and the times.
void OverviewPage::fillStats(const LoadedResult& r) {
    setStat("file", QFileInfo(QString::fromStdString(r.capture.file)).fileName() + QStringLiteral(" (") +
                        QString::fromStdString(r.capture.format) +
                        (r.capture.files.size() > 1 ? tr(", file set of %1 files").arg(r.capture.files.size()) : QString()) +
                        QLatin1Char(')'));
    setStat("packets", QString::number(r.capture.packets));
    setStat("calls", QString::number(r.callCount()));
    setStat("connections", QString::number(r.connectionCount()));
    {   // where the capture was taken and whose view the latencies are, as the report says
        const CapturePointText cp = capturePointText(summarize_capture_point(r));
        // Its parenthesis on a line of its own: the Capture column stays
        // narrow, so the histogram beside it has room for its bin labels.
        QString where = cp.where;
        if (const qsizetype at = where.indexOf(QStringLiteral(" (")); at > 0) where[at] = QLatin1Char('\n');
        setStat("captured", where);
        setStat("view", cp.view);
        if (QLabel* l = stats_.value(QStringLiteral("captured"))) l->setToolTip(cp.evidence);
        if (QLabel* l = stats_.value(QStringLiteral("view"))) l->setToolTip(tr("Latencies are %1").arg(cp.view_long));
    }
    fillTimeStats(r.summary.overall);
    setStat("warnings", QString::number(r.capture.warnings.size()) + (r.capture.truncated ? tr(" (file truncated)") : QString()));
}

// Latencies and the call ledger's partition: stalls (time lost) + server
// processing + transfer = all call time; connection setup is the client's
// time before the first request byte, beside it (as in the CLI report).
void OverviewPage::fillTimeStats(const SummaryGroup& all) {
    setStat("median", formatMs(all.latency.median_ms));
    setStat("p90", formatMs(all.latency.p90_ms));
    setStat("max", formatMs(all.latency.max_ms));
    const double total = all.latency.total_ms;
    auto share = [total](double ms) { return total > 0 ? QStringLiteral(" (%1 %)").arg(100 * ms / total, 0, 'f', 1) : QString(); };
    setStat("lost", formatMs(all.avoidable_ms) + (total > 0 ? QStringLiteral(" (%1 % of all call time)").arg(100 * all.avoidable_ms / total, 0, 'f', 1) : QString()));
    double setup_lost = 0;
    for (const KindLoss& k : all.losses)
        if (kind_time(k.kind) == KindTime::Setup) setup_lost += k.lost_ms;
    setStat("setup", setup_lost > 0 ? formatMs(setup_lost) : tr("none"));
    setStat("rest", tr("server %1 · transfer %2").arg(formatMs(all.server_ms), formatMs(all.transfer_ms)));
    if (QLabel* l = stats_.value(QStringLiteral("rest")))
        l->setToolTip(tr("Not lost: server processing %1%2, request and response transfer %3%4 of all call time")
                          .arg(formatMs(all.server_ms), share(all.server_ms), formatMs(all.transfer_ms), share(all.transfer_ms)));
    if (QLabel* l = stats_.value(QStringLiteral("setup")))
        l->setToolTip(tr("The client's time before the first request byte (TCP handshakes of calls that opened a connection)"));
    setStat("predicted", formatMs(all.predicted_median_ms));
}

// Time per kind; time that is not lost (server, transfer) in a neutral colour.
void OverviewPage::fillLossTable(const SummaryGroup& all) {
    losses_->setRowCount(int(all.losses.size()));
    for (int i = 0; i < int(all.losses.size()); ++i) {
        const KindLoss& k = all.losses[size_t(i)];
        auto item = [](const QString& s, bool right) {
            auto* it = new QTableWidgetItem(s);
            if (right) it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            return it;
        };
        losses_->setItem(i, 0, item(findingKindLabel(k.kind), false));
        losses_->item(i, 0)->setData(Qt::UserRole, QString::fromStdString(k.kind));   // for tests: the kind and its ms
        losses_->setItem(i, 1, item(QString::number(k.findings), true));
        losses_->setItem(i, 2, item(QString::number(k.calls), true));
        auto* time = item(QStringLiteral("%1 (%2 %)").arg(kindTimeText(k.kind, k.lost_ms)).arg(100 * k.share, 0, 'f', 1), true);
        time->setData(Qt::UserRole, k.lost_ms);
        if (!is_stall_kind(k.kind)) time->setForeground(palette().color(QPalette::PlaceholderText));   // not lost: neutral
        losses_->setItem(i, 3, time);
    }
    // Every column whole, names and times unelided (issue 27): the table
    // asks for the width of its columns and the histogram beside it gives way.
    losses_->resizeColumnsToContents();
    int need = 2 * losses_->frameWidth();   // a few rows: no room kept for a scroll bar
    for (int c = 0; c < losses_->columnCount(); ++c) need += losses_->horizontalHeader()->sectionSize(c);
    losses_->setMinimumWidth(need);
}

// Latency histogram in log bins (a capture's fast calls and its stalls
// differ by decades), ticks at the decade edges, a round count axis.
void OverviewPage::fillHistogram(const std::vector<HistogramBin>& bins) {
    QChart* chart = chart_view_->chart();
    if (chart->series().isEmpty()) {   // the first time: the series and its axes
        auto* series = new QBarSeries;
        series->setBarWidth(0.95);
        series->append(new QBarSet(tr("calls")));
        chart->addSeries(series);
        auto* x = new QBarCategoryAxis;
        x->setTitleText(tr("ms (log bins)"));   // short: the chart gives way to the table beside it
        auto* y = new QValueAxis;
        y->setLabelFormat(QStringLiteral("%d"));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        chart_view_->setToolTip(tr("Calls per latency bin; each tick is where its bin starts (ms, log bins)"));
    }
    auto* series = static_cast<QBarSeries*>(chart->series().front());
    auto* x = static_cast<QBarCategoryAxis*>(chart->axes(Qt::Horizontal).front());
    auto* y = static_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
    QList<qreal> counts;
    QStringList cats;
    uint64_t peak = 0;
    const std::vector<std::string> ticks = logHistogramTickLabels(bins, 4);
    for (size_t i = 0; i < bins.size(); ++i) {
        counts << double(bins[i].count);
        peak = std::max(peak, bins[i].count);
        // Categories must differ: an unlabelled bin is i+1 zero-width spaces.
        cats << (ticks[i].empty() ? QString(qsizetype(i + 1), QChar(0x200B)) : QString::fromStdString(ticks[i]));
    }
    QBarSet* set = series->barSets().front();
    set->remove(0, set->count());
    x->clear();
    x->append(cats);
    set->append(counts);
    const CountAxis axis = countAxis(peak);  // round ticks at a 1-2-5 step of whole calls
    y->setRange(0, double(axis.top));
    y->setTickCount(axis.ticks());
    x->show();
    y->show();
}

} // namespace stallscope::gui
