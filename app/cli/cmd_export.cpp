// stallscope-cli export: event-trace diagrams, the timeline and reports to files.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/html_report.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/spill/spill_file.h"
#include "app/cli/analyze_defaults.h"
#include "app/cli/capture_arguments.h"
#include "app/cli/cli_args.h"
#include "app/cli/output_file.h"
#include "app/cli/warning_lines.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

namespace stallscope::cli {

namespace {
const char* kHelp =
    "usage: stallscope-cli export CAPTURE... WHAT --format FORMAT -o FILE\n"
    "  CAPTURE... is one file, or a file set analysed as one capture: several files, a quoted\n"
    "  pattern ('run_*.pcapng'), or the first file of a dumpcap ring / tcpdump -C files.\n"
    "  WHAT is one of:\n"
    "    --call N          event-trace diagram of call N          (svg, pdf, png)\n"
    "    --connection N    event-trace diagram of connection N    (svg, pdf, png)\n"
    "    --timeline        waterfall of the calls                 (svg, png)\n"
    "    --report          the analysis report                    (html, json, csv)\n"
    "  --format defaults to the extension of -o.\n"
    "  Event-trace figures:\n"
    "    --time-axis rows|linear  rows: one row per segment, waits grow (default);\n"
    "                             linear: true time scale, a 44 ms stall is 44 ms long\n"
    "    --width PX               layout width (default 960; 480..4000): narrower = larger text\n"
    "    --page one-column|two-column  output width 3.5 in / 7.16 in (PDF in pt, SVG at 96/in, PNG at --dpi)\n"
    "    --scale F                output size = layout size x F (PNG pixels, SVG px, PDF pt)\n"
    "    --dpi N                  PNG resolution (default 96 at --scale 1, 300 with --page)\n"
    "    --no-highlight           no yellow evidence markers\n"
    "  Timeline (a row per call; past 1000 calls only the 200 slowest by default):\n"
    "    --slowest N              the N slowest calls, in call order\n"
    "    --window FROM:TO         calls that overlap FROM..TO seconds after the first packet\n"
    "                             (with --slowest: the slowest of those)\n"
    "    --all-calls              every call, however many (memory grows with calls)\n"
    "  --quiet                    no warnings on stderr\n"
    "  --keylog FILE              TLS secrets (NSS key log format): decrypt HTTPS (docs/https.md)\n"
    "exit status: 0 written, 1 capture not analysable (as for analyze: not a capture, or no\n"
    "frame in it could be decoded) / no such call, 2 usage error\n";

// The timeline draws every call up to this many, else the slowest few.
constexpr size_t kTimelineAllCallsUpTo = 1000;
constexpr size_t kTimelineDefaultSlowest = 200;

std::string extension_of(const std::string& path) {
    auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(dot + 1);
}

// What the command line asks for.
struct ExportRequest {
    std::string out, format, what, keylog, page;
    std::vector<std::string> captures;
    std::optional<uint64_t> call, conn;
    EventTraceOptions trace_opt;
    TimelineOptions timeline_opt;
    bool all_calls = false, quiet = false;
    double scale = 0, dpi = 0;
    bool diagram() const { return what == "call" || what == "connection"; }
};

// A number option in [lo, hi]; false (usage said) when it is missing or out of range.
bool number_option(Args& a, const std::string& opt, double lo, double hi, double& out) {
    std::string v;
    if (!a.value(opt, v)) return false;
    char* end = nullptr;
    out = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(out >= lo && out <= hi)) {
        usage_error("export", opt + " needs a number from " + std::to_string(int(lo)) + " to " + std::to_string(int(hi)) +
                                  ", got '" + v + "'");
        return false;
    }
    return true;
}

// --slowest N and --window FROM:TO; nullopt = parsed, else the exit code.
std::optional<int> parse_timeline_option(Args& a, const std::string& s, TimelineOptions& t) {
    std::string v;
    if (!a.value(s, v)) return kExitUsage;
    if (s == "--slowest") {
        uint64_t n = 0;
        if (!parse_u64(v, n) || n == 0 || n > 100000)
            return usage_error("export", "--slowest needs a number from 1 to 100000, got '" + v + "'");
        t.slowest = size_t(n);
        return std::nullopt;
    }
    auto colon = v.find(':');
    double from = 0, to = 0;
    if (colon == std::string::npos || !parse_double(v.substr(0, colon), from) ||
        !parse_double(v.substr(colon + 1), to) || !(from >= 0) || !(to >= from) || to > 1e9)
        return usage_error("export", "--window needs FROM:TO in seconds, 0 <= FROM <= TO, got '" + v + "'");
    t.window = true;
    t.window_from_ns = int64_t(from * 1e9);
    t.window_to_ns = int64_t(to * 1e9);
    return std::nullopt;
}

// One option of the event-trace figures; nullopt = parsed, else the exit code.
std::optional<int> parse_figure_option(Args& a, const std::string& s, ExportRequest& r) {
    std::string v;
    if (s == "--time-axis") {
        if (!a.value(s, v)) return kExitUsage;
        if (v != "rows" && v != "linear") return usage_error("export", "--time-axis is rows or linear, not '" + v + "'");
        r.trace_opt.linear_time = v == "linear";
    } else if (s == "--width") {
        if (!number_option(a, s, 480, 4000, r.trace_opt.width)) return kExitUsage;
    } else if (s == "--scale") {
        if (!number_option(a, s, 0.1, 10, r.scale)) return kExitUsage;
    } else if (s == "--dpi") {
        if (!number_option(a, s, 36, 2400, r.dpi)) return kExitUsage;
    } else if (s == "--page") {
        if (!a.value(s, r.page)) return kExitUsage;
        if (r.page != "one-column" && r.page != "two-column")
            return usage_error("export", "--page is one-column or two-column, not '" + r.page + "'");
    } else {  // --no-highlight
        r.trace_opt.highlight_evidence = false;
    }
    return std::nullopt;
}

// The command line into `r`; nullopt = go on, else the exit code (help, usage).
std::optional<int> parse_export_args(Args& a, ExportRequest& r) {
    while (!a.done()) {
        std::string s = a.next(), v;
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        if (s == "--call" || s == "--connection") {
            uint64_t n = 0;
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, n) || n == 0) return usage_error("export", s + " needs a positive number, got '" + v + "'");
            (s == "--call" ? r.call : r.conn) = n;
            r.what = s.substr(2);
        } else if (s == "--time-axis" || s == "--width" || s == "--scale" || s == "--dpi" || s == "--page" ||
                   s == "--no-highlight") {
            if (auto rc = parse_figure_option(a, s, r)) return rc;
        } else if (s == "--slowest" || s == "--window") {
            if (auto rc = parse_timeline_option(a, s, r.timeline_opt)) return rc;
        }
        else if (s == "--quiet" || s == "-q") r.quiet = true;
        else if (s == "--timeline") r.what = "timeline";
        else if (s == "--all-calls") r.all_calls = true;
        else if (s == "--report") r.what = "report";
        else if (s == "--format" || s == "-f") { if (!a.value(s, r.format)) return kExitUsage; }
        else if (s == "-o" || s == "--output") { if (!a.value(s, r.out)) return kExitUsage; }
        else if (s == "--keylog") { if (!a.value(s, r.keylog)) return kExitUsage; }
        else if (!s.empty() && s[0] == '-') return usage_error("export", "unknown option " + s);
        else if (!add_capture_argument(s, r.captures)) return usage_error("export", "no file matches " + s);
    }
    return std::nullopt;
}

// Options that do not go together, and formats each export takes; nullopt = fine.
std::optional<int> check_export_request(ExportRequest& r) {
    if (r.captures.empty()) return usage_error("export", "no capture file given");
    if (r.what.empty()) return usage_error("export", "say what to export: --call N, --connection N, --timeline or --report");
    if (r.call && r.conn) return usage_error("export", "--call and --connection exclude each other");
    if (r.out.empty()) return usage_error("export", "-o FILE is required");
    if (r.format.empty()) r.format = extension_of(r.out);
    const EventTraceOptions& t = r.trace_opt;
    const std::string& format = r.format;
    if (!r.diagram() && (t.linear_time || !t.highlight_evidence || !r.page.empty() || r.scale > 0 || r.dpi > 0))
        return usage_error("export", "--time-axis, --width, --page, --scale, --dpi and --no-highlight are for --call and --connection");
    if (r.scale > 0 && !r.page.empty()) return usage_error("export", "--scale and --page exclude each other");
    if (r.what != "timeline" && (r.all_calls || r.timeline_opt.slowest || r.timeline_opt.window))
        return usage_error("export", "--slowest, --window and --all-calls are for --timeline");
    if (r.all_calls && (r.timeline_opt.slowest || r.timeline_opt.window))
        return usage_error("export", "--all-calls excludes --slowest and --window");
    if (r.diagram() && format != "svg" && format != "pdf" && format != "png")
        return usage_error("export", "event traces export as svg, pdf or png, not '" + format + "'");
    if (r.what == "timeline" && format != "svg" && format != "png")
        return usage_error("export", "the timeline exports as svg or png, not '" + format + "'");
    if (r.what == "report" && format != "html" && format != "json" && format != "csv")
        return usage_error("export", "reports export as html, json or csv, not '" + format + "'");
    return std::nullopt;
}

bool write_timeline(const AnalysisResult& result, ExportRequest& r, std::string& err) {
    // A row per call is unreadable past a thousand calls: by default
    // a big capture shows its slowest, and says what it left out.
    TimelineOptions& t = r.timeline_opt;
    if (!r.all_calls && !t.slowest && !t.window && call_count(result) > kTimelineAllCallsUpTo)
        t.slowest = kTimelineDefaultSlowest;
    const TimelineLayout layout = layout_timeline(result, t);
    if (!layout.left_out.empty())
        std::fprintf(stderr, "stallscope-cli export: timeline of %s; %s (--slowest N, --window FROM:TO, --all-calls)\n",
                     layout.selection.c_str(), layout.left_out.c_str());
    return export_timeline_layout(layout, r.out, r.format, err);
}

bool write_report(const AnalysisResult& result, const ExportRequest& r, std::string& err) {
    if (r.format == "html") return write_output(r.out, html_report(result), err);
    OutputStream stream;  // written as it is made, as `analyze -o` does
    if (!stream.open(r.out, err)) return false;
    if (r.format == "json") write_report_json(result, stream.stream());
    else write_report_csv(result, stream.stream());
    return stream.commit(err);
}

bool write_export(const AnalysisResult& result, ExportRequest& r, std::string& err) {
    if (r.diagram()) {
        EventTraceLayout layout;
        bool ok = r.what == "call" ? call_event_trace(result, *r.call, layout, err, r.trace_opt)
                                   : connection_event_trace(result, *r.conn, layout, err, r.trace_opt);
        const double k = r.scale > 0 ? r.scale : figure_scale(layout.width, r.page, r.format, r.dpi);
        return ok && export_event_trace(layout, r.out, r.format, err, k);
    }
    if (r.what == "timeline") return write_timeline(result, r, err);
    return write_report(result, r, err);
}
} // namespace

int cmd_export(Args& a) {
    ExportRequest r;
    if (auto rc = parse_export_args(a, r)) return *rc;
    if (auto rc = check_export_request(r)) return *rc;
    const std::string& capture = r.captures.front();

    AnalysisOptions opt;
    opt.keep_segments_for_call = r.call;
    opt.keep_segments_for_connection = r.conn;
    opt.threads = default_analysis_threads();
    opt.keylog_path = r.keylog;
    // Calls go to disk as with `analyze`, so memory stays flat in calls;
    // the timeline reads back only the rows it draws (--all-calls: all).
    opt.spill_after_calls = kDefaultSpillAfterCalls;
    AnalyzeOutcome o = analyze_files(r.captures, opt);
    if (!o.ok) {  // the same line, and the same rule, as analyze
        std::fprintf(stderr, "stallscope-cli: error: %s\n", o.error.c_str());
        return kExitInput;
    }
    if (!r.quiet) print_warnings(capture, o.result.capture.warnings);
    std::string err;
    bool ok;
    try {
        ok = write_export(o.result, r, err);
    } catch (const SpillError& e) {
        err = e.what();
        ok = false;
    }
    if (!ok) {
        std::fprintf(stderr, "stallscope-cli: error: %s: %s\n", capture.c_str(), err.c_str());
        return kExitInput;
    }
    return kExitOk;
}

} // namespace stallscope::cli
