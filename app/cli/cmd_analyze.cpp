// stallscope-cli analyze CAPTURE: every call's timeline and findings.
#include "analyzers/analyze.h"
#include "analyzers/report.h"
#include "app/cli/cli_args.h"
#include "app/cli/output_file.h"
#include "app/cli/progress_printer.h"

#include <cstdio>
#include <string>

namespace stallscope::cli {

namespace {
const char* kHelp =
    "usage: stallscope-cli analyze CAPTURE [--json | --csv | --csv-summary] [-o FILE] [--quiet]\n"
    "\n"
    "Reads a pcap or pcapng file in one pass and reports every HTTP/SOAP call with its\n"
    "timeline and the stalls found (text by default).\n"
    "  --json          JSON (docs/json-format.md)\n"
    "  --csv           one CSV row per call\n"
    "  --csv-summary   one CSV row per operation and finding kind\n"
    "  -o FILE         write the report to FILE instead of stdout\n"
    "  --quiet         no progress and no warnings on stderr (they stay in the report)\n"
    "exit status: 0 analysed (warnings on stderr), 1 not analysable, 2 usage error\n";
}

int cmd_analyze(Args& a) {
    std::string capture, out_path, format = "text";
    bool quiet = false;
    while (!a.done()) {
        std::string s = a.next();
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        else if (s == "--json") format = "json";
        else if (s == "--csv") format = "csv";
        else if (s == "--csv-summary") format = "csv-summary";
        else if (s == "--quiet" || s == "-q") quiet = true;
        else if (s == "-o" || s == "--output") { if (!a.value(s, out_path)) return kExitUsage; }
        else if (!s.empty() && s[0] == '-' && s != "-") return usage_error("analyze", "unknown option " + s);
        else if (capture.empty()) capture = s;
        else return usage_error("analyze", "only one capture file, got also " + s);
    }
    if (capture.empty()) return usage_error("analyze", "no capture file given");

    ProgressPrinter progress(!quiet);
    AnalyzeOutcome o = analyze_file(capture, AnalysisOptions{}, std::ref(progress));
    progress.done();
    if (!o.ok) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", o.error.c_str());
        return kExitInput;
    }
    if (!quiet) {
        // Every warning names the file, then the frame/offset/connection.
        for (auto& w : o.result.capture.warnings) {
            bool named = w.message.rfind(capture, 0) == 0;
            // The frame and connection live in separate fields; stderr has only this line.
            std::string where;
            if (w.frame && w.message.find("frame " + std::to_string(w.frame)) == std::string::npos)
                where = "frame " + std::to_string(w.frame);
            if (w.connection_id) where += (where.empty() ? "" : ", ") + ("connection " + std::to_string(w.connection_id));
            std::fprintf(stderr, "stallscope-cli: warning: %s%s%s%s%s%s\n", named ? "" : capture.c_str(),
                         named ? "" : ": ", w.message.c_str(), where.empty() ? "" : " [", where.c_str(),
                         where.empty() ? "" : "]");
        }
    }
    std::string text = format == "json" ? report_json(o.result)
                     : format == "csv" ? report_csv(o.result)
                     : format == "csv-summary" ? report_csv_summary(o.result)
                     : report_text(o.result);
    std::string err;
    if (!write_output(out_path, text, err)) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", err.c_str());
        return kExitInput;
    }
    return kExitOk;
}

} // namespace stallscope::cli
