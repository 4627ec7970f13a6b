// Binds the GUI to the analysis core and its exporters. The only file of the
// GUI that calls the core's free functions; parts of the core that are not in
// this build stay unbound and the GUI says so instead of failing to link.
#include "app/gui/gui_backend.h"

#if defined(STALLSCOPE_GUI_HAVE_ANALYSIS)
#include "capture/pcap/file_set_reader.h"
#endif
#if defined(STALLSCOPE_GUI_HAVE_DIAGRAM)
#include "analyzers/diagram/diagram_export.h"
#endif
#if defined(STALLSCOPE_GUI_HAVE_REPORT)
#include "analyzers/report/report.h"
#endif
#if defined(STALLSCOPE_GUI_HAVE_HTML) && __has_include("analyzers/diagram/html_report.h")
#include "analyzers/diagram/html_report.h"
#define STALLSCOPE_GUI_BIND_HTML 1
#endif

namespace stallscope::gui {

GuiBackend core_backend() {
    GuiBackend b;
#if defined(STALLSCOPE_GUI_HAVE_ANALYSIS)
    b.analyze = [](const std::vector<std::string>& paths, const AnalysisOptions& o, const ProgressFn& p) {
        return analyze_files(paths, o, p);
    };
    b.file_set_of = [](const std::string& path) {
        std::vector<std::string> missing;
        return expand_file_set(path, missing);
    };
#endif
#if defined(STALLSCOPE_GUI_HAVE_DIAGRAM)
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
#endif
#if defined(STALLSCOPE_GUI_HAVE_REPORT)
    b.report_json = [](const AnalysisResult& r) { return report_json(r); };
    b.report_csv = [](const AnalysisResult& r) { return report_csv(r); };
#endif
#if defined(STALLSCOPE_GUI_BIND_HTML)
    b.report_html = [](const AnalysisResult& r) { return html_report(r); };
#endif
    return b;
}

} // namespace stallscope::gui
