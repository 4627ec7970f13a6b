#pragma once
// The last stage of the analysis, in the order a single thread meets
// things: numbers connections and calls, runs the detectors and the
// accounting on each finished call, keeps (or spills) calls, connections,
// findings and the summary's per-call records, keeps the warnings (capped)
// and, for live views of a spilling analysis, the last calls; at the end it
// adds the whole-capture findings and the summary. One per analysis, also
// with several threads (analyzers/pipeline/sharded_analysis.h: the merge feeds it).
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/call_work.h"
#include "analyzers/detectors/detector.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/accounting/summary.h"

#include <deque>
#include <memory>
#include <span>
#include <vector>

namespace stallscope {

class AnalysisBack {
public:
    explicit AnalysisBack(const AnalysisOptions& options);
    ~AnalysisBack();

    uint64_t new_connection_id() { return ++last_conn_id_; }
    uint64_t new_call_id() { return ++last_call_id_; }
    // Returns the warning's index (SIZE_MAX when over the cap).
    size_t add_warning(Warning w);
    void call_ready(Call&& call, const Connection& conn);
    // The same for a call CallWork has run on already (a sharded analysis'
    // worker, with the call's final ids given since): `worked` holds its
    // findings, ids final too, and is left empty.
    void call_worked(Call&& call, const Connection& conn, std::vector<Finding>& worked);
    // The same for a call that will not be kept (its id past keep_calls, no
    // live figures) made of a digest (analyzers/pipeline/call_digest.h):
    // `call` holds only what this reads of such a call, has no connection,
    // and is left in place for the next one. Throws std::logic_error when
    // the call would be kept or figures shown (they read the whole call).
    void call_digested(Call& call, std::vector<Finding>& worked);
    void connection_closed(Connection&& conn);

    // Live view of what is finished (capture counters and open connections
    // are the caller's): everything in memory, or once the analysis spills,
    // the last options.snapshot_recent_calls calls and their findings.
    AnalysisResult so_far() const;
    // Whole-capture detectors, findings in report order, summary. `capture`
    // is the front's (counters); the warnings are these. `missing_at` etc.:
    // indexes of the clock's first warnings and how many frames they stand for.
    // Throws SpillError when a spill file cannot be written or read.
    AnalysisResult finish(CaptureInfo capture, size_t missing_at, uint64_t missing,
                          size_t backwards_at, uint64_t backwards);

private:
    bool keep_segments(const Call& c) const;
    // The rest of call_ready once CallWork has run: the detectors that keep
    // state, the counters, the summary, keeping or spilling the call.
    // `first_new`: where the call's findings start in result_.findings.
    void take_call(Call&& call, const Connection& conn, size_t first_new);
    void start_spill();
    void spill_findings();
    void spill_call(const Call& call);
    void remember_recent(const Call& call, std::span<const Finding> findings);

    const AnalysisOptions& opt_;
    AnalysisResult result_;
    std::vector<std::unique_ptr<Detector>> detectors_;
    CallWork call_work_{detectors_};          // the call_alone ones, and the ledger
    std::vector<Detector*> keeping_;          // the others: their on_call sees calls in order
    const Connection no_connection_;          // a digested call's: none of keeping_ reads it (call_digest.h)
    uint64_t last_call_id_ = 0, last_conn_id_ = 0;
    uint64_t warnings_suppressed_ = 0;
    uint64_t calls_seen_ = 0;               // before spilling: the trigger
    SummaryBuilder summary_;                // every call passes; findings at the end
    std::shared_ptr<ResultSpill> spill_;    // set once more calls than opt_.spill_after_calls
    bool spill_failed_ = false;
    std::deque<Call> recent_calls_;         // spilling live views: the last calls, for so_far()
    std::deque<Finding> recent_findings_;   // and their findings
};

} // namespace stallscope
