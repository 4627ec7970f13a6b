#pragma once
// Diagram export with cairo: the event trace as SVG, PDF or PNG (no cap on
// the number of segments: SVG is one tall page, PDF spans pages, a PNG too
// tall for one image is tiled into side-by-side columns), the timeline as
// SVG or PNG, and the CLI's one-call / one-connection convenience.
#include "analyzers/diagram/event_trace_layout.h"
#include "analyzers/diagram/timeline_layout.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>

namespace stallscope {

// format: "svg", "pdf" or "png". Returns false with error set on failure.
// scale: output units per layout px (SVG px, PDF pt, PNG px); see figure_scale().
bool export_event_trace(const EventTraceLayout& layout, const std::string& path,
                        const std::string& format, std::string& error, double scale = 1);

// The scale for a figure of a given size: page "one-column" (3.5 in) or
// "two-column" (7.16 in) wide, or "" for the layout's own width; dpi for PNG
// (SVG counts 96 px and PDF 72 pt per inch). Returns 0 for an unknown page.
double figure_scale(double layout_width, const std::string& page, const std::string& format, double dpi);
// The event trace as an SVG document in memory.
bool event_trace_svg(const EventTraceLayout& layout, std::string& svg, std::string& error);

// format: "svg" or "png".
bool export_timeline(const AnalysisResult& result, const std::string& path,
                     const std::string& format, std::string& error);
bool export_timeline_layout(const TimelineLayout& layout, const std::string& path,
                            const std::string& format, std::string& error);
bool timeline_svg(const TimelineLayout& layout, std::string& svg, std::string& error);

// Event trace of one call (its segments) or one connection (the segments of
// all its calls), with the findings that touch them. Fails when the call or
// connection does not exist or has no segments (the analysis must have been
// run with AnalysisOptions::keep_segments or keep_segments_for_*).
bool export_call_diagram(const AnalysisResult& r, uint64_t call_id, const std::string& format,
                         const std::string& path, std::string& error);
bool export_connection_diagram(const AnalysisResult& r, uint64_t connection_id,
                               const std::string& format, const std::string& path, std::string& error);

// The layouts those two export (for the GUI, which shows the same picture).
// Return false with error set like the exporters.
bool call_event_trace(const AnalysisResult& r, uint64_t call_id, EventTraceLayout& out,
                      std::string& error, const EventTraceOptions& options = {});
bool connection_event_trace(const AnalysisResult& r, uint64_t connection_id, EventTraceLayout& out,
                            std::string& error, const EventTraceOptions& options = {});

} // namespace stallscope
