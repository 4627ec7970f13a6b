// stallscope-cli capture: live capture of a running scenario with a running
// report. Behaviour and exit codes: docs/live-capture.md.
#include "analyzers/report.h"
#include "app/cli/cli_args.h"
#include "app/cli/live_child.h"
#include "app/cli/live_ports.h"
#include "app/cli/live_session.h"
#include "app/cli/live_status.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <unistd.h>

namespace stallscope::cli {

namespace {

const char* kHelp =
    "usage: stallscope-cli capture --iface IF -w OUT.pcapng [--filter EXPR] [--server CMD] [--run CMD]\n"
    "                              [--duration S] [--json] [--quiet] [--buffer-mb N] [--snaplen N]\n"
    "                              [--server-wait S] [--drain S]\n"
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
    "  --buffer-mb N       kernel capture buffer (default 32)\n"
    "  --snaplen N         bytes kept per packet (default 262144)\n"
    "  --server-wait S     longest wait for the server to listen (default 10)\n"
    "  --drain S           capture this long after --run ends (default 0.5)\n"
    "The live status line is shown when stderr is a terminal; the final report goes to\n"
    "stdout as with 'analyze'.\n"
    "exit status: 0 captured and analysed (also when the interface went away: a warning\n"
    "says so), 1 capture not possible (permission, interface, filter, file) or a command\n"
    "failed (its exit status is reported), 2 usage error\n";

volatile sig_atomic_t g_signal = 0;
int g_wake_write = -1;

void on_signal(int sig) {
    g_signal = sig;
    if (g_wake_write >= 0) {
        const char c = 1;
        ssize_t r = ::write(g_wake_write, &c, 1);
        (void)r;
    }
}

struct Options {
    std::string iface = "lo", filter, out, server_cmd, run_cmd;
    double duration_s = 0, server_wait_s = 10, drain_s = 0.5;
    bool json = false, quiet = false;
    uint64_t buffer_mb = 32, snaplen = 262144;
};

int64_t mono_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
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
        else if (s == "--json") o.json = true;
        else if (s == "--quiet" || s == "-q") o.quiet = true;
        else { usage_error("capture", "unknown argument '" + s + "'"); return false; }
    }
    if (o.out.empty()) { usage_error("capture", "-w OUT.pcapng is required"); return false; }
    if (o.iface.empty()) { usage_error("capture", "--iface needs an interface name"); return false; }
    if (o.server_cmd.empty() && o.run_cmd.empty() && o.duration_s == 0 && isatty(STDIN_FILENO) != 1)
        std::fprintf(stderr, "stallscope-cli capture: no --run or --duration: capturing until SIGINT/SIGTERM\n");
    return true;
}

// Everything the capture started, stopped on every way out (destructors
// too: a ChildProcess terminates its group when destroyed).
struct Run {
    Options o;
    Console con;
    live::Session session;
    live::ChildProcess server{"server"}, client{"run"};
    int wake_read = -1;
    explicit Run(const Options& opt) : o(opt), con(opt.quiet) {}

    // Waits up to ms for a signal, child output or a child exit; forwards output.
    void pump(int ms) {
        pollfd fds[3];
        int n = 0;
        fds[n++] = {wake_read, POLLIN, 0};
        const int sfd = server.output_fd(), cfd = client.output_fd();
        if (sfd >= 0) fds[n++] = {sfd, POLLIN, 0};
        if (cfd >= 0) fds[n++] = {cfd, POLLIN, 0};
        if (::poll(fds, nfds_t(n), ms) > 0 && (fds[0].revents & POLLIN)) {
            char buf[16];
            while (::read(wake_read, buf, sizeof buf) > 0) {
            }
        }
        forward();
    }
    void forward() {
        std::vector<std::string> lines;
        server.read_output(lines);
        con.child_lines("server", lines);
        lines.clear();
        client.read_output(lines);
        con.child_lines("run", lines);
    }
};

// Waits for the server: until it listens on a port of the filter, or a
// short fixed time when the filter names no port. False (message printed)
// when it exits or never listens.
bool wait_for_server(Run& r) {
    const std::vector<int> ports = live::filter_ports(r.o.filter);
    const int64_t deadline = mono_ms() + (ports.empty() ? 500 : int64_t(r.o.server_wait_s * 1000));
    for (;;) {
        if (g_signal) return true;  // stop requested: the caller winds down
        if (r.server.check_exited()) {
            r.forward();
            r.con.message("error: the server command " + r.server.describe_exit() + " before the capture started: " +
                          r.o.server_cmd);
            return false;
        }
        for (int p : ports)
            if (live::tcp_port_listening(p)) return true;
        if (mono_ms() >= deadline) break;
        r.pump(50);
    }
    if (ports.empty()) return true;
    std::string list;
    for (int p : ports) list += (list.empty() ? "" : ", ") + std::to_string(p);
    r.con.message("error: the server command is running but nothing listens on port " + list + " after " +
                  std::to_string(int(r.o.server_wait_s)) + " s (--server-wait): " + r.o.server_cmd);
    return false;
}

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

int capture_main(Run& r) {
    const Options& o = r.o;
    live::SessionOptions so;
    so.capture.iface = o.iface;
    so.capture.filter = o.filter;
    so.capture.buffer_bytes = int(o.buffer_mb << 20);
    so.capture.snaplen = int(o.snaplen);
    so.out_path = o.out;
    so.application = "stallscope-cli 0.1.0 capture";
    std::string err;
    LiveCapture::OpenError kind = LiveCapture::OpenError::None;
    // The interface, permissions and filter are checked before any command starts.
    if (!r.session.open(so, err, &kind)) {
        std::fprintf(stderr, "stallscope-cli: error: %s\n", err.c_str());
        if (kind == LiveCapture::OpenError::Permission)
            std::fprintf(stderr,
                         "stallscope-cli: live capture needs CAP_NET_RAW and CAP_NET_ADMIN: run it as root, or grant "
                         "them once with\n  sudo setcap cap_net_raw,cap_net_admin=eip \"$(command -v stallscope-cli)\"\n");
        return kExitInput;
    }

    bool failed = false;
    std::vector<std::string> notes;  // why it stopped, for the report's warnings
    if (!o.server_cmd.empty()) {
        if (!r.server.start(o.server_cmd, err)) {
            r.con.message("error: cannot start the server command: " + err);
            return kExitInput;
        }
        if (!wait_for_server(r)) {
            r.server.terminate();
            r.forward();
            return kExitInput;
        }
    }
    r.session.start();
    const int64_t t0 = mono_ms();
    if (!o.run_cmd.empty() && !g_signal) {
        if (!r.client.start(o.run_cmd, err)) {
            r.con.message("error: cannot start the run command: " + err);
            failed = true;
        }
    }

    int64_t stop_at = -1;  // drain deadline once the scenario is over
    int64_t next_status = 0;
    std::string stop_reason;
    for (;;) {
        r.pump(100);
        const int64_t now = mono_ms();
        if (g_signal) {
            stop_reason = std::string("stopped by ") + signal_name(g_signal);
            if (r.client.started() && !r.client.check_exited())
                notes.push_back(stop_reason + " before the run command ended");
            break;
        }
        const live::SessionStatus st = r.session.status();
        if (st.failed) {
            stop_reason = "the interface failed: " + st.error;
            break;
        }
        if (stop_at < 0 && r.client.started() && r.client.check_exited()) {
            stop_at = now + int64_t(o.drain_s * 1000);
            if (r.client.failed()) {
                r.con.message("error: the run command " + r.client.describe_exit() + ": " + o.run_cmd);
                failed = true;
            }
        }
        if (stop_at < 0 && r.server.started() && r.server.check_exited()) {
            // The scenario cannot go on without its server.
            stop_at = now + int64_t(o.drain_s * 1000);
            if (r.server.failed()) {
                r.con.message("error: the server command " + r.server.describe_exit() + " during the capture: " +
                              o.server_cmd);
                failed = true;
            } else {
                r.con.message("the server command " + r.server.describe_exit() + "; stopping");
            }
        }
        if (failed && !r.client.started() && stop_at < 0) stop_at = now;
        if (o.duration_s > 0 && now - t0 >= int64_t(o.duration_s * 1000) && stop_at < 0) {
            stop_reason = "duration reached";
            if (r.client.started() && !r.client.check_exited())
                notes.push_back("--duration reached before the run command ended; it was stopped");
            break;
        }
        if (stop_at >= 0 && now >= stop_at) {
            stop_reason = r.client.started() && r.client.exited() ? "the run command " + r.client.describe_exit()
                        : r.server.started() && r.server.exited() ? "the server command " + r.server.describe_exit()
                                                                   : "a command could not be started";
            break;
        }
        if (r.con.tty() && now >= next_status) {
            r.con.status(live::status_line(st, r.session.snapshot()));
            next_status = now + 250;
        }
    }
    // Capture first (nothing more gets in), then the commands.
    r.session.stop();
    r.con.end_status();
    r.forward();
    r.client.terminate();
    r.server.terminate();
    r.forward();

    AnalysisResult result = r.session.finish();
    for (auto& n : notes) result.capture.warnings.push_back({n, 0, 0, 0});
    const live::SessionStatus st = r.session.status();
    if (!o.quiet || st.failed) {
        for (auto& w : result.capture.warnings)
            std::fprintf(stderr, "stallscope-cli: warning: %s\n", w.message.c_str());
    }
    if (!o.quiet)
        std::fprintf(stderr, "stallscope-cli: captured %llu packets on %s in %.1f s into %s (%s)%s%s\n",
                     (unsigned long long)st.packets, o.iface.c_str(), st.elapsed_s, o.out.c_str(),
                     live::human_bytes(result.capture.bytes).c_str(), stop_reason.empty() ? "" : "; ",
                     stop_reason.c_str());
    const std::string text = o.json ? report_json(result) : report_text(result);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    for (auto& w : result.capture.warnings)
        if (w.message.rfind("writing the capture file failed", 0) == 0) failed = true;
    return failed ? kExitInput : kExitOk;
}

} // namespace

int cmd_capture(Args& a) {
    Options o;
    int rc = kExitUsage;
    if (!parse_options(a, o, rc)) return rc;

    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        std::fprintf(stderr, "stallscope-cli: error: pipe: %s\n", std::strerror(errno));
        return kExitInput;
    }
    g_wake_write = wake[1];
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int {}, old_term {}, old_hup {};
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    std::signal(SIGPIPE, SIG_IGN);

    int result;
    {
        Run r(o);
        r.wake_read = wake[0];
        result = capture_main(r);
        // ~Run: children's groups are terminated, the capture is stopped.
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    g_wake_write = -1;
    ::close(wake[0]);
    ::close(wake[1]);
    return result;
}

} // namespace stallscope::cli
