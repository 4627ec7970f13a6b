#include "app/gui/compare/compare_window.h"

#include "analyzers/accounting/summary.h"
#include "app/gui/analysis_runner.h"
#include "app/gui/compare/compare_charts.h"
#include "app/gui/compare/compare_tables.h"
#include "app/gui/event_trace_view.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"
#include "app/gui/timeline_widget.h"

#include "analyzers/compare/compare_report.h"
#include "app/gui/chart_theme.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QShortcut>
#include <QSvgGenerator>
#include <QFileDialog>
#include <QSettings>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <algorithm>

namespace stallscope::gui {

namespace {
const char* const kSideName[2] = {"Before", "After"};

QLabel* titleLabel() {
    auto* l = new QLabel;
    QFont f = l->font();
    f.setBold(true);
    l->setFont(f);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}
} // namespace

// Summary: tables on the left, the two distributions on the right.
QWidget* CompareWindow::buildSummaryTab() {
    auto* ops_box = new QGroupBox(tr("Latency per operation (select a row for its charts and matched calls)"));
    (new QVBoxLayout(ops_box))->addWidget(operations_);
    auto* kinds_box = new QGroupBox(tr("Findings per kind"));
    (new QVBoxLayout(kinds_box))->addWidget(kinds_);
    auto* left = new QSplitter(Qt::Vertical);
    auto* predictions_box = new QGroupBox(tr("Each fix made: predicted from before's findings, measured after (medians)"));
    predictions_box->setObjectName(QStringLiteral("comparePredictions"));
    (new QVBoxLayout(predictions_box))->addWidget(predictions_);
    left->addWidget(ops_box);
    left->addWidget(kinds_box);
    left->addWidget(predictions_box);
    for (QChartView* v : {distribution_, histogram_}) {
        v->setRenderHint(QPainter::Antialiasing);
        v->setMinimumHeight(200);
    }
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(distribution_);
    charts->addWidget(histogram_);
    auto* summary = new QSplitter(Qt::Horizontal);
    summary->addWidget(left);
    summary->addWidget(charts);
    charts->setMinimumWidth(420);
    // Proportions: the tables get the room their columns need at 1360 px
    // (every header whole, the latency verdict last); the charts the rest.
    summary->setSizes({840, 520});

    return summary;
}

// Side by side: timelines on top, the matched call's traces below.
QWidget* CompareWindow::buildSideBySideTab() {
    auto* tl_row = new QSplitter(Qt::Horizontal);
    auto* tr_row = new QSplitter(Qt::Horizontal);
    for (int s = 0; s < 2; ++s) {
        hubs_[s] = new SelectionHub(this);
        timelines_[s] = new TimelineWidget(hubs_[s]);
        timeline_titles_[s] = titleLabel();
        auto* tl = new QWidget;
        auto* tll = new QVBoxLayout(tl);
        tll->setContentsMargins(0, 0, 0, 0);
        tll->addWidget(timeline_titles_[s]);
        tll->addWidget(timelines_[s]);
        tl_row->addWidget(tl);

        traces_[s] = new EventTraceView;
        traces_[s]->setFitWidth(true);   // half a window is narrower than a trace
        trace_titles_[s] = titleLabel();
        auto* trw = new QWidget;
        auto* trl = new QVBoxLayout(trw);
        trl->setContentsMargins(0, 0, 0, 0);
        trl->addWidget(trace_titles_[s]);
        trl->addWidget(traces_[s]);
        tr_row->addWidget(trw);
        // Double-clicking a call in a timeline shows it in that side's trace.
        connect(timelines_[s], &TimelineWidget::callActivated, this, [this, s](quint64 id) { showTrace(s, id); });
    }
    auto* pair_row = new QHBoxLayout;
    pair_row->addWidget(new QLabel(tr("Matched call:")));
    pair_row->addWidget(pairs_, 1);
    auto* bottom = new QWidget;
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    bl->addLayout(pair_row);
    bl->addWidget(tr_row, 1);
    auto* side = new QSplitter(Qt::Vertical);
    side->addWidget(tl_row);
    side->addWidget(bottom);
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 2);

    return side;
}

// The header (files and counts) with Export beside it; Esc and Ctrl+W close the window.
QHBoxLayout* CompareWindow::buildHeadRow() {
    auto* export_button = new QPushButton(tr("&Export…"));
    export_button->setToolTip(tr("Save this view as PNG or SVG, or the comparison report as text, Markdown or JSON"));
    connect(export_button, &QPushButton::clicked, this, &CompareWindow::exportDialog);
    auto* head_row = new QHBoxLayout;
    head_row->addWidget(header_, 1);
    head_row->addWidget(export_button, 0, Qt::AlignTop);
    // Esc and Ctrl+W close it, like a document window.
    // Each key once: QKeySequence::Close is Ctrl+W on Linux, and a key with
    // two shortcuts is ambiguous to Qt (neither fires).
    QList<QKeySequence> keys{QKeySequence(Qt::Key_Escape), QKeySequence(tr("Ctrl+W"))};
    for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Close))
        if (!keys.contains(k)) keys << k;
    for (const QKeySequence& k : keys) {
        auto* sc = new QShortcut(k, this);
        sc->setContext(Qt::WindowShortcut);
        connect(sc, &QShortcut::activated, this, &QWidget::close);
    }
    return head_row;
}

CompareWindow::CompareWindow(GuiBackend backend, QWidget* parent)
    : QWidget(parent), backend_(std::move(backend)), runner_(new AnalysisRunner(backend_.analyze, this)),
      header_(new QLabel), verdict_(new QLabel), tabs_(new QTabWidget), operations_(new QTableWidget),
      kinds_(new QTableWidget), predictions_(new QTableWidget), distribution_(new QChartView), histogram_(new QChartView), pairs_(new QComboBox) {
    setWindowTitle(tr("Compare"));   // Qt adds " — StallScope" (the application display name)
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    verdict_->setTextFormat(Qt::RichText);
    verdict_->setWordWrap(true);
    answer_ = new QLabel;
    answer_->setObjectName(QStringLiteral("compareAnswer"));
    answer_->setWordWrap(true);
    answer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    {
        QFont f = answer_->font();
        f.setBold(true);
        f.setPointSizeF(f.pointSizeF() * 1.25);
        answer_->setFont(f);
    }

    tabs_->addTab(buildSummaryTab(), tr("Summary"));
    tabs_->addTab(buildSideBySideTab(), tr("Side by side"));
    QHBoxLayout* head_row = buildHeadRow();
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(answer_);
    lay->addLayout(head_row);
    lay->addWidget(verdict_);
    lay->addWidget(tabs_, 1);

    connect(operations_, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        if (row >= 0 && row != group_row_) selectGroup(row);
    });
    connect(pairs_, &QComboBox::currentIndexChanged, this, [this](int i) { if (i >= 0) selectPair(i); });
    runner_->setSpillAfterCalls(SIZE_MAX);   // compare_results reads the calls in memory
    connect(runner_, &AnalysisRunner::finished, this, &CompareWindow::onRunnerFinished);
    resize(1400, 900);
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::load(const QString& before, const QString& after) {
    paths_[0] = before;
    paths_[1] = after;
    results_[0].reset();
    results_[1].reset();
    error_.clear();
    header_->setText(tr("Analysing %1 and %2 …").arg(QFileInfo(before).fileName(), QFileInfo(after).fileName()));
    answer_->clear();   // nothing of the previous pair left behind
    loading_ = 0;
    runner_->start(before);
}

void CompareWindow::onRunnerFinished(const LoadOutcome& o) {
    if (loading_ < 0) return;
    if (!o.ok || !o.result) {
        error_ = tr("%1 capture %2 could not be analysed: %3").arg(tr(kSideName[loading_]), o.path, o.error);
        header_->setText(error_);
        loading_ = -1;
        emit loaded(false);
        return;
    }
    results_[loading_] = o.result;
    if (loading_ == 0) {
        loading_ = 1;
        runner_->start(paths_[1]);
        return;
    }
    loading_ = -1;
    setResults(results_[0], results_[1]);
    emit loaded(true);
}

void CompareWindow::setResults(ResultPtr before, ResultPtr after) {
    results_[0] = std::move(before);
    results_[1] = std::move(after);
    if (!results_[0] || !results_[1]) return;
    comparison_ = compare_results(*results_[0], *results_[1]);
    const bool dark = isDarkPalette();
    auto side_text = [this](const char* name, const CaptureSideInfo& s) {
        return tr("%1: %2 — %3 calls on %4 connection%5").arg(tr(name), QString::fromStdString(s.file))
            .arg(s.calls).arg(s.connections).arg(s.connections == 1 ? QString() : QStringLiteral("s"));
    };
    header_->setText(side_text(kSideName[0], comparison_.before) + QStringLiteral("      ") +
                     side_text(kSideName[1], comparison_.after));
    answer_->setText(QString::fromStdString(compare_verdict_sentence(comparison_)));
    verdict_->setText(verdictSummary(comparison_));
    fillOperationsTable(operations_, comparison_, dark);
    fillKindsTable(kinds_, comparison_, dark);
    fillPredictionsTable(predictions_, comparison_);
    predictions_->parentWidget()->setVisible(!comparison_.predictions.empty());
    for (int s = 0; s < 2; ++s) {
        timelines_[s]->setMinimumSpan(0);
        hubs_[s]->setResult(results_[s]);
        timeline_titles_[s]->setText(tr("%1: %2").arg(tr(kSideName[s]), QFileInfo(QString::fromStdString(results_[s]->capture.file)).fileName()));
    }
    // One time scale for both: a 200 ms capture beside a 1 s one looks shorter.
    const double span = std::max(timelines_[0]->axis().dataSpan(), timelines_[1]->axis().dataSpan());
    for (int s = 0; s < 2; ++s) {
        timelines_[s]->setMinimumSpan(span);
        timeline_titles_[s]->setText(timeline_titles_[s]->text() + tr(" — time axis 0 to %1 s, shared").arg(span / 1e9, 0, 'g', 3));
    }
    group_row_ = -1;
    selectGroup(comparison_.groups.size() == 1 ? 1 : 0);  // one operation: show it, not "all calls"
}

const GroupComparison* CompareWindow::group() const {
    if (group_row_ == 0) return &comparison_.overall;
    if (group_row_ > 0 && size_t(group_row_) <= comparison_.groups.size()) return &comparison_.groups[size_t(group_row_) - 1];
    return nullptr;
}

void CompareWindow::selectGroup(int row) {
    if (row < 0 || size_t(row) > comparison_.groups.size()) return;
    group_row_ = row;
    {
        QSignalBlocker block(operations_);
        operations_->selectRow(row);
    }
    const GroupComparison* g = group();
    const bool dark = isDarkPalette();
    QChart* old_d = distribution_->chart();
    QChart* old_h = histogram_->chart();
    distribution_->setChart(makeDistributionChart(*g, dark));
    histogram_->setChart(makeHistogramChart(*g, dark));
    for (QChartView* v : {distribution_, histogram_}) {
        themeChart(v->chart(), QColor());
        applyCaptureColors(v->chart(), dark);   // the theme repainted the series
    }
    delete old_d;
    delete old_h;

    // The pairs, and a typical one first: the before call at the median of
    // the before latencies, so the trace shows what most calls looked like.
    QSignalBlocker block(pairs_);
    pairs_->clear();
    for (size_t i = 0; i < g->pairs.size(); ++i) {
        const auto& [b, a] = g->pairs[i];
        auto cb = hubs_[0]->call(b);
        auto ca = hubs_[1]->call(a);
        pairs_->addItem(tr("%1: call %2 (%3 ms)  ↔  call %4 (%5 ms)")
                            .arg(QString::fromStdString(cb ? operation_key(*cb) : std::string("?")))
                            .arg(b)
                            .arg(cb ? cb->latency_ms : 0, 0, 'f', 2)
                            .arg(a)
                            .arg(ca ? ca->latency_ms : 0, 0, 'f', 2));
    }
    if (g->pairs.empty()) {
        shown_pair_ = {0, 0};
        for (int s = 0; s < 2; ++s) {
            traces_[s]->canvas()->setTrace(EventTraceLayout{});
            trace_titles_[s]->setText(tr("%1: no matched call for %2").arg(tr(kSideName[s]), QString::fromStdString(g->label)));
        }
        return;
    }
    std::vector<std::pair<double, int>> by_latency;
    for (size_t i = 0; i < g->pairs.size(); ++i) {
        auto cb = hubs_[0]->call(g->pairs[i].first);
        by_latency.emplace_back(cb ? cb->latency_ms : 0, int(i));
    }
    std::sort(by_latency.begin(), by_latency.end());
    int typical = by_latency[by_latency.size() / 2].second;
    pairs_->setCurrentIndex(typical);
    selectPair(typical);
}

void CompareWindow::selectPair(int index) {
    const GroupComparison* g = group();
    if (!g || index < 0 || size_t(index) >= g->pairs.size()) return;
    shown_pair_ = g->pairs[size_t(index)];
    if (pairs_->currentIndex() != index) {
        QSignalBlocker block(pairs_);
        pairs_->setCurrentIndex(index);
    }
    showTrace(0, shown_pair_.first);
    showTrace(1, shown_pair_.second);
}

void CompareWindow::showTrace(int side, uint64_t call_id) {
    if (!results_[side]) return;
    hubs_[side]->selectCall(call_id);
    EventTraceLayout layout;
    std::string error;
    bool ok = backend_.call_trace && backend_.call_trace(*results_[side], call_id, layout, error);
    auto c = hubs_[side]->call(call_id);
    QString what = c ? tr("call %1, %2, %3 ms").arg(call_id).arg(QString::fromStdString(operation_key(*c))).arg(c->latency_ms, 0, 'f', 2)
                     : tr("call %1").arg(call_id);
    trace_titles_[side]->setText(tr("%1: %2").arg(tr(kSideName[side]), what) +
                                 (ok ? QString() : tr(" — no trace: %1").arg(QString::fromStdString(error))));
    traces_[side]->canvas()->setTrace(ok ? std::move(layout) : EventTraceLayout{});
    traces_[side]->fitWidth();
}

bool CompareWindow::exportTo(const QString& path, QString* error) {
    const QString fmt = QFileInfo(path).suffix().toLower();
    if (fmt == QLatin1String("txt") || fmt == QLatin1String("json") || fmt == QLatin1String("md")) {
        if (!results_[0] || !results_[1]) { *error = tr("Nothing compared yet."); return false; }
        const std::string text = fmt == QLatin1String("json") ? compare_json(comparison_)
                                 : fmt == QLatin1String("md") ? compare_markdown(comparison_)
                                                              : compare_text(comparison_);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.data(), qint64(text.size())) != qint64(text.size())) {
            *error = tr("Cannot write %1: %2").arg(path, f.errorString());
            return false;
        }
        return true;
    }
    QWidget* view = tabs_->currentWidget();
    if (fmt == QLatin1String("png")) {
        if (view->grab().save(path, "PNG")) return true;
        *error = tr("Cannot write %1").arg(path);
        return false;
    }
    if (fmt == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(view->size());
        gen.setViewBox(view->rect());
        gen.setTitle(windowTitle());
        QPainter p;
        if (!p.begin(&gen)) { *error = tr("Cannot write %1").arg(path); return false; }
        view->render(&p);
        p.end();
        return QFileInfo(path).size() > 0;
    }
    *error = tr("Unknown format “%1”: use .png or .svg (this view), .txt, .md or .json (the report)").arg(fmt);
    return false;
}

void CompareWindow::exportDialog() {
    QSettings s;
    const QString dir = s.value(QStringLiteral("export/dir")).toString();
    const QString name = tabs_->currentIndex() == 0 ? QStringLiteral("compare-summary.png") : QStringLiteral("compare-side-by-side.png");
    QString path = QFileDialog::getSaveFileName(this, tr("Export comparison"), dir + QLatin1Char('/') + name,
                                                tr("This view as PNG (*.png);;This view as SVG (*.svg);;Report as text (*.txt);;"
                                                   "Report as Markdown, for a pull request (*.md);;Report as JSON (*.json)"));
    if (path.isEmpty()) return;
    s.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

CompareWindow* openCompareDialog(QWidget* parent, const GuiBackend& backend) {
    QSettings settings;
    const QString filter = QObject::tr("Captures (*.pcap *.pcapng *.cap *.gz);;All files (*)");
    QString dir = settings.value(QStringLiteral("compare/dir"), settings.value(QStringLiteral("open/dir"))).toString();
    const QString before = QFileDialog::getOpenFileName(parent, QObject::tr("Compare: BEFORE capture (as it was)"), dir, filter);
    if (before.isEmpty()) return nullptr;
    const QString after = QFileDialog::getOpenFileName(parent, QObject::tr("Compare: AFTER capture (with the fix)"),
                                                       QFileInfo(before).absolutePath(), filter);
    if (after.isEmpty()) return nullptr;
    settings.setValue(QStringLiteral("compare/dir"), QFileInfo(after).absolutePath());
    auto* w = new CompareWindow(backend);
    w->setAttribute(Qt::WA_DeleteOnClose);
    w->show();
    w->load(before, after);
    return w;
}

} // namespace stallscope::gui
