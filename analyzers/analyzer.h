#pragma once
// The streaming analysis: frames in (from a file or a live interface), an
// AnalysisResult out. Holds only the open connections; finished calls are
// run through the detectors as soon as they are known and kept as values.
#include "analyzers/analyze.h"
#include "analyzers/connection_analyzer.h"
#include "analyzers/detector.h"
#include "analyzers/frame_clock.h"
#include "analyzers/result_spill.h"
#include "analyzers/summary.h"
#include "capture/fragment_reassembler.h"
#include "capture/packet_decoder.h"

#include <deque>
#include <map>
#include <span>
#include <memory>
#include <queue>
#include <set>
#include <unordered_map>

namespace stallscope {

class Analyzer : private ConnectionHost {
public:
    Analyzer(const AnalysisOptions& options, std::string file_name);
    ~Analyzer() override;

    // Frames in capture order; their times pass through the FrameClock rules.
    void on_frame(const Frame& f);
    // A problem found outside the packet flow (reader warnings...).
    void add_warning(Warning w);
    CaptureInfo& capture() { return result_.capture; }

    // Everything known so far, with open calls as provisional entries
    // (live view). Cheap enough to call a few times a second. Only what is
    // in memory: once the analysis spills, the last
    // options.snapshot_recent_calls finished calls stand for the rest.
    AnalysisResult snapshot() const;
    // Close every connection, run the whole-capture detectors, summarise.
    // Throws SpillError when a spill file cannot be written or read.
    AnalysisResult finish();

private:
    struct FlowKey {
        Endpoint a, b;  // a < b
        friend bool operator==(const FlowKey&, const FlowKey&) = default;
    };
    struct FlowKeyHash {
        size_t operator()(const FlowKey& k) const noexcept { return EndpointHash{}(k.a) * 31 + EndpointHash{}(k.b); }
    };

    uint64_t new_call_id() override { return ++last_call_id_; }
    void warn(const std::string& message, uint64_t frame, uint64_t connection_id) override;
    void call_ready(Call&& call, const Connection& conn) override;
    DeflateSampler* deflate_sampler() override { return &deflate_sampler_; }
    void close_flow(std::unordered_map<FlowKey, std::unique_ptr<ConnectionAnalyzer>, FlowKeyHash>::iterator it);
    // Closes the closed connections whose linger ran out by `now_ns`.
    void expire_closed(int64_t now_ns);
    // Reassembles fragments and counts and warns about whatever is not a
    // TCP segment; true when d.tcp holds one.
    bool resolve_decoded(const Frame& f, DecodeResult& d);
    void analyse_frame(const Frame& f);  // f.ts_ns already fixed by the clock
    void note_time_fix(const Frame& f, FrameClock::Fix fix, int64_t fixed_ns);
    void replay_untimed();
    bool keep_segments(const Call& c) const;
    void start_spill();
    void spill_findings();
    void remember_recent(const Call& call, std::span<const Finding> findings);

    AnalysisOptions opt_;
    DeflateSampler deflate_sampler_{opt_.deflate_sample_first, opt_.deflate_sample_every};
    AnalysisResult result_;
    std::unordered_map<FlowKey, std::unique_ptr<ConnectionAnalyzer>, FlowKeyHash> flows_;
    std::vector<std::unique_ptr<Detector>> detectors_;
    uint64_t last_call_id_ = 0, last_conn_id_ = 0;
    // Closed connections waiting out their linger, earliest last packet first
    // (lazy: an entry whose connection saw a later packet is pushed again).
    struct Lingering {
        int64_t last_ns;
        uint64_t id;
        FlowKey key;
        bool operator>(const Lingering& o) const { return last_ns != o.last_ns ? last_ns > o.last_ns : id > o.id; }
    };
    std::priority_queue<Lingering, std::vector<Lingering>, std::greater<Lingering>> lingering_;
    uint64_t warnings_suppressed_ = 0;
    std::set<int> unsupported_links_warned_;
    std::set<std::string> unsupported_warned_;
    FragmentReassembler fragments_;
    std::set<int> link_types_;
    bool cap_warned_ = false;
    SummaryBuilder summary_;                // every call passes; findings at the end
    std::shared_ptr<ResultSpill> spill_;    // set once more calls than opt_.spill_after_calls
    bool spill_failed_ = false;
    std::deque<Call> recent_calls_;         // spilling live views: the last calls, for snapshot()
    std::deque<Finding> recent_findings_;   // and their findings
    // Timestamps: frames before the first timed frame wait here (copied) for its time.
    struct UntimedFrame { Frame frame; std::vector<uint8_t> bytes; };
    FrameClock clock_;
    std::vector<UntimedFrame> untimed_;
    uint64_t latest_frame_ = 0;                  // the frame that set clock_.latest()
    uint64_t missing_ts_ = 0, backwards_ts_ = 0; // frames whose time was fixed
    size_t missing_warning_ = SIZE_MAX, backwards_warning_ = SIZE_MAX;  // their first warning (the count goes there)
};

} // namespace stallscope
