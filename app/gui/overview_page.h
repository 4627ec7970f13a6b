#pragma once
// The first thing a user sees after opening a capture: how many calls, how
// slow, how much time each kind of stall cost, a latency histogram and the
// findings ranked by time lost. While a capture loads, the same figures for
// the calls finished so far, marked as such (overview_so_far.cpp).
#include "analyzers/pipeline/analyze_capture.h"
#include "app/gui/analysis_snapshot.h"
#include "app/gui/latency_histogram.h"

#include <QWidget>
#include <memory>

class QChartView;
class QChart;
class QGroupBox;
class QLabel;
class QTimer;
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

    // While a capture loads: the figures of the calls finished so far, read
    // from `counters` every 250 ms, marked "so far · N %" (the banner and the
    // box titles), until stopPartial(). The page's result is not touched.
    void startPartial(const QString& file_name, std::shared_ptr<const LoadCounters> counters);
    void setLoadProgress(double fraction, quint64 packets);
    // The load ended: `restore` shows the page's result again (cancelled or
    // failed); otherwise the new result comes by SelectionHub::resultChanged.
    void stopPartial(bool restore);
    bool showsPartial() const { return partial_shown_; }
    QLabel* partialBanner() const { return banner_; }
    // For tests: the latency histogram's bars as shown (calls per bin).
    std::vector<uint64_t> histogramCounts() const;

signals:
    void partialShown();   // the first figures so far are on the page

private:
    void refreshPartial();
    void setPartialTitles(const QString& so_far);   // "" : the result's titles
    void onResult(const ResultPtr& r);
    void clearFigures();   // the histogram and the time per kind
    void setStat(const QString& key, const QString& value);
    void fillStats(const LoadedResult& r);
    void fillTimeStats(const SummaryGroup& all);
    void fillLossTable(const SummaryGroup& all);
    void fillHistogram(const std::vector<HistogramBin>& bins);

    SelectionHub* hub_;
    QHash<QString, QLabel*> stats_;
    QTableWidget* losses_;
    QTreeView* findings_;
    FindingsTreeModel* findings_model_;
    QChartView* chart_view_;
    QLabel* banner_;
    QGroupBox *stats_box_, *loss_box_, *findings_box_;
    // A load's figures so far (null: none shown)
    QTimer* partial_timer_;
    std::shared_ptr<const LoadCounters> counters_;
    QString loading_name_;
    double fraction_ = -1;
    quint64 packets_ = 0;
    bool partial_shown_ = false;
};

} // namespace stallscope::gui
