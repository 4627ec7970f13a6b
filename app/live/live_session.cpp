#include "app/live/live_session.h"

#include "analyzers/pipeline/streaming_analysis.h"

#include <chrono>

namespace stallscope::live {

namespace {

int64_t mono_ns() {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}
int64_t wall_ns() {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

// The key store counts the lines of what it was given ("PATH: line 2 is
// not ..."); the key log is read in pieces, so line 2 of this piece is line
// first_line + 1 of the file.
std::string renumbered(const std::string& warning, const std::string& path, uint64_t first_line) {
    const std::string tag = path + ": line ";
    if (warning.compare(0, tag.size(), tag) != 0) return warning;
    size_t end = tag.size();
    uint64_t n = 0;
    while (end < warning.size() && warning[end] >= '0' && warning[end] <= '9') n = n * 10 + uint64_t(warning[end++] - '0');
    if (end == tag.size()) return warning;
    return tag + std::to_string(n + first_line - 1) + warning.substr(end);
}

} // namespace

Session::Session() = default;

Session::~Session() { stop(); }

bool Session::open(const SessionOptions& options, std::string& error, LiveCapture::OpenError* kind) {
    opt_ = options;
    cap_ = LiveCapture::open(options.capture, error, kind);
    if (!cap_) return false;
    PcapngInterface iface;
    iface.linktype = cap_->linktype();
    iface.snaplen = cap_->snaplen();
    iface.name = options.capture.iface;
    iface.filter = options.capture.filter;
    writer_ = PcapngRingWriter::create(options.out_path, iface, options.application, options.ring, error);
    if (!writer_) {
        if (kind) *kind = LiveCapture::OpenError::Other;
        cap_.reset();
        return false;
    }
    if (!options.keylog_path.empty()) {
        if (!keylog_.create(options.keylog_path, error)) {
            if (kind) *kind = LiveCapture::OpenError::Other;
            writer_.reset();
            cap_.reset();
            return false;
        }
        // The analysis looks secrets up here; the capture thread adds them.
        if (!opt_.analysis.tls_keys) opt_.analysis.tls_keys = std::make_shared<TlsKeyStore>();
    }
    analyzer_ = std::make_unique<Analyzer>(opt_.analysis, options.out_path);
    analyzer_->capture().format = "pcapng";
    return true;
}

void Session::start() {
    if (!cap_ || capture_thread_.joinable() || finished_) return;
    start_mono_ns_ = mono_ns();
    start_wall_ns_ = wall_ns();
    capturing_ = true;
    analysis_thread_ = std::thread([this] { analysis_main(); });
    capture_thread_ = std::thread([this] { capture_main(); });
}

void Session::write_and_queue(Queued q) {
    q.frame.data = std::span<const uint8_t>(q.bytes.data(), q.bytes.size());
    if (write_error_.empty()) {
        uint64_t off = 0;
        if (writer_->write(q.frame, mono_ns(), &off)) {
            q.frame.file_offset = off;
        } else {
            std::lock_guard<std::mutex> lock(smu_);
            write_error_ = writer_->error();
        }
    }
    {
        std::lock_guard<std::mutex> lock(smu_);
        ++packets_;
        file_bytes_ = writer_->bytes_written();
    }
    std::unique_lock<std::mutex> ql(qmu_);
    // Far behind: wait for the analysis (the kernel ring takes the slack).
    qcv_.wait(ql, [&] { return queued_bytes_ < kMaxBacklogBytes; });
    queued_bytes_ += q.bytes.size() + sizeof(Queued);
    queue_.push_back(std::move(q));
    ql.unlock();
    qcv_.notify_all();
}

void Session::release(bool all) {
    if (keylog_.active()) {
        uint64_t first_line = 0;
        std::string lines = keylog_.poll(first_line);
        if (!lines.empty()) {
            // Into the file first (before any packet released below), then the store.
            if (write_error_.empty() && !writer_->write_secrets(0x544c534b, lines.data(), lines.size())) {
                std::lock_guard<std::mutex> lock(smu_);
                write_error_ = writer_->error();
            }
            std::vector<std::string> warnings;
            opt_.analysis.tls_keys->add_key_log(lines, keylog_.path(), [&](const std::string& w) {
                warnings.push_back(renumbered(w, keylog_.path(), first_line));
            });
            std::fill(lines.begin(), lines.end(), '\0');
            std::lock_guard<std::mutex> lock(smu_);
            keylog_lines_ = keylog_.lines();
            file_bytes_ = writer_->bytes_written();
            for (auto& w : warnings) key_warnings_.push_back(std::move(w));
        }
    }
    const int64_t cutoff = wall_ns() - int64_t(opt_.keylog_hold_ms) * 1'000'000;
    // A clock step could hold packets for ever: never more than kMaxHeld.
    while (!held_.empty() && (all || held_.front().frame.ts_ns <= cutoff || held_.size() > kMaxHeld)) {
        write_and_queue(std::move(held_.front()));
        held_.pop_front();
    }
}

void Session::capture_main() {
    const bool hold = keylog_.active() && opt_.keylog_hold_ms > 0;
    auto on_frame = [this, hold](const Frame& f) {
        Queued q;
        q.frame = f;
        q.bytes.assign(f.data.begin(), f.data.end());
        if (!hold) {
            if (keylog_.active()) release(true);  // secrets that came first go first
            return write_and_queue(std::move(q));
        }
        held_.push_back(std::move(q));
        release(false);
    };
    auto on_tick = [this, hold] {
        if (hold || keylog_.active()) release(!hold);
        LiveStats s = cap_->stats();  // pcap_stats on the thread that reads the handle
        const bool ok = write_error_.empty() && writer_->tick(mono_ns());
        std::lock_guard<std::mutex> lock(smu_);
        kernel_ = s;
        if (!ok && write_error_.empty()) write_error_ = writer_->error();
    };
    LiveCapture::RunEnd end = cap_->run(on_frame, on_tick, 100);
    release(true);  // the last secrets, then every packet still held
    LiveStats s = cap_->stats();
    const bool flushed = write_error_.empty() && writer_->flush();
    {
        std::lock_guard<std::mutex> lock(smu_);
        kernel_ = s;
        if (end == LiveCapture::RunEnd::Error) {
            failed_ = true;
            run_error_ = cap_->error();
        }
        if (!flushed && write_error_.empty()) write_error_ = writer_->error();
    }
    {
        std::lock_guard<std::mutex> ql(qmu_);
        capture_done_ = true;
    }
    qcv_.notify_all();
    capturing_ = false;
}

void Session::analysis_main() {
    for (;;) {
        std::deque<Queued> batch;
        {
            std::unique_lock<std::mutex> ql(qmu_);
            qcv_.wait(ql, [&] { return !queue_.empty() || capture_done_; });
            if (queue_.empty()) return;  // capture over and everything analysed
            // A few packets per lock of the analyzer, so snapshots interleave.
            for (int i = 0; i < 32 && !queue_.empty(); ++i) {
                queued_bytes_ -= queue_.front().bytes.size() + sizeof(Queued);
                batch.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        qcv_.notify_all();
        std::lock_guard<std::mutex> lock(mu_);
        for (Queued& q : batch) {
            q.frame.data = std::span<const uint8_t>(q.bytes.data(), q.bytes.size());
            analyzer_->on_frame(q.frame);
        }
        analysed_ += batch.size();
    }
}

void Session::stop() {
    if (cap_) cap_->stop();
    if (capture_thread_.joinable()) {
        capture_thread_.join();
        stop_mono_ns_ = mono_ns();
        stop_wall_ns_ = wall_ns();
    }
    if (analysis_thread_.joinable()) analysis_thread_.join();
}

SessionStatus Session::status() const {
    SessionStatus st;
    st.analysed = analysed_.load();
    std::lock_guard<std::mutex> lock(smu_);
    st.packets = packets_;
    st.file_bytes = file_bytes_;
    st.keylog_lines = keylog_lines_;
    st.kernel = kernel_;
    st.capturing = capturing_.load();
    st.failed = failed_;
    st.error = run_error_;
    if (start_mono_ns_) st.elapsed_s = double((stop_mono_ns_ ? stop_mono_ns_ : mono_ns()) - start_mono_ns_) / 1e9;
    return st;
}

AnalysisResult Session::snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!analyzer_) return {};
    return analyzer_->snapshot();
}

AnalysisResult Session::finish() {
    stop();
    if (!analyzer_ || finished_) return {};
    finished_ = true;
    std::lock_guard<std::mutex> lock(mu_);
    std::lock_guard<std::mutex> slock(smu_);
    const std::string& iface = opt_.capture.iface;
    if (kernel_.valid && kernel_.dropped > 0)
        analyzer_->add_warning({WarningCode::LiveRun, "the kernel dropped " + std::to_string(kernel_.dropped) + " of " +
                                    std::to_string(kernel_.received) + " packets on '" + iface +
                                    "' (pcap_stats ps_drop: capture buffer full); the capture and its analysis "
                                    "are incomplete (try a larger --buffer-mb)",
                                0, 0, 0});
    if (kernel_.valid && kernel_.if_dropped > 0)
        analyzer_->add_warning({WarningCode::LiveRun, "interface '" + iface + "' dropped " + std::to_string(kernel_.if_dropped) +
                                    " packets (pcap_stats ps_ifdrop); the capture is incomplete",
                                0, 0, 0});
    for (const std::string& w : key_warnings_) analyzer_->add_warning({WarningCode::KeyLogLine, w, 0, 0, 0});
    keylog_.close();
    if (failed_) {
        analyzer_->add_warning({WarningCode::LiveRun, "capture stopped early: " + run_error_ + "; kept and analysed the " +
                                    std::to_string(packets_) + " packets captured before it",
                                0, 0, 0});
    }
    const uint64_t received = kernel_.received, dropped = kernel_.dropped + kernel_.if_dropped;
    const bool have_stats = kernel_.valid;
    const bool closed = writer_->close(have_stats ? &received : nullptr, have_stats ? &dropped : nullptr,
                                       start_wall_ns_, stop_wall_ns_ ? stop_wall_ns_ : wall_ns());
    if (write_error_.empty() && !closed) write_error_ = writer_->error();
    if (!write_error_.empty())
        analyzer_->add_warning({WarningCode::LiveWriteFailed, "writing the capture file failed: " + write_error_ +
                                    "; the file is incomplete (the analysis saw every packet)",
                                0, 0, 0});
    analyzer_->capture().bytes = writer_->bytes_written();
    cap_.reset();  // release the interface
    return analyzer_->finish();
}

} // namespace stallscope::live
