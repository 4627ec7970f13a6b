#pragma once
// A finished call that the report will not keep, as a sharded analysis'
// worker hands it to the merge: only what the merge reads of such a call
// (AnalysisBack::take_call: the detectors that keep state, the summary),
// copied out of the worker's own record, which stays on the worker's core
// and is filled again for its next call as one thread fills it. The whole
// record (CallBox) went over before: 21 cache lines of Call, its strings'
// and vectors' buffers and the connection, written on one core and read on
// another, then handed back to be emptied and filled again.
//
// What the merge reads, reader by reader (a Call made of a digest has only
// these fields set, the others are Call{}'s):
// - connection_setup, tls_certificate_flight: index_on_connection and
//   opened_connection; of the first call of a connection it opened, the
//   first FIN or RST among its segments, its version, User-Agent and Server,
//   request_first_frame, request_close, connection_close (connection_setup),
//   and when a segment of it carries a TLS handshake, its segments, every
//   field and its connection (tls_certificate_flight): such a call goes whole.
// - tls_resumption_missing: index_on_connection, id, connection_id.
// - message_size: the operation (soap.operation; else encrypted, method and
//   uri: carried only then), complete, id, both messages' sizes, frames and deflate figures,
//   both envelopes' element counts, content_encoding, the chunked flags;
//   and every field of its operation's lowest-id complete call (call_facts):
//   a call that may be that one goes whole (DigestPolicy).
// - the summary (SummaryBuilder::add_call): the operation, complete, id,
//   latency_ms, setup_ms, attribution, savings, client_path_ms.
// - AnalysisBack: id (kept or not), connection_id (keep_segments).
// Guarded by "threads: calls past keep_calls cross as digests" (sharded
// analysis tests: every bundled capture's report with none kept, 1 to 4 threads).
#include "analyzers/result/model.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope {

struct AnalysisOptions;

struct CallDigest {
    struct Message {
        uint64_t first_frame = 0, header_bytes = 0, body_bytes = 0;
        uint64_t content_bytes = 0, markup_bytes = 0, deflate_estimate = 0;
        bool deflate_pick = false, whole_xml = true;
    };
    uint64_t id = 0, connection_id = 0;  // the worker's until the merge gives the final ones
    uint32_t index_on_connection = 0;
    bool complete = false, opened_connection = false, encrypted = false;
    bool request_chunked = false, response_chunked = false;
    double latency_ms = 0, setup_ms = -1, client_path_ms = -1;
    Message request, response;
    uint32_t request_elements = 0, response_elements = 0;  // soap / soap_response element_count
    std::string operation, method, uri, content_encoding;  // operation: soap.operation
    std::vector<TimeShare> attribution;
    std::vector<FixSaving> savings;
    std::vector<Finding> findings;  // CallWork's, made on the worker
    // Set only when the call opened its connection (index 0): connection_setup's facts.
    std::string http_version, user_agent, server;
    uint64_t request_first_frame = 0;
    bool request_close = false, connection_close = false;
    bool closed = false;       // one of its segments carries FIN or RST:
    SegmentInfo first_close;   // the first (a Call made of the digest has it as its one segment)
};

// `d` takes `c`'s fields above (its strings and vectors keep their memory;
// findings are left as they are).
void digest_call(const Call& c, CallDigest& d);
// The fields above of `c` set from `d` (the rest of `c` left as it is:
// Call{}'s in the merge's record, which only ever gets digests; method and
// uri are set only when they name the operation). Its attribution and
// savings are traded with `c`'s: `d` is filled again before it is read.
void undigest(CallDigest& d, Call& c);

// Which of one worker's calls may cross as a digest: none when the analysis
// keeps every call or shows live figures (they read whole calls); else a
// call whose number on its worker is past keep_calls (its final id is at
// least that: never kept) and that no reader needs whole (above).
class DigestPolicy {
public:
    explicit DigestPolicy(const AnalysisOptions& opt);
    // `n`: the call's number on its worker (1 for its first call).
    bool may_digest(const Call& c, uint64_t n);

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    uint64_t keep_calls_;
    bool on_ = false;
    // Per operation, the lowest number of this worker's complete calls so
    // far: message_size keeps the facts of the lowest-id complete call of
    // each operation, which only a lower one of this worker can replace.
    std::unordered_map<std::string, uint64_t, Hash, std::equal_to<>> lowest_complete_;
};

} // namespace stallscope
