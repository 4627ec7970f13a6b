#pragma once
// The analysis result: plain values, no Qt, no I/O. Everything downstream
// (text/JSON/CSV reports, GUI models, diagrams, the Wireshark plugin, the
// comparison) reads these and nothing else.
#include "analyzers/result/warning_code.h"
#include "capture/frame_runs.h"
#include "capture/ip_address.h"
#include "capture/side.h"
#include "dissectors/soap/soap_info.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

const char* side_name(Side s);  // "client" / "server"

// Where on the path the capture was taken (analyzers/result/capture_point.h).
// Both: the round trip is under 1 ms, so client and server are equally near.
enum class CapturePlace : uint8_t { Unknown, Client, Server, Path, Both };
const char* place_name(CapturePlace p);  // "unknown", "client", "server", "path", "both_ends"

// What the bytes of a segment belong to (bit set: a segment may carry the
// end of one message and the start of the next).
namespace carries {
constexpr uint16_t kRequestHeaders = 1 << 0;
constexpr uint16_t kRequestBody = 1 << 1;
constexpr uint16_t kContinue = 1 << 2;        // an interim 1xx response
constexpr uint16_t kResponseHeaders = 1 << 3;
constexpr uint16_t kResponseBody = 1 << 4;
constexpr uint16_t kOther = 1 << 5;           // bytes of no recognised message
constexpr uint16_t kTlsHandshake = 1 << 6;    // TLS handshake records (ClientHello ... Finished, tickets)
// With kRequestBody / kResponseBody: TLS application data read without keys
// (which part of the HTTP message the bytes are is unknown).
constexpr uint16_t kEncrypted = 1 << 7;
}
std::string carries_label(uint16_t bits);     // "headers+body", "100 Continue", "ACK" ...

// Segments that only test the connection (as Wireshark's tcp.analysis flags).
namespace probe {
constexpr uint8_t kNone = 0;
constexpr uint8_t kKeepAlive = 1;        // seq = next expected - 1, 0 or 1 byte
constexpr uint8_t kZeroWindowProbe = 2;  // 1 new byte while the peer's window is 0
}

// One TCP segment of a connection, as the detectors and diagrams need it.
// Fields ordered by size: 56 bytes, one per packet of every open call.
struct SegmentInfo {
    uint64_t frame = 0;
    int64_t ts_ns = 0;
    // When the peer acknowledged the last byte of this segment (data only).
    int64_t acked_ns = -1;
    uint64_t acked_frame = 0;
    uint32_t seq = 0;            // relative to the sender's ISN (1 = first data byte)
    uint32_t ack = 0;            // relative to the peer's ISN
    uint32_t len = 0;            // payload bytes on the wire
    uint32_t window = 0;         // scaled window where the scale is known
    uint16_t carries = 0;        // carries::* bits (0 = no payload)
    Side from = Side::Client;
    uint8_t flags = 0;           // tcpflag::*
    bool retransmission = false;
    bool out_of_order = false;
    uint8_t probe = 0;           // probe::* (a keep-alive or window probe is never a retransmission)
    bool acked_by_pure_ack = false;  // that ACK carried no data
};

enum class PhaseKind : uint8_t {
    Connect, RequestHeaders, ContinueWait, RequestBody, ServerTime,
    ResponseHeaders, ResponseBody, Close,
    TlsHandshake  // ClientHello -> the last handshake record, before the first request (the call that paid it)
};
const char* phase_name(PhaseKind k);  // "connect", "request_headers", "continue_wait", ...

struct Phase {
    PhaseKind kind = PhaseKind::Connect;
    int64_t start_ns = 0, end_ns = 0;
    uint64_t start_frame = 0, end_frame = 0;
    double duration_ms() const { return double(end_ns - start_ns) / 1e6; }
};

// How one HTTP message travelled.
struct MessageInfo {
    uint64_t first_frame = 0, headers_end_frame = 0, body_first_frame = 0, last_frame = 0;
    int64_t first_ns = 0, headers_end_ns = 0, body_first_ns = 0, last_ns = 0;  // body_first = 0: no body
    uint64_t header_bytes = 0;
    uint64_t body_bytes = 0;            // on the wire (chunk framing included)
    std::vector<uint32_t> write_sizes;  // payload bytes of each segment that carried it, in order
    std::vector<uint64_t> frames;       // those segments' frames
    bool complete = false;              // seen whole: framing complete and no byte missing
    uint64_t missing_bytes = 0;         // bytes of it never captured (gaps; a gap that cut it short counts whole)
    // Body content (after Content-Encoding), measured at decode time for the
    // message_size detector; 0 when the body was empty or not decoded.
    uint64_t content_bytes = 0;         // decoded body bytes
    uint64_t markup_bytes = 0;          // of those, bytes inside <...> (XML tags, declarations)
    // Deflate size of the body (estimated from 16 KiB of a larger one,
    // deflate_sample): bodies under 512 B count whole; larger ones only when
    // compressed (0: not in the sample).
    uint64_t deflate_estimate = 0;
    bool deflate_pick = false;          // hash-picked into the sample (DeflateSampler)
    // The body was read whole (analyzers/calls/xml_sample.h): markup_bytes
    // and its envelope's element_count, max_depth and error are measured.
    // False: only its head was read, and those are not known.
    bool whole_xml = true;
};

// One part of a call's latency and what it went to (calls[].attribution):
// the parts of a complete call are >= 0 and add up to latency_ms to the
// microsecond (analyzers/accounting/call_ledger.h makes them).
struct TimeShare {
    std::string cause;   // a finding kind, or request_transfer / server / response_transfer
    double ms = 0;
};

// What one fix (a finding kind and the side that must change) would take
// off one call's latency: the union of the intervals it removes.
struct FixSaving {
    std::string kind;
    Side side = Side::Client;
    double ms = 0;
};

struct Call {
    uint64_t id = 0;                 // 1-based, in order of request start
    uint64_t connection_id = 0;
    uint32_t index_on_connection = 0; // 0 = first call on its connection

    std::string method, uri, http_version;  // request line
    int status = 0;                  // final status (0 = no response seen)
    std::string reason;
    std::string user_agent, server, content_type, soap_action, content_encoding;
    bool expect_continue = false;    // request carried Expect: 100-continue
    bool got_continue = false;       // an interim 100 arrived
    uint64_t continue_frame = 0;
    int64_t continue_ns = 0;
    bool request_chunked = false, response_chunked = false;
    bool connection_close = false;   // either side asked to close
    bool request_close = false;      // the request itself asked (Connection: close, or HTTP/1.0 without keep-alive)

    MessageInfo request, response;
    SoapInfo soap;                   // request envelope (operation)
    SoapInfo soap_response;          // response envelope (faults)

    uint64_t request_first_frame = 0, response_last_frame = 0;
    int64_t start_ns = 0, end_ns = 0;  // first request byte, last response byte
    double latency_ms = 0;             // end - start (0 when incomplete)
    bool complete = false;             // a final response was seen entirely
    bool opened_connection = false;    // this call's connection began with it
    bool closed_connection = false;    // the connection closed after it

    // TLS read without keys (analyzers/calls/tls_keyless_calls.h): method,
    // URI, status and operation are unknown; the messages are the
    // application-data records by direction change, their sizes the records'
    // plaintext (exact for AEAD suites, Connection::tls says).
    bool encrypted = false;

    std::vector<Phase> phases;
    // The call ledger's account (complete calls only): the partition of
    // latency_ms, the connection setup before the first request byte when
    // this call opened its connection (SYN -> first request byte; -1 = none
    // seen), and what each fix would take off the latency.
    std::vector<TimeShare> attribution;
    double setup_ms = -1;
    std::vector<FixSaving> savings;
    // Whose view latency_ms is (where its connection was captured), and the
    // round trip from the capture point to the client and back (-1 unknown):
    // the client lived latency_ms plus that (an estimate; 0 at the client).
    CapturePlace view = CapturePlace::Unknown;
    double client_path_ms = -1;
    // Segments of this call's window (with the handshake if it opened the
    // connection). Kept only when the analysis is asked to keep segments.
    std::vector<SegmentInfo> segments;
};

// What a TLS connection's clear-text handshake said, and whether its bytes were read.
struct ConnectionTls {
    std::string version;             // "TLS 1.3", "TLS 1.2", ... ("" = no ServerHello seen)
    std::string cipher_suite;        // IANA name, or "0x1301" style when not in our table
    std::string sni, alpn;
    bool resumed = false;            // abbreviated handshake: session id / ticket / PSK accepted
    bool resumption_offered = false; // the ClientHello offered a session (id, ticket or PSK)
    bool decrypted = false;
    std::string reason;              // why not decrypted ("" when decrypted)
    // ClientHello -> the last handshake record before the first application data.
    uint64_t handshake_first_frame = 0, handshake_last_frame = 0;
    int64_t handshake_start_ns = 0, handshake_end_ns = 0;
    uint64_t certificate_bytes = 0;  // the Certificate message (clear in TLS <= 1.2, else 0)
    // The server's first flight: its bytes from the ServerHello up to the
    // client's next flight, and the segments that carried them.
    uint64_t server_flight_bytes = 0;
    uint32_t server_flight_segments = 0;
    uint32_t session_tickets = 0;    // NewSessionTicket messages (clear ones, or TLS 1.3 records taken for them)
    uint32_t record_overhead = 0;    // bytes per record that are not plaintext (0 = unknown)
    bool sizes_exact = false;        // record_overhead is exact (AEAD suites)
};

struct Connection {
    uint64_t id = 0;                 // 1-based, in order of first packet
    Endpoint client, server;
    bool saw_syn = false;            // false: capture began mid-connection
    int64_t syn_ns = 0, synack_ns = 0, ack_ns = 0;   // handshake times (0 = not seen)
    uint64_t syn_frame = 0, synack_frame = 0, ack_frame = 0;
    uint32_t syn_retransmissions = 0;
    std::optional<double> handshake_ms;  // SYN -> final ACK (or SYN -> SYN-ACK)
    std::optional<uint16_t> client_mss, server_mss;
    std::optional<uint8_t> client_wscale, server_wscale;
    uint64_t first_frame = 0, last_frame = 0;
    int64_t first_ns = 0, last_ns = 0;
    uint64_t packets = 0;
    uint64_t client_bytes = 0, server_bytes = 0;   // payload bytes
    uint32_t retransmissions = 0;
    uint64_t gap_bytes = 0;          // bytes never captured
    // The quickest data -> pure-or-piggybacked ACK seen from the capture
    // point to each side and back (-1: none): the side's share of the round
    // trip (analyzers/result/capture_point.h), with the handshake's.
    int64_t client_path_ns = -1, server_path_ns = -1;
    uint32_t path_samples = 0;       // data/ACK pairs behind them
    // The highest IPv4 TTL / IPv6 hop limit seen from each side (0: none):
    // how many routers its packets passed before the capture point
    // (hops_from_ttl in analyzers/result/capture_point.h).
    uint8_t client_ttl = 0, server_ttl = 0;
    bool fin_client = false, fin_server = false, rst = false;
    uint32_t calls = 0;
    bool http = false;               // carried HTTP
    std::optional<ConnectionTls> tls; // set when its streams were TLS
};

struct Finding {
    std::string kind;                // nagle_delayed_ack, split_write, ...
    Side side = Side::Client;        // who caused it
    uint64_t connection_id = 0;
    std::vector<uint64_t> calls;
    std::vector<uint64_t> frames;    // evidence frames
    double cost_ms = 0;
    std::string cost_method;         // how cost_ms was computed
    std::string explanation;         // one line
    std::string fix;                 // the general fix
    std::string toolkit;             // recognised toolkit, if any
    std::string toolkit_fix;         // that toolkit's own setting
    int64_t start_ns = 0, end_ns = 0; // the stall interval, for diagrams
    // The stretches of time the stall took (what its fix removes), within
    // the call's latency window; empty for findings that are no wait
    // (split_write, message_size) or lie outside it (connection_setup).
    struct Interval { int64_t start_ns = 0, end_ns = 0; };
    std::vector<Interval> intervals;
    // Its part of the calls' partition after overlaps (call_ledger): where a
    // finding with precedence covers the same time, that time is counted
    // there, not here. connection_setup: the handshake (beside the partition).
    double counted_ms = 0;
    std::vector<std::pair<std::string, std::string>> details; // extra facts (write sizes...)
};

// A problem met while analysing, as data: what it is (code), where (frame,
// file offset, connection, call) and a sentence for people. Code tells
// warnings apart by `code`, never by their text.
struct Warning {
    WarningCode code = WarningCode::Other;
    // For people. Made where the warning is raised, except the call's
    // number: "{call}" stands for it until the back stage knows the final
    // id (worker threads number calls locally) and fills it in.
    std::string message;
    uint64_t frame = 0;              // 0 = not tied to a frame
    uint64_t offset = 0;             // file offset, where known
    uint64_t connection_id = 0;      // 0 = none
    uint64_t call_id = 0;            // 0 = none
};

// A capture read from several files (a file set, issue 24): frames are
// numbered across the set; frame_runs say where each was (capture/frame_runs.h).
struct CaptureFile {
    std::string path;
    uint64_t frames = 0;
};

struct CaptureInfo {
    std::string file;                // the first file of a set
    std::vector<CaptureFile> files;  // empty: one file
    std::vector<FrameRun> frame_runs;
    std::string format;              // pcap, pcap-ns, pcapng
    uint64_t packets = 0;
    uint64_t bytes = 0;              // file size
    std::vector<std::string> link_types;
    int64_t first_ns = 0, last_ns = 0;
    std::vector<Warning> warnings;
    bool truncated = false;          // reading stopped at damage
    Warning damage;                  // truncated: what stopped it (also in warnings, unless they were capped)
    uint64_t non_tcp_packets = 0, undecodable_packets = 0;
};

// The file and frame number within it of capture frame `frame` (a file set);
// for one file, file 0 and the frame itself. False: not a frame of the set.
bool locate_frame(const CaptureInfo& c, uint64_t frame, uint32_t& file, uint64_t& file_frame);

struct LatencyStats {
    uint64_t calls = 0;
    double median_ms = 0, p90_ms = 0, max_ms = 0, mean_ms = 0, total_ms = 0;
};

struct KindLoss {
    std::string kind;
    uint64_t findings = 0, calls = 0;
    double lost_ms = 0;              // the findings' counted_ms (each millisecond once)
    double share = 0;                // lost_ms / total latency of the calls (connection_setup: of their client time)
    bool avoidable = true;           // a stall with a fix (false: server_time, server processing)
};

// The latency one fix would leave (summary what_if).
struct WhatIf {
    std::string kind;                // a finding kind, or "all_stalls"
    std::string side;                // client / server / "" (all stalls)
    double predicted_median_ms = 0, predicted_p90_ms = 0;
    uint64_t calls = 0;              // calls it changes
    // connection_setup: the client's time (setup + latency) instead.
    bool client_time = false;
};

struct SummaryGroup {
    std::string operation;           // "" = the whole capture
    LatencyStats latency;
    std::vector<KindLoss> losses;
    double predicted_median_ms = 0;  // median latency with every stall's intervals removed
    double predicted_total_ms = 0;
    // The partition summed over the group's calls (call_ledger totals).
    std::vector<TimeShare> attribution;  // by cause, largest first
    double avoidable_ms = 0;         // stalls with a fix
    double server_ms = 0;            // server processing (no transport fix removes it)
    double transfer_ms = 0;          // request and response transfer
    double setup_ms = 0;             // connection setup of the calls that opened their connection
    LatencyStats client_latency;     // setup + latency per call (the time as the client lives it)
    std::vector<WhatIf> what_if;
};

struct Summary {
    SummaryGroup overall;
    std::vector<SummaryGroup> per_operation;
    // Latency + the capture point's path to the client, over the complete
    // calls whose path is known (a server or mid-path capture): the time the
    // client lived, estimated (the text report's "The client lived about").
    LatencyStats client_lived;
};

class ResultSpill;  // analyzers/result/result_spill.h

struct AnalysisResult {
    CaptureInfo capture;
    std::vector<Connection> connections;
    std::vector<Call> calls;
    std::vector<Finding> findings;
    Summary summary;
    // Set when the analysis spilled its items to disk (more calls than it
    // keeps in memory): connections, calls and findings are then there and
    // the vectors above are empty. Read items with for_each_* from
    // analyzers/result/result_spill.h to handle both.
    std::shared_ptr<const ResultSpill> spill;
    // How the whole-document XML figures were taken (AnalysisOptions::full_xml,
    // xml_sample_first/every): first = 0 means every call.
    uint64_t xml_sample_first = 0, xml_sample_every = 0;
    // Calls analysed but not kept (AnalysisOptions::keep_calls): in
    // call_count(), never in calls or the spill.
    uint64_t calls_not_kept = 0;
};

} // namespace stallscope
