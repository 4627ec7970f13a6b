#include "app/live/live_scenario.h"

#include "app/live/live_child.h"
#include "app/live/live_ports.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <unistd.h>

namespace stallscope::live {

namespace {

int64_t mono_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

std::string stop_text(int sig) {
    if (sig == SIGINT) return "stopped by SIGINT";
    if (sig == SIGTERM) return "stopped by SIGTERM";
    if (sig == SIGHUP) return "stopped by SIGHUP";
    if (sig > 0) return "stopped by signal " + std::to_string(sig);
    return "stopped on request";
}

} // namespace

struct ScenarioRunner::Impl {
    ScenarioRunner& owner;
    ScenarioOptions o;
    Session session;
    ChildProcess server{"server"}, client{"run"};
    int wake[2] = {-1, -1};
    std::atomic<bool> stop{false};
    std::atomic<int> stop_signal{0};

    Impl(ScenarioRunner& r, ScenarioOptions opt) : owner(r), o(std::move(opt)) {
        if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) wake[0] = wake[1] = -1;
    }
    ~Impl() {
        // Children first (their destructors stop their groups), then the capture.
        client.terminate();
        server.terminate();
        session.stop();
        if (wake[0] >= 0) ::close(wake[0]);
        if (wake[1] >= 0) ::close(wake[1]);
    }

    void message(const std::string& m) {
        if (owner.on_message) owner.on_message(m);
    }
    void forward() {
        std::vector<std::string> lines;
        for (ChildProcess* c : {&server, &client}) {
            lines.clear();
            c->read_output(lines);
            if (owner.on_output)
                for (auto& l : lines) owner.on_output(c->label(), l);
        }
    }
    // Waits up to ms for a stop request or child output, then forwards it.
    void pump(int ms) {
        pollfd fds[3];
        nfds_t n = 0;
        if (wake[0] >= 0) fds[n++] = {wake[0], POLLIN, 0};
        for (ChildProcess* c : {&server, &client})
            if (c->output_fd() >= 0) fds[n++] = {c->output_fd(), POLLIN, 0};
        if (n) ::poll(fds, n, ms);
        else ::usleep(useconds_t(ms) * 1000);
        if (wake[0] >= 0) {
            char buf[16];
            while (::read(wake[0], buf, sizeof buf) > 0) {
            }
        }
        forward();
    }

    // Until the server listens on a port of the filter (or 0.5 s when the
    // filter names none). False (message given) when it exits or never listens.
    bool wait_for_server() {
        const std::vector<int> ports = filter_ports(o.session.capture.filter);
        const int64_t deadline = mono_ms() + (ports.empty() ? 500 : int64_t(o.server_wait_s * 1000));
        for (;;) {
            if (stop) return true;  // the caller winds down
            if (server.check_exited()) {
                forward();
                message("error: the server command " + server.describe_exit() + " before the capture started: " +
                        o.server_cmd);
                return false;
            }
            for (int p : ports)
                if (tcp_port_listening(p)) return true;
            if (mono_ms() >= deadline) break;
            pump(50);
        }
        if (ports.empty()) return true;
        std::string list;
        for (int p : ports) list += (list.empty() ? "" : ", ") + std::to_string(p);
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", o.server_wait_s);
        message("error: the server command is running but nothing listens on port " + list + " after " + secs +
                " s: " + o.server_cmd);
        return false;
    }

    // What the commands get on top of our environment: the key log to write.
    std::vector<std::string> child_env() const {
        if (o.session.keylog_path.empty()) return {};
        return {"SSLKEYLOGFILE=" + o.session.keylog_path};
    }

    // The server command up and listening; false (out filled in: an empty
    // capture, nothing run) when it could not start or never listened.
    bool start_server(ScenarioOutcome& out) {
        if (o.server_cmd.empty()) return true;
        std::string err;
        bool server_ok = server.start(o.server_cmd, err, child_env());
        if (!server_ok) message("error: cannot start the server command: " + err);
        else server_ok = wait_for_server();
        if (server_ok) return true;
        out.failed = true;
        server.terminate();
        forward();
        out.stop_reason = "the server command did not come up";
        out.result = session.finish();
        out.status = session.status();
        out.files = session.files();
        return false;
    }

    // The run (client) or the server ended: the capture drains a little
    // longer. Returns the drain deadline, or -1 while both go on.
    int64_t ended(ScenarioOutcome& out, int64_t now) {
        if (client.started() && client.check_exited()) {
            out.run_succeeded = !client.failed();
            if (client.failed()) {
                message("error: the run command " + client.describe_exit() + ": " + o.run_cmd);
                out.failed = true;
            }
            return now + int64_t(o.drain_s * 1000);
        }
        if (server.started() && server.check_exited()) {  // the scenario cannot go on without its server
            if (server.failed()) {
                message("error: the server command " + server.describe_exit() + " during the capture: " + o.server_cmd);
                out.failed = true;
            } else {
                message("the server command " + server.describe_exit() + "; stopping");
            }
            return now + int64_t(o.drain_s * 1000);
        }
        return -1;
    }

    std::string drained_reason() const {
        if (client.started() && client.exited()) return "the run command " + client.describe_exit();
        if (server.started() && server.exited()) return "the server command " + server.describe_exit();
        return "a command could not be started";
    }

    // Watches the capture and the commands until a stop, a failure, the
    // duration, or the drain after a command ended; says why in `out`.
    void watch(ScenarioOutcome& out, std::vector<std::string>& notes, int64_t t0) {
        int64_t stop_at = !o.run_cmd.empty() && !client.started() ? mono_ms() : -1;  // drain deadline
        int64_t next_status = 0;
        for (;;) {
            pump(100);
            const int64_t now = mono_ms();
            if (stop) {
                out.stop_reason = stop_text(stop_signal.load());
                if (client.started() && !client.check_exited())
                    notes.push_back(out.stop_reason + " before the run command ended");
                return;
            }
            const SessionStatus st = session.status();
            if (st.failed) {
                out.stop_reason = "the interface failed: " + st.error;
                return;
            }
            if (stop_at < 0) stop_at = ended(out, now);
            if (stop_at < 0 && o.duration_s > 0 && now - t0 >= int64_t(o.duration_s * 1000)) {
                out.stop_reason = "duration reached";
                if (client.started() && !client.check_exited())
                    notes.push_back("the duration was reached before the run command ended; it was stopped");
                return;
            }
            if (stop_at >= 0 && now >= stop_at) {
                if (out.stop_reason.empty()) out.stop_reason = drained_reason();
                return;
            }
            if (owner.on_status && o.status_interval_ms > 0 && now >= next_status) {
                owner.on_status(st, session.snapshot());
                next_status = now + o.status_interval_ms;
            }
        }
    }

    // Capture first (nothing more gets in), then the commands; the result.
    void wind_down(ScenarioOutcome& out, const std::vector<std::string>& notes) {
        session.stop();
        forward();
        client.terminate();
        server.terminate();
        forward();
        out.result = session.finish();
        for (auto& n : notes) out.result.capture.warnings.push_back({WarningCode::LiveRun, n, 0, 0, 0});
        for (auto& w : out.result.capture.warnings)
            if (w.code == WarningCode::LiveWriteFailed) out.failed = true;
        out.status = session.status();
        out.files = session.files();
        out.files_deleted = session.files_deleted();
    }

    ScenarioOutcome run() {
        ScenarioOutcome out;
        if (!o.session.keylog_path.empty()) {
            // Absolute: a command may change its directory before it opens it.
            std::error_code ec;
            const auto abs = std::filesystem::absolute(o.session.keylog_path, ec);
            if (!ec) o.session.keylog_path = abs.string();
        }
        if (!session.open(o.session, out.error, &out.open_error)) return out;
        out.opened = true;
        if (!start_server(out)) return out;
        session.start();
        out.captured = true;
        if (owner.on_capturing) owner.on_capturing();
        const int64_t t0 = mono_ms();
        std::string err;
        if (!o.run_cmd.empty() && !stop && !client.start(o.run_cmd, err, child_env())) {
            message("error: cannot start the run command: " + err);
            out.failed = true;
        }
        std::vector<std::string> notes;  // go into the report's warnings
        watch(out, notes, t0);
        wind_down(out, notes);
        return out;
    }
};

ScenarioRunner::ScenarioRunner(ScenarioOptions options) : impl_(new Impl(*this, std::move(options))) {}

ScenarioRunner::~ScenarioRunner() { delete impl_; }

ScenarioOutcome ScenarioRunner::run() { return impl_->run(); }

void ScenarioRunner::request_stop(int sig) {
    impl_->stop_signal.store(sig);
    impl_->stop.store(true);
    if (impl_->wake[1] >= 0) {
        const char c = 1;
        ssize_t r = ::write(impl_->wake[1], &c, 1);
        (void)r;
    }
}

} // namespace stallscope::live
