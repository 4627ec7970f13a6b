#pragma once
// The streaming analysis in one thread: frames in (from a file or a live
// interface), an AnalysisResult out. Holds only the open connections;
// finished calls are run through the detectors as soon as they are known
// and kept as values. Three stages, called directly here: AnalysisFront
// (time, decoding, fragments), FlowTable (connections), AnalysisBack
// (numbering, detectors, spill, summary); analyzers/pipeline/sharded_analysis.h
// runs the same stages over several threads.
#include "analyzers/pipeline/back_stage.h"
#include "analyzers/pipeline/front_stage.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/flow_table.h"

namespace stallscope {

class Analyzer : private FrontSink, private FlowSink {
public:
    Analyzer(const AnalysisOptions& options, std::string file_name);
    ~Analyzer() override;

    // Frames in capture order; their times pass through the FrameClock rules.
    void on_frame(const Frame& f) { front_.on_frame(f); }
    // A problem found outside the packet flow (reader warnings...).
    void add_warning(Warning w) { back_.add_warning(std::move(w)); }
    CaptureInfo& capture() { return front_.capture(); }

    // Everything known so far, with open calls as provisional entries
    // (live view). Cheap enough to call a few times a second. Only what is
    // in memory: once the analysis spills, the last
    // options.snapshot_recent_calls finished calls stand for the rest.
    AnalysisResult snapshot() const;
    // Close every connection, run the whole-capture detectors, summarise.
    // Throws SpillError when a spill file cannot be written or read.
    AnalysisResult finish();

private:
    void front_warning(Warning w) override;
    void segment(const Frame& f, const TcpPacket& p) override { table_.on_segment(f, p); }
    uint64_t new_connection_id() override { return back_.new_connection_id(); }
    uint64_t new_call_id(uint64_t) override { return back_.new_call_id(); }
    void warn(Warning w) override { back_.add_warning(std::move(w)); }
    void call_ready(Call&& call, const Connection& conn) override { back_.call_ready(std::move(call), conn); }
    void connection_closed(Connection&& conn) override { back_.connection_closed(std::move(conn)); }

    AnalysisOptions opt_;
    AnalysisBack back_{opt_};
    FlowTable table_{opt_, static_cast<FlowSink&>(*this)};
    AnalysisFront front_{static_cast<FrontSink&>(*this)};
    size_t missing_warning_ = SIZE_MAX, backwards_warning_ = SIZE_MAX;  // the clock's first warnings
};

} // namespace stallscope
