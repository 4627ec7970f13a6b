#pragma once
// The analysis result seen frame by frame, as the Wireshark plugin shows it:
// which call a frame belongs to, the phase of that call it falls in, and the
// findings it is evidence of. Pure C++ (no epan) so it can be unit-tested.
#include "analyzers/result/model.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace stallscope::ws {

struct FrameMark {
    uint64_t call = 0;                 // Call::id, 0 = the frame belongs to no call
    uint64_t connection = 0;           // Connection::id, 0 = unknown
    const char* phase = nullptr;       // phase_name() of the call's phase, nullptr = none
    std::vector<uint32_t> findings;    // indexes into result().findings (evidence frames only)
};

class FrameMarks {
public:
    explicit FrameMarks(AnalysisResult result);

    // nullptr when the analysis says nothing about this frame.
    const FrameMark* at(uint64_t frame) const;
    const Call* call(uint64_t id) const;
    const AnalysisResult& result() const { return result_; }
    size_t size() const { return marks_.size(); }

private:
    void mark_call(const Call& c);

    AnalysisResult result_;
    std::unordered_map<uint64_t, FrameMark> marks_;
    std::unordered_map<uint64_t, size_t> call_index_;  // Call::id -> index in result_.calls
};

// The phase of `c` that `frame` falls in (nullptr: outside every phase). A
// frame on the boundary of two phases belongs to the one it ends (the last
// header segment is request_headers), except that a frame ending a wait
// (continue_wait, server_time) is the first of what was waited for.
const char* phase_of_frame(const Call& c, uint64_t frame);

} // namespace stallscope::ws
