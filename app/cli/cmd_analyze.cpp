// stallscope-cli analyze CAPTURE: every call's timeline and findings.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/report.h"
#include "analyzers/spill/spill_file.h"
#include "app/cli/analyze_defaults.h"
#include "app/cli/analyze_report.h"
#include "app/cli/capture_arguments.h"
#include "app/cli/cli_args.h"
#include "app/cli/output_file.h"
#include "app/cli/progress_printer.h"
#include "app/cli/warning_lines.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace stallscope::cli {

namespace {
const char* kHelp =
    "usage: stallscope-cli analyze CAPTURE... [--json | --csv | --csv-summary] [-o FILE] [--quiet]\n"
    "                              [--spill-after CALLS] [--threads N] [--keylog FILE]\n"
    "                              [--full-xml | --xml-sample FIRST:EVERY]\n"
    "\n"
    "Reads a pcap or pcapng file in one pass and reports every HTTP/SOAP call with its\n"
    "timeline and the stalls found (text by default). Several files, a quoted pattern\n"
    "('run_*.pcapng') or the first file of a dumpcap ring (run_00001_YYYYmmddHHMMSS.pcapng)\n"
    "or of tcpdump -C files (run, run1, run2...) are analysed as one capture in time order.\n"
    "  --json          JSON (docs/json-format.md)\n"
    "  --csv           one CSV row per call\n"
    "  --csv-summary   one CSV row per operation and finding kind\n"
    "  -o FILE         write the report to FILE instead of stdout\n"
    "  --quiet         no progress and no warnings on stderr (they stay in the report)\n"
    "  --spill-after CALLS  past this many calls, keep finished calls, connections and\n"
    "                  findings in an unlinked temp file in $TMPDIR (default 1000; 0 =\n"
    "                  from the first call), so memory stays flat on big captures\n"
    "  --threads N     analyse connections on N threads, sharded by address pair (default:\n"
    "                  the machine's cores; 1 = one thread); the report is the same for every N\n"
    "                  (with --json its calls are also written on N threads)\n"
    "  --keylog FILE   TLS secrets in the NSS key log format (SSLKEYLOGFILE): HTTPS is\n"
    "                  decrypted and analysed like plaintext (docs/https.md); secrets embedded\n"
    "                  in a pcapng (Decryption Secrets Blocks) are used without it\n"
    "  --full-xml      read every SOAP envelope to its end: element_count and well-formedness\n"
    "                  past the envelope's head for every call, and message_size's markup and\n"
    "                  element figures from every call, not from a sample of each operation\n"
    "                  (docs/json-format.md \"whole_xml\"); its gzip estimate from every body\n"
    "                  compressed whole\n"
    "  --xml-sample FIRST:EVERY  that sample: the first FIRST calls of each operation plus\n"
    "                  the calls whose request frame hashes into 1 in EVERY (default 32:64)\n"
    "exit status: 0 analysed (warnings on stderr), 1 not analysable (not a capture, or no frame\n"
    "in it could be decoded), 2 usage error\n";

} // namespace

int cmd_analyze(Args& a) {
    std::string out_path, format = "text";
    std::vector<std::string> captures;
    bool quiet = false;
    AnalysisOptions options;
    options.spill_after_calls = kDefaultSpillAfterCalls;
    options.threads = default_threads();
    while (!a.done()) {
        std::string s = a.next();
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        else if (s == "--json") format = "json";
        else if (s == "--csv") format = "csv";
        else if (s == "--csv-summary") format = "csv-summary";
        else if (s == "--quiet" || s == "-q") quiet = true;
        else if (s == "--full-xml") options.full_xml = true;
        else if (s == "--xml-sample") {
            std::string v;
            if (!a.value(s, v)) return kExitUsage;
            unsigned long long first = 0, every = 0;
            char colon = 0, extra = 0;
            if (std::sscanf(v.c_str(), "%llu%c%llu%c", &first, &colon, &every, &extra) != 3 || colon != ':' || v[0] == '-' ||
                every < 1 || v.find(":-") != std::string::npos)
                return usage_error("analyze", "--xml-sample needs FIRST:EVERY (numbers, EVERY >= 1), got " + v);
            options.xml_sample_first = first;
            options.xml_sample_every = every;
        }
        else if (s == "-o" || s == "--output") { if (!a.value(s, out_path)) return kExitUsage; }
        else if (s == "--keylog") { if (!a.value(s, options.keylog_path)) return kExitUsage; }
        else if (s == "--spill-after" || s == "--threads") {
            std::string v;
            if (!a.value(s, v)) return kExitUsage;
            char* end = nullptr;
            errno = 0;
            unsigned long long n = std::strtoull(v.c_str(), &end, 10);
            const bool bad = v.empty() || *end || errno || v[0] == '-';
            if (s == "--threads") {
                if (bad || n < 1 || n > kMaxThreads)
                    return usage_error("analyze", "--threads needs a number from 1 to " + std::to_string(kMaxThreads) + ", got " + v);
                options.threads = unsigned(n);
                continue;
            }
            if (bad) return usage_error("analyze", "--spill-after needs a number of calls, got " + v);
            options.spill_after_calls = size_t(n);
        }
        else if (!s.empty() && s[0] == '-' && s != "-") return usage_error("analyze", "unknown option " + s);
        else if (!add_capture_argument(s, captures)) return usage_error("analyze", "no file matches " + s);
    }
    if (captures.empty()) return usage_error("analyze", "no capture file given");
    set_options_for_report(options, format);
    const std::string& capture = captures.front();

    ProgressPrinter progress(!quiet);
    AnalyzeOutcome o = analyze_files(captures, options, std::ref(progress));
    progress.done();
    if (!o.ok) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", o.error.c_str());
        return kExitInput;
    }
    const CaptureInfo& cap = o.result.capture;
    if (!quiet) print_warnings(capture, cap.warnings);
    std::string err;
    OutputStream out;
    if (!out.open(out_path, err)) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", err.c_str());
        return kExitInput;
    }
    try {
        write_report(o.result, format, out.stream(), options.threads);
    } catch (const SpillError& e) {
        std::fprintf(stderr, "stallscope-cli: error: %s: %s\n", capture.c_str(), e.what());
        return kExitInput;
    }
    if (!out.commit(err)) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", err.c_str());
        return kExitInput;
    }
    return kExitOk;
}

} // namespace stallscope::cli
