#pragma once
// The one entry point every front end uses: a capture file in, an
// AnalysisResult out, in one streaming pass.
#include "analyzers/result/model.h"
#include "dissectors/tls/keylog.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

class LoadFiguresSoFar;   // analyzers/pipeline/load_figures.h

// What an analysis has found so far, for a front end to show while a big
// capture loads (the desktop app's load bar polls it on a timer). Updated by
// the analysis as calls complete; at the end it holds the result's counts.
struct LoadCounters {
    std::atomic<uint64_t> calls{0};      // finished calls
    std::atomic<uint64_t> findings{0};   // findings of those calls (the whole-capture ones come at the end)
    // The overview's figures of those calls (the desktop app's Overview);
    // its own header, so front ends that only count need not see the ledger.
    std::unique_ptr<LoadFiguresSoFar> figures;
    LoadCounters();
    ~LoadCounters();
};

struct AnalysisOptions {
    // Keep every call's segments in the result (GUI, diagrams). Off for the
    // CLI report so memory stays bounded by the open connections.
    bool keep_segments = false;
    // Keep segments only for this call / connection id (export).
    std::optional<uint64_t> keep_segments_for_call;
    std::optional<uint64_t> keep_segments_for_connection;
    // Caps (documented in docs/limits.md); hitting one adds a warning.
    size_t max_open_connections = 100000;
    size_t max_out_of_order_bytes = 4 * 1024 * 1024;   // per direction
    size_t max_soap_body_bytes = 1 * 1024 * 1024;      // body kept for SOAP decoding
    size_t max_decompressed_bytes = 8 * 1024 * 1024;   // gzip/deflate output per body
    size_t max_header_bytes = 64 * 1024;
    size_t max_pending_requests = 4096;                // per connection, waiting for a response
    // More finished calls than this and the calls, connections and findings
    // go to an unlinked temp file with only an index kept in memory, so
    // memory stays flat on multi-GB captures (docs/performance.md). The CLI
    // sets it; live views (Analyzer::snapshot) see only what is in memory
    // (see snapshot_recent_calls).
    size_t spill_after_calls = SIZE_MAX;
    // Calls kept in the result: those with an id up to this. The others still
    // pass the detectors, the ledger and the summary and are counted
    // (AnalysisResult::calls_not_kept), but are not stored: for a report that
    // lists only the first calls (the text report's kTextReportCalls), a call
    // it will never show costs neither encoding nor disk.
    uint64_t keep_calls = UINT64_MAX;
    // When set, a call that goes to the spill file is stored as the record
    // this makes instead of its binary encoding: for a report that is the
    // calls' only reader (analyze --json on one thread stores each call's
    // JSON element, analyzers/report/json_call_record.h). Such a result's
    // calls can then be read only by that report (for_each_call throws).
    // The record it returns is stored before it is called again.
    std::function<std::string_view(const Call&)> spill_call_as;
    std::string spill_dir;  // "" = $TMPDIR, else /tmp
    // Live views of a spilling analysis: Analyzer::snapshot() then shows the
    // last this many finished calls (and their findings) beside the open
    // ones, instead of everything, so a capture left running stays bounded.
    size_t snapshot_recent_calls = 0;
    // Bodies compressed for message_size's gzip estimate, per operation and
    // direction: the `first` with the lowest frame numbers, plus those whose
    // frame number hashes into one in `every` (0: every body); a body over
    // 16 KiB is measured on 16 KiB of it. See analyzers/detectors/deflate_sampler.h.
    uint64_t deflate_sample_first = 32;
    uint64_t deflate_sample_every = 64;
    // SOAP envelopes are read up to their head (version, operation, fault)
    // except for a sample per operation, read whole for the whole-document
    // figures (element_count, max_depth, a malformation past the head,
    // markup_bytes): the calls among the first `xml_sample_first` of their
    // operation (by request frame) plus those whose request frame hashes into
    // one in `xml_sample_every`. full_xml: every envelope read whole
    // (analyze --full-xml), and every body compressed whole for the gzip
    // estimate (deflate_sample_* ignored). See analyzers/calls/xml_sample.h.
    bool full_xml = false;
    uint64_t xml_sample_first = 32;
    uint64_t xml_sample_every = 64;
    // Threads for the connections (analyzers/pipeline/sharded_analysis.h): 1 analyses
    // in the calling thread (analyzers/pipeline/streaming_analysis.h); more shard connections by
    // address pair over that many workers, with the same result byte for
    // byte (the CLI's analyze defaults to the machine's cores; the GUI, live
    // capture and compare use 1). max_open_connections is then split between
    // the workers (docs/limits.md).
    unsigned threads = 1;
    // TLS secrets: an NSS key log file (--keylog) read by analyze_file, which
    // also adds the secrets of pcapng Decryption Secrets Blocks as they come.
    // Connections decrypt with `tls_keys` (null: keyless).
    std::string keylog_path;
    std::shared_ptr<TlsKeyStore> tls_keys;
    // Null: nobody watches. Set: updated as calls complete (LoadCounters).
    std::shared_ptr<LoadCounters> counters;
};

struct Progress {
    uint64_t bytes_read = 0, bytes_total = 0, packets = 0;
};

// Called now and then (about every 64k packets), in the calling thread;
// return false to cancel (the result holds what came before).
using ProgressFn = std::function<bool(const Progress&)>;

struct AnalyzeOutcome {
    bool ok = false;            // false: not analysable; error says why
    std::string error;          // "<file>: <reason> (offset N)"
    bool cancelled = false;
    AnalysisResult result;      // partial when cancelled or truncated
};

// Why an analysed capture is still not analysable, or "" when it is: frames
// were read but none of them could be decoded (an unsupported or mismatched
// link type, only malformed packets). Its empty report would read as "no
// calls, no stalls", so every front end refuses it the same way:
// "<file>: none of its N frames could be decoded (link types: ...; <first warning>)".
// analyze_file applies it; other front ends that run an Analyzer themselves
// (the Wireshark plugin) call it.
std::string nothing_decoded_error(const std::string& path, const CaptureInfo& capture);

// The warning that says the file itself is damaged (cut short, a record
// that cannot be read): the analysis covers what came before it. nullptr
// when the file was read to its end. Front ends print it even when they
// print no other warning.
const Warning* damage_warning(const CaptureInfo& capture);

// Threads an analysis uses unless told otherwise (analyze, compare, export,
// the desktop app): the machine's cores, at least 1.
unsigned default_analysis_threads();

// The one way to open and analyse a capture file (every CLI command, the
// desktop app): ok false with `error` when it cannot be opened, read, or
// decoded at all (nothing_decoded_error); a damaged file that is readable up
// to the damage is ok, with capture.truncated and its damage_warning.
AnalyzeOutcome analyze_file(const std::string& path, const AnalysisOptions& options = {},
                            const ProgressFn& progress = {});

// Several files analysed as one capture in timestamp order (a file set,
// issue 24): connections and calls continue across files, frames are
// numbered across the set (CaptureInfo::files, frame_runs locate each one).
// One path that names the first file of a dumpcap ring or tcpdump -C files
// brings the rest of the set (capture/pcap/file_set_reader.h); one plain
// file is analyze_file(). Files missing or damaged in the set are warnings
// and gaps; only no readable file at all is an error.
AnalyzeOutcome analyze_files(const std::vector<std::string>& paths, const AnalysisOptions& options = {},
                             const ProgressFn& progress = {});

// The bench's floor: every frame read by our reader and decoded by the
// analysis's first stage (clock, link/IP/tunnel decoding, fragments) to TCP
// segments, which are only counted. What any analysis of the segments costs
// at least. False (and `error`) when the file cannot be opened.
bool decode_only(const std::string& path, uint64_t& frames, uint64_t& segments, std::string& error);

} // namespace stallscope
