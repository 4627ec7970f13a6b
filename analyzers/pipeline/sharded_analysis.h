#pragma once
// The analysis over several threads, with the report a single thread gives
// (byte for byte). How Suricata and Zeek clusters balance flows: the
// calling thread reads frames and runs AnalysisFront (time, decoding, IP
// fragments: whole before a segment is routed); each TCP segment goes, by
// a hash of its unordered address pair, to one of N workers, each with its
// own FlowTable (its share of the connections); every worker also gets the
// times of all segments, so it closes its lingering connections where one
// table would. Every segment carries a sequence number; what a worker produces (new connection,
// new call, warning, finished call, closed connection) carries the
// sequence number it was made at, and a merge thread replays all of it in
// the order one thread would have produced it into one AnalysisBack, which
// numbers connections and calls, runs the detectors and the summary.
// Queues between the threads are bounded (docs/architecture.md).
#include "analyzers/pipeline/front_stage.h"
#include "analyzers/pipeline/analyze_capture.h"

#include <memory>

namespace stallscope {

namespace sharding_detail {
// What `a < b` says (Endpoint's defaulted order), without a memcmp call: the
// routing orders a segment's two ends with it (exposed for its test).
bool endpoint_less(const Endpoint& a, const Endpoint& b);
// How many batches the workers of every analysis so far handed on while
// closing the connections still open at the end (not all at once after the
// last): for its test.
uint64_t batches_handed_on_at_end();
// Events the merge of every analysis so far replayed with a key below the
// one before (single-thread order broken): none, or a bug.
uint64_t events_replayed_out_of_order();
// TCP payloads of every analysis so far handed to a worker as a view into
// the capture's bytes, and copied into a batch: for their test.
uint64_t payloads_borrowed();
uint64_t payloads_copied();
}

class ShardedAnalysis : private FrontSink {
public:
    ShardedAnalysis(const AnalysisOptions& options, std::string file_name, unsigned workers);
    ~ShardedAnalysis() override;

    void on_frame(const Frame& f);
    void add_warning(Warning w) { front_warning(std::move(w)); }
    CaptureInfo& capture() { return front_.capture(); }
    // The reader's frames stay valid until the analysis is finished
    // (PcapFileReader::frames_outlive_next): payloads go to the workers as
    // views into them instead of copies. Off by default.
    void set_frames_outlive_next(bool yes);
    // Throws SpillError (from the merge) like Analyzer::finish.
    AnalysisResult finish();

    struct Impl;

private:
    void front_warning(Warning w) override;
    void segment(const Frame& f, const TcpPacket& p) override;

    std::unique_ptr<Impl> impl_;
    AnalysisFront front_{static_cast<FrontSink&>(*this)};
};

} // namespace stallscope
