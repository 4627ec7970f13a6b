// stallscope-cli compare BEFORE AFTER: did a fix remove the stall, and did
// anything get worse? Exit codes are the CI contract (docs/compare.md).
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/compare/compare.h"
#include "analyzers/compare/compare_input.h"
#include "analyzers/compare/compare_report.h"
#include "analyzers/spill/spill_file.h"
#include "app/cli/analyze_defaults.h"
#include "app/cli/capture_arguments.h"
#include "app/cli/cli_args.h"
#include "app/cli/output_file.h"
#include "app/cli/progress_printer.h"
#include "app/cli/warning_lines.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace stallscope::cli {

namespace {
const char* kHelp =
    "usage: stallscope-cli compare BEFORE AFTER [--json] [-o FILE]\n"
    "       stallscope-cli compare --before FILE... --after FILE... [options]\n"
    "                              [--expect-fixed KIND]... [--expect-no-regression]\n"
    "\n"
    "Compares two captures of the same workload, before and after a fix: latency per\n"
    "operation (median, p90, Hodges-Lehmann shift with its 95% confidence interval,\n"
    "Mann-Whitney U test) and findings per kind with a verdict: fixed, reduced,\n"
    "still present, new, or absent in both. Rules and JSON fields: docs/compare.md.\n"
    "Each side may be a file set analysed as one capture: BEFORE or AFTER as a quoted pattern\n"
    "('before_*.pcapng') or the first file of a dumpcap ring / tcpdump -C files, or the\n"
    "side's files one by one with --before and --after (repeated, or patterns).\n"
    "  --before FILE, --after FILE  a file (or quoted pattern) of that side; repeat for more\n"
    "  --json                   JSON instead of text (same as --format json)\n"
    "  --format F               text (default), json, or markdown (a pull-request comment:\n"
    "                           verdict line, compact tables, predictions)\n"
    "  -o FILE                  write the report to FILE instead of stdout\n"
    "  --expect-fixed KIND      exit 1 unless KIND was found before and not after\n"
    "                           (KIND: nagle_delayed_ack, split_write, expect_100_wait,\n"
    "                           connection_setup, server_time, retransmission, message_size)\n"
    "  --expect-no-regression   exit 1 if a kind is new or grew, or an operation got\n"
    "                           significantly slower\n"
    "  --alpha A                significance level of the rank test (default 0.05)\n"
    "  --min-change-ms MS       smallest median change that counts as faster/slower (default 1)\n"
    "  --min-change-pct P       ... and as a share of the before median (default 10)\n"
    "  --no-size-match          match calls by operation only, not by message size\n"
    "  --strict                 a kind new or grown on a single call counts as worse too\n"
    "  --quiet                  no progress on stderr\n"
    "  --spill-after CALLS      keep at most CALLS calls of an analysis in memory, the rest on\n"
    "                           disk in $TMPDIR (default 1000, as analyze); the comparison\n"
    "                           itself keeps 40 bytes per complete call\n"
    "  --keylog FILE            TLS secrets (NSS key log format) for both captures: decrypt\n"
    "                           HTTPS (docs/https.md)\n"
    "exit status: 0 compared (and every expectation met), 1 a capture could not be\n"
    "analysed or an expectation failed (reasons on stderr), 2 usage error\n";

// One side of the comparison: its files (one, or a file set) and how the
// user named it, for messages.
struct Side {
    std::vector<std::string> files;
    std::string named;
};

bool add_to_side(Side& side, const std::string& arg) {
    if (!add_capture_argument(arg, side.files)) return false;
    side.named += (side.named.empty() ? "" : " ") + (arg.find_first_of("*?[ ") == std::string::npos ? arg : "'" + arg + "'");
    return true;
}

// The same files on both sides (a set given twice included).
bool same_files(const Side& a, const Side& b) {
    if (a.files.size() != b.files.size()) return false;
    for (size_t i = 0; i < a.files.size(); ++i) {
        std::error_code ec;
        if (!std::filesystem::equivalent(a.files[i], b.files[i], ec)) return false;
    }
    return true;
}

bool known_kind(const std::string& k) {
    const auto& v = known_finding_kinds();
    return std::find(v.begin(), v.end(), k) != v.end();
}

// What the command line asks for.
struct CompareRequest {
    std::vector<std::string> positional, expect_fixed_kinds;
    Side sides[2];
    std::string out_path, keylog;
    bool json = false, markdown = false, no_regression = false, quiet = false;
    size_t spill_after = kDefaultSpillAfterCalls;
    CompareOptions opt;
};

// One option of the statistics (--alpha, --min-change-ms, --min-change-pct); nullopt = parsed.
std::optional<int> parse_statistics_option(Args& a, const std::string& s, CompareOptions& opt) {
    std::string v;
    if (!a.value(s, v)) return kExitUsage;
    if (s == "--alpha") {
        if (!parse_double(v, opt.alpha) || opt.alpha <= 0 || opt.alpha >= 1)
            return usage_error("compare", "--alpha must be between 0 and 1");
    } else if (s == "--min-change-ms") {
        if (!parse_double(v, opt.min_change_ms) || opt.min_change_ms < 0)
            return usage_error("compare", "--min-change-ms must be a number >= 0");
    } else {
        double pct = 0;
        if (!parse_double(v, pct) || pct < 0) return usage_error("compare", "--min-change-pct must be a number >= 0");
        opt.min_change_ratio = pct / 100;
    }
    return std::nullopt;
}

// The command line into `r`; nullopt = go on, else the exit code (help, usage).
std::optional<int> parse_compare_args(Args& a, CompareRequest& r) {
    while (!a.done()) {
        std::string s = a.next(), v;
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        else if (s == "--json") r.json = true;
        else if (s == "--format") {
            if (!a.value(s, v)) return kExitUsage;
            if (v == "json") r.json = true;
            else if (v == "markdown" || v == "md") r.markdown = true;
            else if (v != "text") return usage_error("compare", "--format must be text, json or markdown");
        }
        else if (s == "--quiet" || s == "-q") r.quiet = true;
        else if (s == "--expect-no-regression") r.no_regression = true;
        else if (s == "--no-size-match") r.opt.match_by_size = false;
        else if (s == "--strict") r.opt.min_worse_calls = 1;
        else if (s == "-o" || s == "--output") { if (!a.value(s, r.out_path)) return kExitUsage; }
        else if (s == "--spill-after") {
            uint64_t n = 0;
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, n)) return usage_error("compare", "--spill-after needs a number of calls, got '" + v + "'");
            r.spill_after = size_t(n);
        }
        else if (s == "--keylog") { if (!a.value(s, r.keylog)) return kExitUsage; }
        else if (s == "--before" || s == "--after") {
            if (!a.value(s, v)) return kExitUsage;
            if (!add_to_side(r.sides[s == "--after"], v)) return usage_error("compare", "no file matches " + v);
        }
        else if (s == "--expect-fixed") {
            if (!a.value(s, v)) return kExitUsage;
            if (!known_kind(v)) return usage_error("compare", "unknown finding kind '" + v + "'");
            r.expect_fixed_kinds.push_back(v);
        } else if (s == "--alpha" || s == "--min-change-ms" || s == "--min-change-pct") {
            if (auto rc = parse_statistics_option(a, s, r.opt)) return rc;
        } else if (!s.empty() && s[0] == '-' && s != "-") return usage_error("compare", "unknown option " + s);
        else r.positional.push_back(s);
    }
    return std::nullopt;
}

// The two sides, from BEFORE AFTER or from --before/--after; nullopt = fine.
std::optional<int> resolve_sides(CompareRequest& r) {
    Side* sides = r.sides;
    if (!sides[0].files.empty() || !sides[1].files.empty()) {
        if (!r.positional.empty())
            return usage_error("compare", "give the sides either as BEFORE AFTER or with --before and --after, not both (got also " +
                                              r.positional.front() + ")");
        if (sides[0].files.empty() || sides[1].files.empty())
            return usage_error("compare", std::string("--before and --after go together: no ") +
                                              (sides[0].files.empty() ? "--before" : "--after") + " file given");
        return std::nullopt;
    }
    if (r.positional.size() != 2)
        return usage_error("compare", "needs exactly two captures, BEFORE and AFTER (got " + std::to_string(r.positional.size()) +
                                          "); a side of several files is a quoted pattern, the first file of a ring, "
                                          "or --before/--after repeated");
    for (int i = 0; i < 2; ++i)
        if (!add_to_side(sides[i], r.positional[size_t(i)]))
            return usage_error("compare", "no file matches " + r.positional[size_t(i)]);
    return std::nullopt;
}

// One side analysed (spilled to disk past spill_after calls like `analyze`)
// and reduced to what the comparison needs; false (said on stderr) when it
// could not be analysed.
bool analyse_side(const CompareRequest& r, int i, CompareInput& input) {
    static const char* const names[2] = {"BEFORE", "AFTER"};
    ProgressPrinter progress(!r.quiet);
    AnalysisOptions opt;
    opt.threads = default_analysis_threads();
    opt.spill_after_calls = r.spill_after;
    opt.keylog_path = r.keylog;
    const Side& side = r.sides[i];
    AnalyzeOutcome o = analyze_files(side.files, opt, std::ref(progress));
    progress.done();
    if (!o.ok) {
        std::fprintf(stderr, "stallscope-cli compare: error: %s capture %s could not be analysed: %s\n", names[i],
                     side.named.c_str(), o.error.c_str());
        return false;
    }
    // A damaged file is compared up to the damage: the line analyze prints for it.
    if (const Warning* w = damage_warning(o.result.capture); w && !r.quiet)
        std::fprintf(stderr, "%s (%s)\n", warning_line(side.files.front(), *w).c_str(), names[i]);
    if (!r.quiet && !o.result.capture.warnings.empty())
        std::fprintf(stderr, "stallscope-cli compare: %s: %zu warning(s); 'stallscope-cli analyze %s' lists them\n",
                     side.named.c_str(), o.result.capture.warnings.size(), side.named.c_str());
    try {
        input = compare_input(o.result);
    } catch (const SpillError& e) {
        std::fprintf(stderr, "stallscope-cli compare: error: %s capture %s could not be analysed: %s\n", names[i],
                     side.named.c_str(), e.what());
        return false;
    }
    return true;
}

// The report written; the expectations checked. The exit code.
int report(const CompareRequest& r, const Comparison& c) {
    std::vector<CheckedExpectation> checked;
    for (const std::string& k : r.expect_fixed_kinds) checked.push_back({"expect-fixed " + k, expect_fixed(c, k)});
    if (r.no_regression) checked.push_back({"expect-no-regression", expect_no_regression(c)});

    std::string text = r.json ? compare_json(c, checked) : r.markdown ? compare_markdown(c, checked) : compare_text(c, checked);
    std::string err;
    if (!write_output(r.out_path, text, err)) {
        std::fprintf(stderr, "stallscope-cli compare: error: %s\n", err.c_str());
        return kExitInput;
    }
    bool ok = true;
    for (const CheckedExpectation& e : checked) {
        if (e.result.ok) continue;
        ok = false;
        for (const std::string& reason : e.result.reasons)
            std::fprintf(stderr, "stallscope-cli compare: %s failed: %s\n", e.name.c_str(), reason.c_str());
    }
    return ok ? kExitOk : kExitInput;
}
} // namespace

int cmd_compare(Args& a) {
    CompareRequest r;
    if (auto rc = parse_compare_args(a, r)) return *rc;
    if (auto rc = resolve_sides(r)) return *rc;
    // The same capture twice compares nothing: say so (the report still
    // follows, every kind "still present", so scripts see a normal run).
    if (same_files(r.sides[0], r.sides[1]))
        std::fprintf(stderr, "stallscope-cli compare: warning: BEFORE and AFTER are the same file (%s): "
                             "nothing can have changed\n", r.sides[0].named.c_str());
    // One side at a time: analysed, reduced and dropped, so memory stays
    // that of one analysis plus 40 bytes per complete call.
    CompareInput inputs[2];
    for (int i = 0; i < 2; ++i)
        if (!analyse_side(r, i, inputs[i])) return kExitInput;
    return report(r, compare_inputs(inputs[0], inputs[1], r.opt));
}

} // namespace stallscope::cli
