#pragma once
// The Compare view: two captures of the same workload, before and after a
// fix. Summary tab: verdict line, latency per operation, findings per kind,
// and both latency distributions of the selected operation. Side-by-side
// tab: both timelines, and the event traces of a matched call before and
// after. Reads AnalysisResult snapshots and the core's Comparison only.
#include "analyzers/compare/compare.h"
#include "app/gui/analysis_snapshot.h"
#include "app/gui/gui_backend.h"

#include <QWidget>

class QChartView;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QTabWidget;
class QTableWidget;

namespace stallscope::gui {

class AnalysisRunner;
class EventTraceView;
class SelectionHub;
class TimelineWidget;

class CompareWindow : public QWidget {
    Q_OBJECT
public:
    explicit CompareWindow(GuiBackend backend, QWidget* parent = nullptr);
    ~CompareWindow() override;

    // Analyses both captures on worker threads (one after the other), then
    // shows the comparison; loaded(ok) tells the outcome.
    void load(const QString& before, const QString& after);
    // Shows two finished analyses (tests, screenshots).
    void setResults(ResultPtr before, ResultPtr after);

    const Comparison& comparison() const { return comparison_; }
    // Selects an operation row: 0 = all calls, i = comparison().groups[i-1].
    void selectGroup(int row);
    int selectedGroup() const { return group_row_; }
    // Shows matched pair `index` of the selected group in the traces.
    void selectPair(int index);
    std::pair<uint64_t, uint64_t> shownPair() const { return shown_pair_; }
    QString lastError() const { return error_; }
    // .png / .svg: the current tab as shown; .txt / .json: the comparison report.
    bool exportTo(const QString& path, QString* error);

    // Parts, for tests and screenshots.
    QTabWidget* tabs() const { return tabs_; }
    QTableWidget* operationsTable() const { return operations_; }
    QTableWidget* kindsTable() const { return kinds_; }
    QTableWidget* predictionsTable() const { return predictions_; }
    TimelineWidget* timeline(int side) const { return timelines_[side]; }
    EventTraceView* trace(int side) const { return traces_[side]; }

signals:
    void loaded(bool ok);

private:
    // The constructor's parts.
    QWidget* buildSummaryTab();
    QWidget* buildSideBySideTab();
    QHBoxLayout* buildHeadRow();
    void exportDialog();
    void onRunnerFinished(const LoadOutcome& o);
    const GroupComparison* group() const;
    void showTrace(int side, uint64_t call_id);

    GuiBackend backend_;
    AnalysisRunner* runner_;
    QString paths_[2];
    int loading_ = -1;                 // which side the runner is on, -1 idle
    ResultPtr results_[2];
    Comparison comparison_;
    int group_row_ = 0;
    std::pair<uint64_t, uint64_t> shown_pair_{0, 0};
    QString error_;

    QLabel* header_;
    QLabel* verdict_;
    QLabel* answer_;   // the verdict in one sentence, first and always visible
    QTabWidget* tabs_;
    QTableWidget* operations_;
    QTableWidget* kinds_;
    QTableWidget* predictions_;
    QChartView* distribution_;
    QChartView* histogram_;
    SelectionHub* hubs_[2];
    TimelineWidget* timelines_[2];
    QLabel* timeline_titles_[2];
    QComboBox* pairs_;
    QLabel* trace_titles_[2];
    EventTraceView* traces_[2];
};

// File > Compare Captures...: asks for the BEFORE and the AFTER capture and
// opens a CompareWindow (its own top-level window, deleted on close).
// Returns it, or nullptr when the user cancelled.
CompareWindow* openCompareDialog(QWidget* parent, const GuiBackend& backend);

} // namespace stallscope::gui
