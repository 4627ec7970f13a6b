#pragma once
// What the plugin knows about the capture file that is open in Wireshark.
// Wireshark dissects every frame once in order (the first pass), then again
// whenever it shows, filters or taps them (frames "visited"). The first pass
// feeds the streaming Analyzer; the first revisit finishes the analysis and
// indexes it by frame. Pure C++ (no epan), exception-free interface.
#include "analyzers/pipeline/streaming_analysis.h"
#include "capture/frame.h"
#include "app/wireshark/frame_marks.h"

#include <memory>
#include <string>

namespace stallscope::ws {

class PluginSession {
public:
    PluginSession();
    ~PluginSession();

    // A new capture file (or a redissection from scratch): forget everything.
    // keylog: the TLS key log Wireshark is configured with (tls.keylog_file,
    // "" = none), read now; its connections are decrypted as with
    // `stallscope-cli analyze --keylog`. One that cannot be read is
    // keylog_error() and the analysis goes on keyless.
    void reset(const std::string& keylog = {}) noexcept;
    const std::string& keylog_error() const { return keylog_error_; }
    // First pass: each frame once, in capture order. Frames after the
    // analysis finished (a live capture still running) are counted, not used.
    void on_first_pass_frame(const Frame& f) noexcept;
    // A revisited frame's marks; finishes the analysis on first use.
    // nullptr: nothing to show for this frame.
    const FrameMark* mark(uint64_t frame) noexcept;

    // Valid after the first mark() call; nullptr before or on failure.
    const FrameMarks* marks() const { return marks_.get(); }
    bool finished() const { return finished_; }
    uint64_t frames_fed() const { return frames_fed_; }
    uint64_t frames_late() const { return frames_late_; }
    // Why there are no marks: an exception, or nothing_decoded_error's reason.
    const std::string& error() const { return error_; }

private:
    void finish() noexcept;

    std::unique_ptr<Analyzer> analyzer_;
    std::unique_ptr<FrameMarks> marks_;
    bool finished_ = false;
    uint64_t last_frame_ = 0, frames_fed_ = 0, frames_late_ = 0;
    std::string error_, keylog_error_;
};

// Options the plugin analyses with: the CLI's defaults plus every call's
// segments, so ACK-only frames can be tied to their call.
AnalysisOptions plugin_analysis_options();

} // namespace stallscope::ws
