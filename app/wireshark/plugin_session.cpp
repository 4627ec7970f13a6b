#include "app/wireshark/plugin_session.h"

#include <exception>

namespace stallscope::ws {

AnalysisOptions plugin_analysis_options() {
    AnalysisOptions o;
    o.keep_segments = true;
    return o;
}

PluginSession::PluginSession() { reset(); }
PluginSession::~PluginSession() = default;

void PluginSession::reset(const std::string& keylog) noexcept {
    marks_.reset();
    analyzer_.reset();
    finished_ = false;
    last_frame_ = frames_fed_ = frames_late_ = 0;
    error_.clear();
    keylog_error_.clear();
    try {
        AnalysisOptions opt = plugin_analysis_options();
        std::vector<std::string> warnings;
        if (!keylog.empty()) {
            auto keys = std::make_shared<TlsKeyStore>();
            // Malformed lines are warned by number only; a file that cannot be read leaves the analysis keyless.
            if (keys->load_file(keylog, [&](const std::string& w) { warnings.push_back(w); }, keylog_error_))
                opt.tls_keys = std::move(keys);
        }
        analyzer_ = std::make_unique<Analyzer>(opt, "(wireshark)");
        for (const std::string& w : warnings) analyzer_->add_warning({WarningCode::KeyLogLine, w, 0, 0, 0});
    } catch (const std::exception& e) {
        error_ = e.what();
    }
}

void PluginSession::on_first_pass_frame(const Frame& f) noexcept {
    if (finished_) { ++frames_late_; return; }
    // Wireshark numbers frames 1, 2, 3...; anything else is a rescan we already saw.
    if (!analyzer_ || f.number <= last_frame_) return;
    last_frame_ = f.number;
    try {
        analyzer_->on_frame(f);
        ++frames_fed_;
    } catch (const std::exception& e) {
        // Out of memory or a bug: stop analysing rather than take Wireshark down.
        error_ = e.what();
        analyzer_.reset();
    }
}

void PluginSession::finish() noexcept {
    finished_ = true;
    if (!analyzer_) return;
    try {
        AnalysisResult r = analyzer_->finish();
        // The rule every front end applies (analyze_file's): frames were fed
        // but none decoded, so the empty analysis says nothing. Wireshark shows
        // the frames anyway; the session keeps the reason, and no marks.
        error_ = nothing_decoded_error("(wireshark)", r.capture);
        if (error_.empty()) marks_ = std::make_unique<FrameMarks>(std::move(r));
    } catch (const std::exception& e) {
        error_ = e.what();
        marks_.reset();
    }
    analyzer_.reset();
}

const FrameMark* PluginSession::mark(uint64_t frame) noexcept {
    if (!finished_) finish();
    return marks_ ? marks_->at(frame) : nullptr;
}

} // namespace stallscope::ws
