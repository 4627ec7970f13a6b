#pragma once
// The analysis over several threads, with the report a single thread gives
// (byte for byte). How Suricata and Zeek clusters balance flows: the
// calling thread reads frames and runs AnalysisFront (time, decoding, IP
// fragments: whole before a segment is routed); each TCP segment goes, by
// a hash of its unordered address pair, to one of N shards, each with its
// own FlowTable (its share of the connections): N - 1 on worker threads and
// one the reading thread runs itself between batches, so N threads are N
// busy threads, not N + 1; as that thread also reads, decodes and merges,
// its shard gets a smaller share (reading_thread_share). Every shard also gets the
// times of all segments, so it closes its lingering connections where one
// table would. Every segment carries a sequence number; what a worker produces (new connection,
// new call, warning, finished call, closed connection) carries the
// sequence number it was made at, and the merge replays all of it in the
// order one thread would have produced it into one AnalysisBack, which
// numbers connections and calls, runs the detectors and the summary. The
// merge runs on the reading thread, between batches, whenever a worker's
// queue is full and as the reading thread's own shard hands events on
// (straight in, never through a queue: it would wait for itself).
// Queues between the threads are bounded (docs/architecture.md).
#include "analyzers/pipeline/front_stage.h"
#include "analyzers/pipeline/analyze_capture.h"

#include <functional>
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
// Calls CallWork (the detectors that need the call alone, and the ledger)
// ran on in a worker, not in the merge, in all analyses so far: for its test.
uint64_t calls_worked_on_workers();
// Of those, the calls handed to the merge as a digest (call_digest.h), not
// whole, in all analyses so far: for its test.
uint64_t calls_digested();
// Times the reading thread found a worker's input queue full and ran the
// merge instead of blocking (it runs the merge: no thread of its own), in
// all analyses so far: for its test.
uint64_t reader_found_queue_full();
// Segments routed to the reading thread's own shard, and worker threads
// started, in all analyses so far: for their test.
uint64_t segments_on_reading_thread();
uint64_t worker_threads_started();
// The share of the connections (of the pair hash) the reading thread's own
// shard gets with `threads` threads: what balances its other work. With
// `decrypting` (TLS secrets known when the first frame is read: a key log,
// or a pcapng's secrets block before its packets), a shard's work per
// segment is several times larger, the reading thread's other work the same,
// so its shard gets more.
double reading_thread_share(unsigned threads, bool decrypting = false);
// Every queue between the threads this deep, batches of 16 segments and of 2
// events (0: the usual depths and batches), for analyses started after the
// call: the test with queues full on every side.
void set_queue_depth_for_test(size_t depth);
}

class ShardedAnalysis : private FrontSink {
public:
    ShardedAnalysis(const AnalysisOptions& options, std::string file_name, unsigned threads);  // threads busy in all: N - 1 workers and the caller
    ~ShardedAnalysis() override;

    void on_frame(const Frame& f);
    void add_warning(Warning w) { front_warning(std::move(w)); }
    CaptureInfo& capture() { return front_.capture(); }
    // The reader's frames stay valid until the analysis is finished
    // (PcapFileReader::frames_outlive_next): payloads go to the workers as
    // views into them instead of copies. Off by default.
    void set_frames_outlive_next(bool yes);
    // Work the worker threads do while they wait for segments, a step a
    // call (false: nothing to do now): the reader's ahead_work
    // (PcapFileReader), which takes work off the reading thread. Set before
    // the first frame; it must stay callable until finish() returns.
    void set_idle_work(std::function<bool()> work);
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
