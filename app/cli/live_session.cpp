#include "app/cli/live_session.h"

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
    analyzer_ = std::make_unique<Analyzer>(options.analysis, options.out_path);
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

void Session::capture_main() {
    auto on_frame = [this](const Frame& f) {
        const int64_t now = mono_ns();
        Queued q;
        q.frame = f;
        q.bytes.assign(f.data.begin(), f.data.end());
        if (write_error_.empty()) {
            uint64_t off = 0;
            if (writer_->write(f, now, &off)) {
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
    };
    auto on_tick = [this] {
        LiveStats s = cap_->stats();  // pcap_stats on the thread that reads the handle
        const bool ok = write_error_.empty() && writer_->tick(mono_ns());
        std::lock_guard<std::mutex> lock(smu_);
        kernel_ = s;
        if (!ok && write_error_.empty()) write_error_ = writer_->error();
    };
    LiveCapture::RunEnd end = cap_->run(on_frame, on_tick, 100);
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
