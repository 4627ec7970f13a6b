#include "app/live/live_child.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace stallscope::live {

namespace {
constexpr size_t kMaxLine = 4096;  // longer lines are cut: the output is a log, not data

// Does process group pgid have a member that is not a zombie? (kill(-pgid, 0)
// cannot tell: our unreaped zombie leader counts as a member.)
bool group_has_live_members(pid_t pgid) {
    DIR* d = ::opendir("/proc");
    if (!d) return false;
    bool found = false;
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char buf[512];
        const ssize_t n = ::read(fd, buf, sizeof buf - 1);
        ::close(fd);
        if (n <= 0) continue;
        buf[n] = 0;
        // "pid (comm) S ppid pgrp ...": comm may contain spaces and ')'.
        const char* rp = std::strrchr(buf, ')');
        char state = 0;
        int ppid = 0, pgrp = 0;
        if (!rp || std::sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
        if (pgrp == pgid && state != 'Z' && state != 'X') {
            found = true;
            break;
        }
    }
    ::closedir(d);
    return found;
}
}

ChildProcess::~ChildProcess() { terminate(); }

bool ChildProcess::start(const std::string& command, std::string& error, const std::vector<std::string>& env) {
    if (pid_ > 0) {
        error = label_ + ": already started";
        return false;
    }
    command_ = command;
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        error = label_ + ": pipe: " + std::strerror(errno);
        return false;
    }
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = ::getpid();
    // The command runs in a subshell the shell waits for, so that the shell
    // can pass a SIGTERM on to the whole group: it gets one from the kernel
    // when we die, even by SIGKILL (PR_SET_PDEATHSIG below), and a plain
    // "sh -c CMD" would die alone and leave CMD's processes running.
    const std::string script = "trap 'trap - TERM HUP; kill -TERM 0' TERM HUP\n{\n" + command + "\n} &\nwait $!\n";
    const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
    // The environment is built here: after fork only async-signal-safe calls.
    std::vector<const char*> envp;
    auto overridden = [&](const char* var) {
        for (const std::string& e : env) {
            const size_t eq = e.find('=');
            if (eq != std::string::npos && std::strncmp(var, e.c_str(), eq + 1) == 0) return true;
        }
        return false;
    };
    for (char** v = environ; v && *v; ++v)
        if (!overridden(*v)) envp.push_back(*v);
    for (const std::string& e : env) envp.push_back(e.c_str());
    envp.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        error = label_ + ": fork: " + std::strerror(errno);
        ::close(pipefd[0]);
        ::close(pipefd[1]);
        if (devnull >= 0) ::close(devnull);
        return false;
    }
    if (pid == 0) {
        // Child: async-signal-safe calls only (the parent may have threads).
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the shell goes if we die
        if (::getppid() != parent) ::_exit(127);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);  // ignored signals would survive exec
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        if (devnull >= 0) ::dup2(devnull, 0);
        ::dup2(pipefd[1], 1);
        ::dup2(pipefd[1], 2);
        ::syscall(SYS_close_range, 3u, ~0u, 0u);  // no capture socket, no files of ours
        ::execve("/bin/sh", const_cast<char* const*>(argv), const_cast<char* const*>(envp.data()));
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: no race with our first kill(-pid)
    ::close(pipefd[1]);
    if (devnull >= 0) ::close(devnull);
    out_fd_ = pipefd[0];
    ::fcntl(out_fd_, F_SETFL, ::fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
    pid_ = pid;
    return true;
}

void ChildProcess::read_output(std::vector<std::string>& lines) {
    if (out_fd_ < 0) return;
    char buf[4096];
    for (int i = 0; i < 64; ++i) {  // bounded per call; the rest comes next time
        const ssize_t n = ::read(out_fd_, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            break;  // treat as EOF
        }
        if (n == 0) break;
        for (ssize_t k = 0; k < n; ++k) {
            if (buf[k] == '\n') {
                lines.push_back(std::move(partial_));
                partial_.clear();
            } else if (partial_.size() < kMaxLine) {
                partial_ += buf[k];
            }
        }
        if (i == 63) return;
    }
    // EOF (every holder of the write end has gone)
    if (!partial_.empty()) lines.push_back(std::move(partial_));
    partial_.clear();
    ::close(out_fd_);
    out_fd_ = -1;
}

void ChildProcess::note_status(int code, bool by_signal) {
    exited_ = true;
    code_ = code;
    by_signal_ = by_signal;
}

bool ChildProcess::check_exited() {
    if (pid_ <= 0 || exited_) return exited_;
    siginfo_t si{};
    // WNOWAIT: look without reaping, so the group id stays ours.
    if (::waitid(P_PID, id_t(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid_) {
        if (si.si_code == CLD_EXITED) note_status(si.si_status, false);
        else note_status(si.si_status, true);
    }
    return exited_;
}

std::string ChildProcess::describe_exit() const {
    if (pid_ <= 0) return "was not started";
    if (!exited_) return "is still running";
    if (by_signal_) {
        const char* name = strsignal(code_);
        return "was killed by signal " + std::to_string(code_) + (name ? std::string(" (") + name + ")" : "");
    }
    std::string s = "exited with status " + std::to_string(code_);
    if (code_ == 127) s += " (command not found)";
    else if (code_ == 126) s += " (command not executable)";
    return s;
}

bool ChildProcess::failed() const {
    if (!exited_ || terminated_by_us_) return false;
    return by_signal_ || code_ != 0;
}

void ChildProcess::terminate(int grace_ms) {
    if (pid_ <= 0 || reaped_) return;
    check_exited();
    if (!exited_) terminated_by_us_ = true;
    // The group may outlive its leader (a script's background server).
    ::kill(-pid_, SIGTERM);
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::milliseconds(grace_ms);
    while (clock::now() < deadline) {
        if (check_exited() && !group_has_live_members(pid_)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited_ || group_has_live_members(pid_)) ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (!exited_) {
        if (WIFEXITED(status)) note_status(WEXITSTATUS(status), false);
        else if (WIFSIGNALED(status)) note_status(WTERMSIG(status), true);
    }
    reaped_ = true;
    if (out_fd_ >= 0) {
        std::vector<std::string> rest;
        read_output(rest);  // drop: the caller read what it wanted before
        if (out_fd_ >= 0) {
            ::close(out_fd_);
            out_fd_ = -1;
        }
    }
}

} // namespace stallscope::live
