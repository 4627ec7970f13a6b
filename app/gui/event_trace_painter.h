#pragma once
// Draws an EventTraceLayout with QPainter, in layout pixels. The on-screen
// view uses it; so does the Qt fallback export when the cairo exporters are
// not part of the build.
#include "analyzers/diagram/event_trace_layout.h"

#include <QColor>
#include <QPointF>
#include <optional>

class QPainter;

namespace stallscope::gui {

struct TracePaintStyle {
    bool dark = false;
    uint64_t highlighted_frame = 0;   // 0 = none
};

void paintEventTrace(QPainter& p, const EventTraceLayout& layout, const TracePaintStyle& style);

// Index of the arrow nearest to pt (layout pixels), if within max_distance.
std::optional<size_t> arrowAt(const EventTraceLayout& layout, QPointF pt, double max_distance);
// Start and end points of an arrow.
QPointF arrowStart(const EventTraceLayout& layout, const TraceArrow& a);
QPointF arrowEnd(const EventTraceLayout& layout, const TraceArrow& a);

} // namespace stallscope::gui
