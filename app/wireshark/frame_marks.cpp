#include "app/wireshark/frame_marks.h"

#include <algorithm>

namespace stallscope::ws {

namespace {
bool is_wait(PhaseKind k) { return k == PhaseKind::ContinueWait || k == PhaseKind::ServerTime; }
}

const char* phase_of_frame(const Call& c, uint64_t frame) {
    const Phase* chosen = nullptr;
    for (const Phase& p : c.phases) {
        if (frame < p.start_frame || frame > p.end_frame) continue;
        if (!chosen || (chosen->end_frame == frame && is_wait(chosen->kind))) chosen = &p;
    }
    return chosen ? phase_name(chosen->kind) : nullptr;
}

FrameMarks::FrameMarks(AnalysisResult result) : result_(std::move(result)) {
    for (size_t i = 0; i < result_.calls.size(); ++i) call_index_.emplace(result_.calls[i].id, i);
    for (const Call& c : result_.calls) mark_call(c);
    for (size_t i = 0; i < result_.findings.size(); ++i) {
        const Finding& f = result_.findings[i];
        for (uint64_t frame : f.frames) {
            if (frame == 0) continue;
            FrameMark& m = marks_[frame];
            if (std::find(m.findings.begin(), m.findings.end(), uint32_t(i)) == m.findings.end())
                m.findings.push_back(uint32_t(i));
            // Evidence outside every call's window (a SYN retransmission...)
            // still names the call the finding is about.
            if (m.call == 0 && !f.calls.empty()) {
                m.call = f.calls.front();
                if (const Call* c = call(m.call)) m.phase = phase_of_frame(*c, frame);
            }
            if (m.connection == 0) m.connection = f.connection_id;
        }
    }
}

void FrameMarks::mark_call(const Call& c) {
    auto add = [&](uint64_t frame) {
        if (frame == 0) return;
        FrameMark& m = marks_[frame];
        if (m.call != 0) return;  // pipelined calls share frames: the earlier call keeps them
        m.call = c.id;
        m.connection = c.connection_id;
        m.phase = phase_of_frame(c, frame);
    };
    // Every segment of the call's window when segments were kept (ACKs too),
    // then the frames the call's own bookkeeping names.
    for (const SegmentInfo& s : c.segments) add(s.frame);
    for (uint64_t f : c.request.frames) add(f);
    for (uint64_t f : c.response.frames) add(f);
    add(c.continue_frame);
    for (const Phase& p : c.phases) {
        add(p.start_frame);
        add(p.end_frame);
    }
}

const FrameMark* FrameMarks::at(uint64_t frame) const {
    auto it = marks_.find(frame);
    return it == marks_.end() ? nullptr : &it->second;
}

const Call* FrameMarks::call(uint64_t id) const {
    auto it = call_index_.find(id);
    return it == call_index_.end() ? nullptr : &result_.calls[it->second];
}

} // namespace stallscope::ws
