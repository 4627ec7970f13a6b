#pragma once
// One live capture: libpcap -> pcapng file (as packets come) -> Analyzer,
// on a capture thread of its own, with thread-safe snapshots for a live
// view. Shared by `stallscope-cli capture` and the GUI's capture dialog; no
// Qt, no child processes (see live_child.h).
#include "analyzers/analyze.h"
#include "capture/pcap/live_capture.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace stallscope {
class Analyzer;
class PcapngStreamWriter;
}

namespace stallscope::live {

struct SessionOptions {
    LiveCaptureOptions capture;
    std::string out_path;               // the pcapng written as packets come
    AnalysisOptions analysis;
    std::string application = "stallscope";  // written into the pcapng's SHB
};

// Counters for a status line; cheap to get.
struct SessionStatus {
    uint64_t packets = 0;
    uint64_t file_bytes = 0;
    LiveStats kernel;                   // last pcap_stats (taken on the capture thread)
    bool capturing = false;             // the capture thread is running
    bool failed = false;                // the interface failed (error says how)
    std::string error;
    double elapsed_s = 0;               // since start()
};

class Session {
public:
    Session();
    ~Session();  // stop()

    // Opens the interface (permissions, interface, filter are checked here)
    // and creates the file. False with error and kind set on failure; the
    // file is not touched when the interface cannot be opened.
    bool open(const SessionOptions& options, std::string& error, LiveCapture::OpenError* kind = nullptr);
    // Starts the capture thread (packets buffered by the kernel since open() are kept).
    void start();
    // Stops the capture thread and waits for it (returns promptly even on a
    // quiet interface). Safe to call more than once.
    void stop();

    SessionStatus status() const;
    // Everything analysed so far, open calls included (provisional).
    AnalysisResult snapshot() const;
    // After stop(): closes the file (with interface statistics) and returns
    // the final analysis, with kernel drops, an interface failure and file
    // write errors among its warnings. Call once.
    AnalysisResult finish();

    const SessionOptions& options() const { return opt_; }

private:
    void thread_main();

    SessionOptions opt_;
    std::unique_ptr<LiveCapture> cap_;
    std::unique_ptr<PcapngStreamWriter> writer_;
    std::unique_ptr<Analyzer> analyzer_;
    std::thread thread_;
    mutable std::mutex mu_;             // guards analyzer_, status fields below
    uint64_t packets_ = 0, file_bytes_ = 0;
    LiveStats kernel_;
    bool failed_ = false;
    std::string run_error_, write_error_;
    std::atomic<bool> capturing_{false};
    int64_t start_mono_ns_ = 0, stop_mono_ns_ = 0;
    int64_t start_wall_ns_ = 0, stop_wall_ns_ = 0;
    bool finished_ = false;
};

} // namespace stallscope::live
