#pragma once
// The first thing a user sees after opening a capture: how many calls, how
// slow, how much time each kind of stall cost, a latency histogram and the
// findings ranked by time lost.
#include "app/gui/analysis_snapshot.h"

#include <QWidget>

class QChartView;
class QChart;
class QLabel;
class QTableWidget;
class QTreeView;

namespace stallscope::gui {

class FindingsTreeModel;
class SelectionHub;

class OverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(SelectionHub* hub, QWidget* parent = nullptr);

    // For tests: the numbers as shown.
    QString statText(const QString& key) const;
    QTableWidget* lossTable() const { return losses_; }
    QTreeView* findingsTree() const { return findings_; }
    QChart* chart() const;
    void refreshColors();

private:
    void onResult(const ResultPtr& r);
    void setStat(const QString& key, const QString& value);
    void fillStats(const LoadedResult& r);
    void fillTimeStats(const SummaryGroup& all);
    void fillLossTable(const SummaryGroup& all);
    void fillHistogram(const LoadedResult& r);

    SelectionHub* hub_;
    QHash<QString, QLabel*> stats_;
    QTableWidget* losses_;
    QTreeView* findings_;
    FindingsTreeModel* findings_model_;
    QChartView* chart_view_;
};

} // namespace stallscope::gui
