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

void PluginSession::reset() noexcept {
    marks_.reset();
    analyzer_.reset();
    finished_ = false;
    last_frame_ = frames_fed_ = frames_late_ = 0;
    error_.clear();
    try {
        analyzer_ = std::make_unique<Analyzer>(plugin_analysis_options(), "(wireshark)");
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
