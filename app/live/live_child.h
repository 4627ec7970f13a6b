#pragma once
// A command line run as a child for a live capture (the server or the
// client of a scenario): run by /bin/sh in its own process group, with
// stdout+stderr merged into a pipe we read. Shell scripts start further
// processes (toolkit servers...), so everything is stopped through the
// process group, and the leader is left unreaped (a zombie) until we are
// done with the group so its id cannot be reused by someone else's process
// while we may still signal it. No Qt: the CLI and the GUI both use it.
#include <string>
#include <sys/types.h>
#include <vector>

namespace stallscope::live {

class ChildProcess {
public:
    explicit ChildProcess(std::string label) : label_(std::move(label)) {}
    ~ChildProcess();  // terminate()
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Starts command with /bin/sh (as an asynchronous list the shell waits
    // for, so SIGINT is ignored in it: stop it with SIGTERM). False with error set when it cannot be
    // started at all (a command that does not exist shows up as exit 127).
    // env: "NAME=value" entries set for the command on top of ours (an
    // entry replaces a variable of the same name), e.g. SSLKEYLOGFILE.
    bool start(const std::string& command, std::string& error, const std::vector<std::string>& env = {});
    bool started() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }
    const std::string& label() const { return label_; }
    const std::string& command() const { return command_; }

    // The read end of the output pipe (non-blocking), -1 after EOF.
    int output_fd() const { return out_fd_; }
    // Reads what is available and appends complete lines (without '\n').
    // At EOF the unfinished last line is appended too.
    void read_output(std::vector<std::string>& lines);

    // True once the child has exited (checked without blocking, not reaped).
    bool check_exited();
    bool exited() const { return exited_; }
    // Exit description: "exited with status 0", "exited with status 127
    // (command not found)", "was killed by signal 9 (Killed)".
    std::string describe_exit() const;
    // Exited by itself with a non-zero status or a signal (before terminate()).
    bool failed() const;
    int exit_code() const { return code_; }
    bool killed_by_signal() const { return by_signal_; }
    bool terminated_by_us() const { return terminated_by_us_; }

    // SIGTERM to the whole group, SIGKILL after grace_ms, then reap. Safe to
    // call twice; only ever signals the group this object started.
    void terminate(int grace_ms = 2000);

private:
    void note_status(int code, bool by_signal);

    std::string label_, command_;
    pid_t pid_ = -1;
    int out_fd_ = -1;
    std::string partial_;
    bool exited_ = false, reaped_ = false, by_signal_ = false, terminated_by_us_ = false;
    int code_ = 0;
};

} // namespace stallscope::live
