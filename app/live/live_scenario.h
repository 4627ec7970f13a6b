#pragma once
// A captured scenario run: open the interface, start the server command and
// wait until it listens, capture, run the client command, stop when it ends
// (plus a drain), on request, on --duration, or when the server or the
// interface goes away; then stop every process it started and finish the
// analysis. The CLI (`capture`) and the GUI (Capture > Start...) both drive
// this; they differ only in how they show the callbacks. No Qt.
#include "app/live/live_session.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace stallscope::live {

struct ScenarioOptions {
    SessionOptions session;
    std::string server_cmd, run_cmd;   // /bin/sh -c command lines; empty = none
    double duration_s = 0;             // 0 = no limit
    double server_wait_s = 10;         // longest wait for the server to listen on the filter's port
    double drain_s = 0.5;              // capture this long after the run command ends
    int status_interval_ms = 250;      // on_status period
};

struct ScenarioOutcome {
    bool opened = false;               // false: nothing was captured; error says why
    std::string error;
    LiveCapture::OpenError open_error = LiveCapture::OpenError::None;
    bool captured = false;             // the capture ran (false: the server never came up)
    bool failed = false;               // a command failed or the file could not be written (exit 1)
    bool run_succeeded = false;        // the run command ran and exited with status 0
    std::string stop_reason;           // "the run command exited with status 0", "stopped by SIGINT"...
    SessionStatus status;              // final counters
    AnalysisResult result;             // the final analysis (also when failed)
    std::vector<std::string> files;    // the files written and kept, oldest first
    uint64_t files_deleted = 0;        // by the ring (SessionOptions::ring)
};

class ScenarioRunner {
public:
    explicit ScenarioRunner(ScenarioOptions options);
    ~ScenarioRunner();
    ScenarioRunner(const ScenarioRunner&) = delete;
    ScenarioRunner& operator=(const ScenarioRunner&) = delete;

    // Called on the thread that calls run().
    std::function<void(const std::string& label, const std::string& line)> on_output;  // a child's output line
    std::function<void(const std::string& text)> on_message;  // "error: ..." and notes
    std::function<void()> on_capturing;                       // the capture is on
    std::function<void(const SessionStatus&, const AnalysisResult&)> on_status;  // every status_interval_ms

    ScenarioOutcome run();
    // Ends run() soon (from any thread, or a signal handler: async-signal-safe).
    // sig: the signal that asked (0 = a user action), named in stop_reason.
    void request_stop(int sig = 0);

private:
    struct Impl;
    Impl* impl_;
};

} // namespace stallscope::live
