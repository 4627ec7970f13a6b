#pragma once
// A detector looks at each finished call (with its segments and timeline)
// and reports findings. It never touches Qt, clocks or other detectors, nor
// opens files (what it keeps per call may go to the spill files the
// analysis hands it). The list of detectors is one explicit function, not static
// registration magic.
#include "analyzers/accounting/xml_sample.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/result/model.h"
#include "analyzers/spill/spill_file.h"

#include <functional>
#include <memory>
#include <vector>

namespace stallscope {

namespace detect { struct NagleStall; }

// What several detectors need of one call, searched once per call and
// shared (the Nagle search: nagle_delayed_ack reports the stalls,
// split_write says which split armed one, server_time does not blame the
// server for them, expect_100_wait names the hold after a late 100), and
// where the connection was captured (the search, server_time and the ledger).
class CallScan {
public:
    CallScan(const Call& call, const Connection& conn);
    ~CallScan();
    const std::vector<detect::NagleStall>& nagle_stalls() const;  // found on first use
    const PathPosition& where() const;                            // path_position(conn), on first use

private:
    const Call& call_;
    const Connection& conn_;
    mutable std::vector<detect::NagleStall> nagle_;  // no allocation when there are none
    mutable bool searched_ = false, placed_ = false;
    mutable PathPosition where_;
};

class Detector {
public:
    virtual ~Detector() = default;
    virtual const char* kind() const = 0;
    // True when on_call's findings are a function of the call and its
    // connection alone and the detector keeps nothing between calls: it may
    // run on the thread that assembled the call (a sharded analysis' worker,
    // analyzers/pipeline/call_work.h), before the ledger. A detector that
    // keeps state runs where calls meet in single-thread order and makes no
    // finding in on_call (the ledger has run on the call by then).
    virtual bool call_alone() const { return false; }
    // `call.segments` holds the call's segments; `conn` is the connection as
    // known so far (complete when call.closed_connection); `scan` what the
    // detectors share of the call. With several threads, a detector that
    // keeps state gets each call the report will not keep as a digest: only
    // the fields analyzers/pipeline/call_digest.h lists are set, and `conn`
    // is empty. Reading another field means carrying it there too.
    virtual void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) {}
    // A connection is over (closed, its address pair reused, or the capture
    // ended): `conn` is final and every call on it has been through on_call.
    virtual void on_connection_closed(const Connection& conn, std::vector<Finding>& out) {}
    // After the last connection: findings that need the whole capture. A
    // detector keeps what it needs in compact form as calls pass, because
    // the calls themselves may already be on disk (big captures).
    virtual void finish(std::vector<Finding>& out) {}
    // Fills in facts only known at the end (counts over the whole capture) in
    // a finding of this detector's kind made earlier. Called once per finding,
    // after finish(). A spilled finding comes without its texts and evidence
    // frames (ResultSpill::seal): change the other fields only.
    virtual void finalize(Finding& f) const {}
    // Whether finalize() changes anything: a spilled finding of a kind whose
    // detector says no is only counted after it, and the seal copies its
    // record instead of encoding it again (ResultSpill::seal).
    virtual bool finalizes() const { return false; }
    // The analysis spills (a big capture): what the detector keeps per call
    // should go to files from `make_file` (nullptr when one cannot be made:
    // then it stays in memory). Throws SpillError.
    virtual void spill_to(const std::function<std::unique_ptr<SpillFile>()>& make_file) {}
};

// `deflate_sample_first`: AnalysisOptions::deflate_sample_first (message_size's gzip sample).
std::vector<std::unique_ptr<Detector>> make_detectors(uint64_t deflate_sample_first = 32, XmlSampling xml = {true});

} // namespace stallscope
