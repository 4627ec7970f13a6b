#pragma once
// "Over time", like Wireshark's I/O graph: every call's latency against
// capture time on a log scale, and per interval the stalls that began, the
// time they cost and the calls per second. Wheel zooms at the mouse, drag
// pans, hovering names the call, clicking selects it, double-clicking opens
// it (double-click elsewhere fits): zoom_gestures.h, as the timeline.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/over_time_series.h"
#include "app/gui/time_axis.h"

#include <QColor>
#include <QWidget>
#include <optional>

class QPainter;

namespace stallscope::gui {

class SelectionHub;

class OverTimeView : public QWidget {
    Q_OBJECT
public:
    explicit OverTimeView(SelectionHub* hub, QWidget* parent = nullptr);

    const OverTimeSeries& series() const { return series_; }
    const TimeAxis& axis() const { return axis_; }
    // The call whose dot is within a few pixels of pos, if any.
    std::optional<uint64_t> callAt(QPointF pos) const;
    // Where a call's dot is drawn (for tests); nullopt when not in view.
    std::optional<QPointF> pointOf(uint64_t call_id) const;
    // The interval the bands use for the current zoom, in ns.
    double intervalNs() const;
    QRectF scatterRect() const;

signals:
    void callActivated(quint64 id);

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

private:
    // paintEvent's steps, with the palette's colours.
    struct PaintColours {
        QColor text, muted, grid, normal, stalled;
        bool dark;
    };
    void paintScatter(QPainter& p, const PaintColours& c) const;
    double paintBands(QPainter& p, const PaintColours& c) const;   // returns the time axis' y
    void paintTimeAxis(QPainter& p, const PaintColours& c, double axis_y) const;
    void onResult(const ResultPtr& r);
    double yOf(double ms) const;
    void updateViewport();

    SelectionHub* hub_;
    OverTimeSeries series_;
    TimeAxis axis_;
    int lo_decade_ = -1, hi_decade_ = 3;
    QPointF press_pos_, last_pos_;
    bool dragging_ = false;
};

} // namespace stallscope::gui
