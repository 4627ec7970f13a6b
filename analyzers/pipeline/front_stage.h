#pragma once
// The first stage of the analysis, in frame order: timestamps (FrameClock
// rules, frames before the first time held back), link-layer/IP/tunnel
// decoding, IP fragment reassembly and the capture's counters. What comes
// out is TCP segments, timed, for the flow table (which also closes the
// connections whose linger ran out at each one); it never looks at a
// connection. One thread runs it, whether
// the flows are then analysed in that thread or sharded over workers
// (analyzers/pipeline/sharded_analysis.h): fragments are whole before a segment's
// address pair picks its worker.
#include "analyzers/pipeline/frame_clock.h"
#include "analyzers/result/model.h"
#include "capture/fragment_reassembler.h"
#include "capture/frame.h"
#include "capture/packet_decoder.h"

#include <set>
#include <string>
#include <vector>

namespace stallscope {

class FrontSink {
public:
    virtual ~FrontSink() = default;
    // The clock's warnings (w.code MissingTimestamp, BackwardsTimestamp) get
    // the count of frames they stand for at the end.
    virtual void front_warning(Warning w) = 0;
    // One TCP segment, its frame timed by the clock (f.data may be empty).
    // Frame times never go backwards (FrameClock).
    virtual void segment(const Frame& f, const TcpPacket& p) = 0;
};

class AnalysisFront {
public:
    explicit AnalysisFront(FrontSink& sink);

    void on_frame(const Frame& raw);
    // End of frames: held frames replayed, fragments given up on. Then
    // missing_times()/backwards_times() say how many frames each clock
    // warning stands for.
    void finish();
    uint64_t missing_times() const { return missing_ts_; }
    uint64_t backwards_times() const { return backwards_ts_; }

    CaptureInfo& capture() { return capture_; }  // counters; warnings go to the sink
    const CaptureInfo& capture() const { return capture_; }

private:
    bool resolve_decoded(const Frame& f, DecodeResult& d);
    void analyse_frame(const Frame& f);  // f.ts_ns already fixed by the clock
    void note_time_fix(const Frame& f, FrameClock::Fix fix, int64_t fixed_ns);
    void replay_untimed();
    void warn(Warning w) { sink_.front_warning(std::move(w)); }

    FrontSink& sink_;
    CaptureInfo capture_;
    std::set<int> unsupported_links_warned_;
    std::set<std::string> unsupported_warned_;
    FragmentReassembler fragments_;
    std::set<int> link_types_;
    int last_linktype_ = -1;  // of the previous frame (LINKTYPE_* values are >= 0)
    // Timestamps: frames before the first timed frame wait here (copied) for its time.
    struct UntimedFrame { Frame frame; std::vector<uint8_t> bytes; };
    FrameClock clock_;
    std::vector<UntimedFrame> untimed_;
    uint64_t latest_frame_ = 0;                  // the frame that set clock_.latest()
    uint64_t missing_ts_ = 0, backwards_ts_ = 0; // frames whose time was fixed
};

} // namespace stallscope
