#pragma once
// What `compare` needs of one analysis, and nothing more: per complete call
// its id, operation, size bucket, latency and server time (40 bytes), per
// finding kind and side the count, the time lost and the calls named, and
// the capture's counts and summary. Built by one pass over the result's
// items (in memory or spilled to disk), so a compare of two big captures
// holds two of these instead of two AnalysisResults (docs/compare.md,
// "Memory").
#include "analyzers/accounting/summary.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

struct CompareCall {
    uint64_t id = 0;
    double latency_ms = 0;
    double server_ms = 0;       // the ServerTime phases, summed
    double stall_ms = 0;        // in every stall (the ledger's stall_ms): what all stalls fixed removes
    uint32_t operation = 0;     // index into CompareInput::operations
    uint8_t bucket = 0;         // index into size_bucket_names()
};

// The findings of one kind (of one side, or of both: side "").
struct FindingTally {
    uint64_t findings = 0;
    double lost_ms = 0;                 // counted_ms summed in report order
    std::vector<uint64_t> calls;        // distinct call ids named, ascending (after compare_input)
    size_t compact_at = 4096;           // while building: dedupe calls when they reach this many
};

struct CompareInput {
    std::string file;
    std::vector<std::string> files;               // a file set's files (empty: one file)
    uint64_t calls = 0, connections = 0, findings = 0;
    double duration_ms = 0;
    std::vector<std::string> operations;          // operation_key of the calls, by first appearance
    std::vector<CompareCall> complete;            // complete calls, in id order
    std::map<std::pair<std::string, std::string>, FindingTally> tallies;  // (kind, side or "")
    std::vector<std::string> kinds;               // finding kinds by first appearance
    SummaryGroup overall;                         // summary.overall (what_if and latencies)
    // Per fix (kind, side), what it removes from each complete call it
    // changes (call.savings): (call id, ms), by id. For the prediction of
    // several fixes made together (compare_predictions.h).
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<uint64_t, double>>> savings;
};

// The size bucket names of size_bucket(), by index.
const std::vector<std::string>& size_bucket_names();
uint8_t size_bucket_index(const Call& c);

// One pass over r's calls and findings (for_each_*: spilled or not).
// Throws SpillError when a spilled result cannot be read.
CompareInput compare_input(const AnalysisResult& r);

} // namespace stallscope
