#pragma once
// Everything the GUI asks of the analysis core, as plain functions. The app
// binds the real core (core_backend()); tests can bind small fakes. This is
// the only seam between the widgets and the core's free functions.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/diagram/event_trace_layout.h"

#include <functional>
#include <string>
#include <vector>

namespace stallscope::gui {

struct GuiBackend {
    // One capture file, or several analysed as one (a file set, issue 24); one
    // path that is the first file of a dumpcap ring / tcpdump -C files brings the set.
    std::function<AnalyzeOutcome(const std::vector<std::string>& paths, const AnalysisOptions&, const ProgressFn&)> analyze;
    // The files of the file set `path` belongs to, found by name (just `path`
    // when it is in none). Unbound: every file is a set of its own.
    std::function<std::vector<std::string>(const std::string& path)> file_set_of;
    // The event-trace layout of one call / one connection, exactly as the
    // exporters (and the CLI) draw it. False with error set when there is none.
    std::function<bool(const AnalysisResult&, uint64_t call_id, EventTraceLayout&, std::string& error)> call_trace;
    std::function<bool(const AnalysisResult&, uint64_t connection_id, EventTraceLayout&, std::string& error)>
        connection_trace;
    // format: "svg" | "pdf" | "png". Empty function: the GUI draws it with Qt.
    std::function<bool(const EventTraceLayout&, const std::string& path, const std::string& format,
                       std::string& error)>
        export_trace;
    std::function<bool(const AnalysisResult&, const std::string& path, const std::string& format,
                       std::string& error)>
        export_timeline;
    std::function<std::string(const AnalysisResult&)> report_html, report_json, report_csv;
    // Figures for papers: the trace of a call (or its whole connection) laid
    // out with options (time axis, width, highlight), exported at a scale
    // (output units per layout px), and the scale for a page width and dpi.
    std::function<bool(const AnalysisResult&, uint64_t call_id, bool whole_connection, const EventTraceOptions&,
                       EventTraceLayout&, std::string& error)>
        figure_trace;
    std::function<bool(const EventTraceLayout&, const std::string& path, const std::string& format, double scale,
                       std::string& error)>
        export_figure;
    std::function<double(double layout_width, const std::string& page, const std::string& format, double dpi)> figure_scale;
};

// The real analysis core, with whatever exporters this build contains.
GuiBackend core_backend();

} // namespace stallscope::gui
