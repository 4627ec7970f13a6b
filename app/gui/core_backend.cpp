// Binds the GUI to the analysis core and its exporters. The only file of the
// GUI that calls the core's free functions (the views see a GuiBackend, which
// tests fill with fakes).
#include "app/gui/gui_backend.h"

#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/html_report.h"
#include "analyzers/report/report.h"
#include "capture/pcap/file_set_reader.h"

namespace stallscope::gui {

GuiBackend core_backend() {
    GuiBackend b;
    b.analyze = [](const std::vector<std::string>& paths, const AnalysisOptions& o, const ProgressFn& p) {
        return analyze_files(paths, o, p);
    };
    b.file_set_of = [](const std::string& path) {
        std::vector<std::string> missing;
        return expand_file_set(path, missing);
    };
    b.call_trace = [](const AnalysisResult& r, uint64_t id, EventTraceLayout& out, std::string& err) {
        return call_event_trace(r, id, out, err);
    };
    b.connection_trace = [](const AnalysisResult& r, uint64_t id, EventTraceLayout& out, std::string& err) {
        return connection_event_trace(r, id, out, err);
    };
    b.export_trace = [](const EventTraceLayout& l, const std::string& path, const std::string& fmt, std::string& err) {
        return export_event_trace(l, path, fmt, err);
    };
    b.export_timeline = [](const AnalysisResult& r, const std::string& path, const std::string& fmt, std::string& err) {
        return export_timeline(r, path, fmt, err);
    };
    b.figure_trace = [](const AnalysisResult& r, uint64_t call_id, bool whole, const EventTraceOptions& o,
                        EventTraceLayout& out, std::string& err) {
        if (!whole) return call_event_trace(r, call_id, out, err, o);
        for (const Call& c : r.calls)
            if (c.id == call_id) return connection_event_trace(r, c.connection_id, out, err, o);
        err = "no call " + std::to_string(call_id);
        return false;
    };
    b.export_figure = [](const EventTraceLayout& l, const std::string& path, const std::string& fmt, double scale,
                         std::string& err) { return export_event_trace(l, path, fmt, err, scale); };
    b.figure_scale = [](double w, const std::string& page, const std::string& fmt, double dpi) {
        return figure_scale(w, page, fmt, dpi);
    };
    b.report_json = [](const AnalysisResult& r) { return report_json(r); };
    b.report_csv = [](const AnalysisResult& r) { return report_csv(r); };
    b.report_html = [](const AnalysisResult& r) { return html_report(r); };
    return b;
}

} // namespace stallscope::gui
