#pragma once
// The waterfall: one row per call, its phases as bars on one shared time
// axis, stalls laid over in their own colour. Wheel zooms at the mouse
// (Ctrl+wheel too), drag pans, Shift+wheel or the scroll bar moves through
// rows, hovering shows phase and duration, clicking selects the call.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/time_axis.h"
#include "app/gui/timeline_rows.h"

#include <QAbstractScrollArea>
#include <unordered_set>

namespace stallscope::gui {

class SelectionHub;

class TimelineWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit TimelineWidget(SelectionHub* hub, QWidget* parent = nullptr);

    // The time axis covers at least this span from the first call (ns), so two
    // timelines shown side by side share one scale.
    void setMinimumSpan(double span_ns);
    // Show only these calls (empty set + all=true: every call).
    void setVisibleCalls(const std::unordered_set<uint64_t>& ids, bool all);
    const TimelineRows& rows() const { return rows_; }
    const TimeAxis& axis() const { return axis_; }
    TimeAxis& axis() { return axis_; }

    // Paint every row (not just the visible ones) into a device of
    // exportSize(): used for the Qt fallback of the timeline export.
    QSize exportSize(int width) const;
    void renderAll(QPainter& p, int width) const;

    static constexpr int kRowHeight = 22;
    static constexpr int kHeaderHeight = 28;
    static constexpr int kLabelWidth = 190;
    static constexpr int kLegendHeight = 22;

signals:
    void callActivated(quint64 id);   // double-click on a row

public slots:
    void zoomIn();
    void zoomOut();
    void fitAll();

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool viewportEvent(QEvent*) override;

private:
    double min_span_ns_ = 0;
    void onResult(const ResultPtr& r);
    void onCallSelected(quint64 id);
    void rebuildRows();
    void updateScrollBars();
    void paintRows(QPainter& p, const TimeAxis& axis, int first_row, int last_row, int y0, int width, int height) const;
    QString tooltipAt(QPoint pos) const;
    void paintLegend(QPainter& p, const QRect& area) const;

    SelectionHub* hub_;
    ResultPtr result_;
    TimelineRows rows_;
    std::unordered_set<uint64_t> only_;
    bool all_ = true;
    TimeAxis axis_;
    bool dragging_ = false;
    QPoint drag_last_;
    QPoint press_pos_;
};

} // namespace stallscope::gui
