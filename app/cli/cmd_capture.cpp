// stallscope-cli capture: live capture of a running scenario with a running
// report. Behaviour and exit codes: docs/live-capture.md.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "app/cli/cli_args.h"
#include "app/live/live_keylog.h"
#include "app/live/live_port_census.h"
#include "app/live/live_scenario.h"
#include "app/live/live_status.h"
#include "app/cli/warning_lines.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace stallscope::cli {

namespace {

const char* kHelp =
    "usage: stallscope-cli capture --iface IF -w OUT.pcapng [--filter EXPR] [--server CMD] [--run CMD]\n"
    "                              [--duration S] [--json] [--quiet] [--buffer-mb N] [--snaplen N]\n"
    "                              [--server-wait S] [--drain S] [-b filesize:KB [-b files:N]]\n"
    "                              [--keylog FILE | --no-keylog]\n"
    "\n"
    "Captures packets with libpcap into OUT.pcapng (flushed as they come) and analyses\n"
    "them as they arrive. With --server, starts that command first and waits until it\n"
    "listens on the filter's port (or 0.5 s when the filter names none); with --run,\n"
    "runs that command once the capture is on and stops when it ends (plus --drain).\n"
    "Otherwise stops on Ctrl-C / SIGTERM, when the server exits, or after --duration.\n"
    "Commands run with /bin/sh -c in their own process group; their output goes to\n"
    "stderr prefixed with [server] / [run]; everything they started is stopped at the end.\n"
    "  -i, --iface IF      interface (default lo)\n"
    "  -f, --filter EXPR   capture filter (libpcap syntax), e.g. 'tcp port 8080'\n"
    "  -w FILE             the pcapng to write (required)\n"
    "  --server CMD        server command, started before the capture and stopped after it\n"
    "  --run CMD           client command; the capture ends when it ends\n"
    "  --duration S        stop after S seconds\n"
    "  --json              final report as JSON (docs/json-format.md) instead of text\n"
    "  --quiet             no live status and no child output on stderr\n"
    "  --buffer-mb N       kernel capture buffer in MB (default 64; raise it if drops are reported)\n"
    "  --snaplen N         bytes kept per packet (default 262144)\n"
    "  --server-wait S     longest wait for the server to listen (default 10)\n"
    "  --drain S           capture this long after --run ends (default 0.5)\n"
    "  -b filesize:KB      a ring buffer, as dumpcap's: write OUT_NNNNN_YYYYmmddHHMMSS.pcapng\n"
    "                      files, switching to the next once one holds KB kilobytes\n"
    "  -b files:N          ... and keep only the newest N files (older ones are deleted);\n"
    "                      the final report is the analysis of the files kept\n"
    "  --keylog FILE       the TLS key log the commands write: they get SSLKEYLOGFILE=FILE\n"
    "                      (default with --server or --run: OUT without its extension + .keylog);\n"
    "                      its secrets are also embedded in OUT (Decryption Secrets Blocks), so an\n"
    "                      HTTPS capture decrypts by itself; removed again if nothing was logged\n"
    "  --no-keylog         no key log: the commands keep the SSLKEYLOGFILE they had\n"
    "The live status line is shown when stderr is a terminal; the final report goes to\n"
    "stdout as with 'analyze'.\n"
    "exit status: 0 captured and analysed (also when the interface went away: a warning\n"
    "says so), 1 capture not possible (permission, interface, filter, file), a command\n"
    "failed (its exit status is reported), or --run succeeded but no packet or no call was\n"
    "captured (the TCP ports the run used are named), 2 usage error\n";

struct Options {
    std::string iface = "lo", filter, out, server_cmd, run_cmd, keylog;
    bool no_keylog = false;
    double duration_s = 0, server_wait_s = 10, drain_s = 0.5;
    bool json = false, quiet = false;
    uint64_t buffer_mb = 64, snaplen = 262144;
    RingOptions ring;
};

// dumpcap's ring-buffer switches: filesize:KB, files:N.
bool parse_ring(const std::string& v, RingOptions& ring) {
    const auto colon = v.find(':');
    uint64_t n = 0;
    if (colon == std::string::npos || !parse_u64(v.substr(colon + 1), n) || n == 0) return false;
    const std::string key = v.substr(0, colon);
    if (key == "filesize" && n <= (uint64_t(1) << 32)) ring.file_bytes = n * 1000;   // dumpcap's kB are 1000 bytes
    else if (key == "files" && n <= 100000) ring.files = uint32_t(n);
    else return false;
    return true;
}

// Forwards children's output and draws the live status line on stderr.
class Console {
public:
    explicit Console(bool quiet) : quiet_(quiet), tty_(!quiet && isatty(STDERR_FILENO) == 1) {}
    bool tty() const { return tty_; }
    void child_lines(const std::string& label, const std::vector<std::string>& lines) {
        if (quiet_ || lines.empty()) return;
        clear();
        for (auto& l : lines) std::fprintf(stderr, "[%s] %s\n", label.c_str(), l.c_str());
        redraw();
    }
    void message(const std::string& text) {  // always shown, even with --quiet
        clear();
        std::fprintf(stderr, "stallscope-cli: %s\n", text.c_str());
        redraw();
    }
    void status(const std::string& line) {
        if (!tty_) return;
        last_ = line;
        redraw();
    }
    void end_status() {
        clear();
        last_.clear();
    }

private:
    void clear() {
        if (tty_ && shown_) std::fputs("\r\033[K", stderr);
        shown_ = false;
    }
    void redraw() {
        if (!tty_ || last_.empty()) return;
        // One line only: cut to the terminal width so \r redraws cleanly.
        std::string l = last_;
        if (l.size() > 160) l.resize(160);
        std::fprintf(stderr, "\r\033[K%s", l.c_str());
        std::fflush(stderr);
        shown_ = true;
    }
    bool quiet_, tty_, shown_ = false;
    std::string last_;
};

bool parse_options(Args& a, Options& o, int& rc) {
    rc = kExitUsage;
    auto num = [&](const std::string& opt, double& out, bool positive) {
        std::string v;
        if (!a.value(opt, v)) return false;
        if (!parse_double(v, out) || out < 0 || (positive && out <= 0)) {
            usage_error("capture", opt + " needs a " + (positive ? "positive " : "") + "number of seconds, not '" + v + "'");
            return false;
        }
        return true;
    };
    auto u64 = [&](const std::string& opt, uint64_t& out, uint64_t lo, uint64_t hi) {
        std::string v;
        if (!a.value(opt, v)) return false;
        if (!parse_u64(v, out) || out < lo || out > hi) {
            usage_error("capture", opt + " needs a number " + std::to_string(lo) + ".." + std::to_string(hi) + ", not '" + v + "'");
            return false;
        }
        return true;
    };
    while (!a.done()) {
        std::string s = a.next();
        if (s == "-h" || s == "--help") {
            std::fputs(kHelp, stdout);
            rc = kExitOk;
            return false;
        }
        if (s == "-i" || s == "--iface" || s == "--interface") { if (!a.value(s, o.iface)) return false; }
        else if (s == "-f" || s == "--filter") { if (!a.value(s, o.filter)) return false; }
        else if (s == "-w" || s == "--write") { if (!a.value(s, o.out)) return false; }
        else if (s == "--server") { if (!a.value(s, o.server_cmd)) return false; }
        else if (s == "--run") { if (!a.value(s, o.run_cmd)) return false; }
        else if (s == "--duration") { if (!num(s, o.duration_s, true)) return false; }
        else if (s == "--server-wait") { if (!num(s, o.server_wait_s, false)) return false; }
        else if (s == "--drain") { if (!num(s, o.drain_s, false)) return false; }
        else if (s == "--buffer-mb") { if (!u64(s, o.buffer_mb, 1, 2047)) return false; }
        else if (s == "--snaplen") { if (!u64(s, o.snaplen, 64, 262144)) return false; }
        else if (s == "-b" || s == "--ring-buffer") {
            std::string v;
            if (!a.value(s, v)) return false;
            if (!parse_ring(v, o.ring)) {
                usage_error("capture", s + " takes filesize:KB or files:N (positive numbers), not '" + v + "'");
                return false;
            }
        }
        else if (s == "--keylog") { if (!a.value(s, o.keylog)) return false; }
        else if (s == "--no-keylog") o.no_keylog = true;
        else if (s == "--json") o.json = true;
        else if (s == "--quiet" || s == "-q") o.quiet = true;
        else { usage_error("capture", "unknown argument '" + s + "'"); return false; }
    }
    if (o.out.empty()) { usage_error("capture", "-w OUT.pcapng is required"); return false; }
    if (o.iface.empty()) { usage_error("capture", "--iface needs an interface name"); return false; }
    if (o.ring.files && !o.ring.enabled()) { usage_error("capture", "-b files:N needs -b filesize:KB (when to switch files)"); return false; }
    if (o.no_keylog && !o.keylog.empty()) { usage_error("capture", "--keylog and --no-keylog exclude each other"); return false; }
    if (o.keylog.empty() && !o.no_keylog && (!o.server_cmd.empty() || !o.run_cmd.empty()))
        o.keylog = live::keylog_path_beside(o.out);
    if (!o.keylog.empty() && o.keylog == o.out) { usage_error("capture", "--keylog must not be the capture file"); return false; }
    return true;
}

// "a ring of files run_NNNNN_YYYYmmddHHMMSS.pcapng of 1000 kB (the newest 5 kept)"
std::string ring_description(const std::string& out, const RingOptions& ring) {
    std::string name = PcapngRingWriter::ring_file_name(out, 1, 0);
    const std::string ext = std::filesystem::path(out).extension().string();
    name = name.substr(0, name.size() - ext.size() - 21) + "_NNNNN_YYYYmmddHHMMSS" + ext;
    return "a ring of files " + name + " of " + std::to_string(ring.file_bytes / 1000) + " kB" +
           (ring.files ? " (the newest " + std::to_string(ring.files) + " kept)" : "");
}

// A ring's report is the analysis of the files it kept (what is on disk),
// with the live run's own warnings (drops, write errors, commands).
bool analyse_kept_files(const live::ScenarioOutcome& out, AnalysisResult& result, std::string& error) {
    AnalysisOptions opt;
    opt.threads = default_analysis_threads();
    AnalyzeOutcome kept = analyze_files(out.files, opt);
    if (!kept.ok) {
        error = kept.error;
        return false;
    }
    result = std::move(kept.result);
    if (out.files_deleted)
        result.capture.warnings.push_back({WarningCode::LiveRun, "ring buffer: the " + std::to_string(out.files_deleted) +
                                               " oldest files were deleted (-b files:N); this report covers the " +
                                               std::to_string(out.files.size()) + " files kept",
                                           0, 0, 0});
    for (const Warning& w : out.result.capture.warnings)
        if (w.code == WarningCode::LiveRun || w.code == WarningCode::LiveWriteFailed) result.capture.warnings.push_back(w);
    return true;
}

std::atomic<live::ScenarioRunner*> g_runner{nullptr};  // lock-free: usable in the handler

void on_signal(int sig) {
    if (live::ScenarioRunner* r = g_runner.load()) r->request_stop(sig);
}

int capture_main(const Options& o) {
    live::ScenarioOptions so;
    so.session.capture.iface = o.iface;
    so.session.capture.filter = o.filter;
    so.session.capture.buffer_bytes = int(o.buffer_mb << 20);
    so.session.capture.snaplen = int(o.snaplen);
    so.session.out_path = o.out;
    so.session.ring = o.ring;
    so.session.application = "stallscope-cli 0.1.0 capture";
    so.session.keylog_path = o.keylog;
    so.server_cmd = o.server_cmd;
    so.run_cmd = o.run_cmd;
    so.duration_s = o.duration_s;
    so.server_wait_s = o.server_wait_s;
    so.drain_s = o.drain_s;

    Console con(o.quiet);
    live::ScenarioRunner runner(so);
    runner.on_output = [&](const std::string& label, const std::string& line) { con.child_lines(label, {line}); };
    runner.on_message = [&](const std::string& m) { con.message(m); };
    runner.on_capturing = [&] {
        if (!o.quiet)
            con.message("capturing on " + o.iface + (o.filter.empty() ? "" : " (filter '" + o.filter + "')") +
                        " into " + (o.ring.enabled() ? ring_description(o.out, o.ring) : o.out) +
                        (o.keylog.empty() ? "" : "; the commands' TLS key log (SSLKEYLOGFILE): " + o.keylog) +
                        (o.run_cmd.empty() && o.duration_s == 0 ? "; Ctrl-C (SIGINT/SIGTERM) stops" : ""));
    };
    if (con.tty())
        runner.on_status = [&](const live::SessionStatus& st, const AnalysisResult& snap) {
            con.status(live::status_line(st, snap));
        };

    // With --run, note which TCP ports the run used, in case the filter misses them.
    live::PortCensus census;
    const bool counting = !o.run_cmd.empty() && census.start(o.iface);
    g_runner = &runner;
    live::ScenarioOutcome out = runner.run();
    g_runner = nullptr;
    census.stop();
    con.end_status();

    if (!out.opened) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", out.error.c_str());
        if (out.open_error == LiveCapture::OpenError::Permission)
            std::fprintf(stderr,
                         "stallscope-cli: live capture needs CAP_NET_RAW and CAP_NET_ADMIN: run it as root, or grant "
                         "them once with\n  sudo setcap cap_net_raw,cap_net_admin=eip \"$(command -v stallscope-cli)\"\n");
        return kExitInput;
    }
    if (!out.captured) return kExitInput;  // the server never came up (said so already)
    AnalysisResult kept_result;
    if (o.ring.enabled() && out.status.packets > 0) {
        std::string err;
        if (!analyse_kept_files(out, kept_result, err)) {
            std::fprintf(stderr, "stallscope-cli: error: the ring's files could not be analysed: %s\n", err.c_str());
            return kExitInput;
        }
    }
    const AnalysisResult& result = o.ring.enabled() && out.status.packets > 0 ? kept_result : out.result;
    const std::string& named = o.ring.enabled() && !out.files.empty() ? out.files.front() : o.out;   // a ring: its first kept file
    if (!o.quiet || out.status.failed) print_warnings(named, result.capture.warnings);
    if (!o.quiet) {
        const std::string into = o.ring.enabled() && !out.files.empty() ? std::to_string(out.files.size()) + " file(s) kept, " + out.files.front() +
                                                        (out.files.size() > 1 ? " ... " + out.files.back() : "")
                                                  : o.out;
        std::fprintf(stderr, "stallscope-cli: captured %llu packets on %s in %.1f s into %s (%s); %s\n",
                     (unsigned long long)out.status.packets, o.iface.c_str(), out.status.elapsed_s, into.c_str(),
                     live::human_bytes(result.capture.bytes).c_str(), out.stop_reason.c_str());
    }
    if (!o.quiet && out.status.keylog_lines > 0)
        std::fprintf(stderr, "stallscope-cli: %llu TLS key log lines kept in %s and embedded in %s\n",
                     (unsigned long long)out.status.keylog_lines, o.keylog.c_str(), (o.ring.enabled() ? "the ring's files" : o.out.c_str()));
    const std::string text = o.json ? report_json(result) : report_text(result);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (out.failed) return kExitInput;
    // A run that worked but left nothing to analyse is a failed measurement,
    // most often a filter that names another port than the one the run used.
    // (The live analysis saw every packet; a ring's kept files may hold fewer calls.)
    if (out.run_succeeded && (out.status.packets == 0 || call_count(out.result) == 0)) {
        const std::string what = out.status.packets == 0
                                     ? (o.filter.empty() ? "nothing was captured" : "the filter '" + o.filter + "' matched no packet")
                                     : "no HTTP call was captured (" + std::to_string(out.status.packets) + " packets)";
        std::fprintf(stderr, "stallscope-cli: error: the run command succeeded but %s on %s; %s\n", what.c_str(),
                     o.iface.c_str(), counting ? census.describe(o.iface).c_str() : "the ports used could not be observed");
        return kExitInput;
    }
    return kExitOk;
}

} // namespace

int cmd_capture(Args& a) {
    Options o;
    int rc = kExitUsage;
    if (!parse_options(a, o, rc)) return rc;

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int {}, old_term {}, old_hup {}, old_pipe {};
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    const int result = capture_main(o);
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    sigaction(SIGPIPE, &old_pipe, nullptr);
    return result;
}

} // namespace stallscope::cli
