#pragma once
// One meaning for the mouse and keys of every zoomable view (timeline, over
// time, event trace), so a habit learnt in one works in the others:
//   click (moved <= kClickSlopPx): select;   double-click on an item: open it
//   (the event trace); double-click on nothing: fit;
//   wheel: zoom at the mouse (the event trace, a tall page, zooms with Ctrl+wheel
//   and scrolls with the wheel);   + / - / 0: zoom in, out, fit;   Left / Right: pan.
#include <QKeyEvent>
#include <QPointF>
#include <QWheelEvent>

#include <cmath>

namespace stallscope::gui::zoom_gestures {

constexpr double kClickSlopPx = 3;    // a press and release this close is a click, not a drag
constexpr double kWheelStep = 1.25;   // zoom factor per wheel notch
constexpr double kKeyStep = 1.5;      // zoom factor per key press (and View > Zoom In)

inline bool isClick(QPointF press, QPointF release) { return (release - press).manhattanLength() <= kClickSlopPx; }

// The zoom factor of a wheel event (> 1: in); 1 when it has no vertical turn.
inline double wheelFactor(const QWheelEvent* e) { return std::pow(kWheelStep, e->angleDelta().y() / 120.0); }

enum class Key { None, ZoomIn, ZoomOut, Fit, PanLeft, PanRight };

inline Key keyOf(const QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_Plus: case Qt::Key_Equal: return Key::ZoomIn;
    case Qt::Key_Minus: return Key::ZoomOut;
    case Qt::Key_0: return Key::Fit;
    case Qt::Key_Left: return Key::PanLeft;
    case Qt::Key_Right: return Key::PanRight;
    default: return Key::None;
    }
}

} // namespace stallscope::gui::zoom_gestures
