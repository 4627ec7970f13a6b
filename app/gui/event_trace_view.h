#pragma once
// The event-trace diagram on screen: a scrollable, zoomable canvas that
// draws an EventTraceLayout, and a panel around it that follows the
// selection (call, or its whole connection) and highlights evidence frames.
#include "analyzers/diagram/event_trace_layout.h"
#include "app/gui/gui_backend.h"

#include <QScrollArea>
#include <QWidget>
#include <optional>
#include <vector>

class QCheckBox;
class QLabel;

namespace stallscope::gui {

class SelectionHub;

// Where a call begins in a whole-connection trace: a line across the lanes
// just above its first request segment, labelled with the call.
struct CallMark {
    double y = 0;   // layout pixels
    QString label;
};

class EventTraceCanvas : public QWidget {
    Q_OBJECT
public:
    explicit EventTraceCanvas(QWidget* parent = nullptr);
    void setTrace(EventTraceLayout layout, std::vector<CallMark> marks = {});
    const std::vector<CallMark>& callMarks() const { return marks_; }
    const EventTraceLayout& trace() const { return layout_; }
    void setHighlightedFrame(uint64_t frame);
    uint64_t highlightedFrame() const { return highlighted_; }
    void setZoom(double z);
    double zoom() const { return zoom_; }
    // Where an arrow is drawn, in widget pixels (for scrolling to it).
    std::optional<QRectF> arrowRect(uint64_t frame) const;
    QSize sizeHint() const override;

signals:
    void arrowClicked(quint64 frame);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    bool event(QEvent*) override;   // tooltips

private:
    void updateSize();
    EventTraceLayout layout_;
    std::vector<CallMark> marks_;
    uint64_t highlighted_ = 0;
    double zoom_ = 1.0;
};

class EventTraceView : public QScrollArea {
    Q_OBJECT
public:
    explicit EventTraceView(QWidget* parent = nullptr);
    EventTraceCanvas* canvas() const { return canvas_; }
    // Highlights the arrow of frame and scrolls it into view; false if absent.
    bool highlightFrame(uint64_t frame);
    // Keep the whole width in view (zoom <= 1), also after resizes: for
    // narrow places like the Compare window's two traces.
    void setFitWidth(bool on);
    void fitWidth();
    // Fit to window (the default, kept after resizes and new traces): as
    // much of the trace as the window holds at a zoom of 75 % to 100 %, so
    // labels stay readable; the rest scrolls. Zooming by hand leaves it.
    static constexpr double kFitMinZoom = 0.75;
    void setFitWindow(bool on);
    bool fitsWindow() const { return fit_window_; }
    void zoomIn();
    void zoomOut();
    void zoomTo(double z);   // leaves fit-to-window

signals:
    void zoomChanged(double zoom, bool fit);

protected:
    void wheelEvent(QWheelEvent*) override;   // Ctrl+wheel zooms at the mouse; the wheel scrolls
    void resizeEvent(QResizeEvent*) override;
    void keyPressEvent(QKeyEvent*) override;  // + - 0, as the other zoomable views

private:
    friend class EventTracePanel;
    void refit();                             // after a new trace or a resize
    void zoomAround(double z, QPointF anchor); // keeps the point under anchor (viewport px) in place
    EventTraceCanvas* canvas_;
    bool fit_width_ = false;
    bool fit_window_ = true;
};

// Dock content: header (what is shown) + "whole connection" toggle + view.
class EventTracePanel : public QWidget {
    Q_OBJECT
public:
    EventTracePanel(SelectionHub* hub, const GuiBackend* backend, QWidget* parent = nullptr);
    EventTraceView* view() const { return view_; }
    bool showsConnection() const;
    void setShowConnection(bool on);
    const EventTraceLayout& currentLayout() const { return view_->canvas()->trace(); }

private:
    void rebuild();
    void onFrameHighlighted(quint64 frame);

    SelectionHub* hub_;
    const GuiBackend* backend_;
    QLabel* header_;
    QLabel* zoom_label_;
    QCheckBox* whole_connection_;
    EventTraceView* view_;
};

} // namespace stallscope::gui
