#pragma once
// One live capture: libpcap -> pcapng file (as packets come) -> Analyzer,
// with thread-safe snapshots for a live view. Two threads: the capture
// thread only writes the file and queues a copy of each packet, the
// analysis thread works the queue off. The analysis of big SOAP bodies can
// be slower than the wire (about 1 ms per 27 KB packet measured); coupled
// to it, the kernel ring overflowed and the file lost packets. Now the file
// keeps up and the analysis catches up later (up to kMaxBacklogBytes
// behind; beyond that the capture thread waits and the kernel may drop,
// which is reported). Shared by `stallscope-cli capture` and the GUI; no
// Qt, no child processes (see live_child.h).
#include "analyzers/pipeline/analyze_capture.h"
#include "app/live/live_keylog.h"
#include "capture/pcap/live_capture.h"
#include "capture/pcap/pcapng_ring_writer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stallscope {
class Analyzer;
}

namespace stallscope::live {

struct SessionOptions {
    LiveCaptureOptions capture;
    std::string out_path;               // the pcapng written as packets come
    RingOptions ring;                   // a ring of files named after out_path instead (pcapng_ring_writer.h)
    AnalysisOptions analysis;
    std::string application = "stallscope";  // written into the pcapng's SHB
    // TLS key log the commands write (their SSLKEYLOGFILE; "" = none). It is
    // created empty at open(), read as it grows, and each batch of new lines
    // is written into the pcapng as a Decryption Secrets Block and given to
    // the analysis before the packets released after it. Packets are held
    // keylog_hold_ms (by capture time) first: a TLS 1.3 client logs its
    // handshake secrets only after the ServerHello arrived, so the packet
    // carrying the server's first encrypted records is captured before its key.
    std::string keylog_path;
    int keylog_hold_ms = 100;
};

// Counters for a status line; cheap to get.
struct SessionStatus {
    uint64_t packets = 0;               // captured (and written)
    uint64_t analysed = 0;              // of which analysed so far
    uint64_t file_bytes = 0;
    uint64_t keylog_lines = 0;          // key log lines embedded in the file so far
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
    // Stops capturing (promptly, even on a quiet interface), then waits
    // until the analysis has worked off its backlog. Safe to call twice.
    void stop();

    SessionStatus status() const;
    // Everything analysed so far, open calls included (provisional).
    AnalysisResult snapshot() const;
    // After stop(): closes the file (with interface statistics) and returns
    // the final analysis, with kernel drops, an interface failure and file
    // write errors among its warnings. Call once.
    AnalysisResult finish();

    const SessionOptions& options() const { return opt_; }
    // After finish(): the files written and still on disk, oldest first
    // (out_path alone without a ring), and how many the ring deleted.
    std::vector<std::string> files() const { return writer_ ? writer_->files() : std::vector<std::string>{}; }
    uint64_t files_deleted() const { return writer_ ? writer_->files_deleted() : 0; }

private:
    static constexpr size_t kMaxBacklogBytes = 512u << 20;
    static constexpr size_t kMaxHeld = 65536;  // packets held for their keys, at most
    struct Queued {
        Frame frame;                    // data points into bytes
        std::vector<uint8_t> bytes;
    };
    void capture_main();
    void analysis_main();
    // Capture thread: new key log lines into the file and the key store,
    // then the held packets older than the hold (all when `all`) out.
    void release(bool all);
    void write_and_queue(Queued q);

    SessionOptions opt_;
    std::unique_ptr<LiveCapture> cap_;
    std::unique_ptr<PcapngRingWriter> writer_;  // capture thread only (until finish)
    std::unique_ptr<Analyzer> analyzer_;
    KeyLogTail keylog_;                 // capture thread only (until finish)
    std::deque<Queued> held_;           // capture thread only: packets waiting for their keys
    std::vector<std::string> key_warnings_;  // malformed key log lines (guarded by smu_)
    std::thread capture_thread_, analysis_thread_;
    mutable std::mutex mu_;             // guards analyzer_ (held while analysing a batch)
    std::atomic<uint64_t> analysed_{0};
    // The capture thread never waits for mu_: it has its own lock.
    mutable std::mutex smu_;            // guards the counters and errors below
    uint64_t packets_ = 0, file_bytes_ = 0, keylog_lines_ = 0;
    LiveStats kernel_;
    bool failed_ = false;
    std::string run_error_, write_error_;
    std::mutex qmu_;                    // guards the queue
    std::condition_variable qcv_;       // queue: not empty / not full / done
    std::deque<Queued> queue_;
    size_t queued_bytes_ = 0;
    bool capture_done_ = false;
    std::atomic<bool> capturing_{false};
    int64_t start_mono_ns_ = 0, stop_mono_ns_ = 0;
    int64_t start_wall_ns_ = 0, stop_wall_ns_ = 0;
    bool finished_ = false;
};

} // namespace stallscope::live
