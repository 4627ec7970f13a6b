#include "analyzers/detectors/detector_util.h"

#include "analyzers/result/ms_text.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::detect {

bool is_loopback(const Endpoint& e) {
    const auto& b = e.addr.bytes;
    if (e.addr.family == 4) return b[0] == 127;
    if (e.addr.family == 6) {
        for (int i = 0; i < 15; ++i) if (b[i] != 0) return false;
        return b[15] == 1;
    }
    return false;
}

uint32_t usable_mss(const Call& call, const Connection& conn, Side sender) {
    // The sender's segments are bounded by the MSS its peer announced.
    auto opt = sender == Side::Client ? conn.server_mss : conn.client_mss;
    if (!opt) opt = sender == Side::Client ? conn.client_mss : conn.server_mss;
    if (opt && *opt > 12) return uint32_t(*opt) - 12;
    if (is_loopback(conn.client) || is_loopback(conn.server)) return 65483;
    uint32_t largest = 0;
    for (const SegmentInfo& s : call.segments)
        if (s.from == sender) largest = std::max(largest, s.len);
    return std::max<uint32_t>(1448, largest);
}

int64_t rtt_estimate_ns(const Call& call, const Connection& conn) {
    if (conn.syn_frame && conn.ack_frame && conn.ack_ns >= conn.syn_ns) return conn.ack_ns - conn.syn_ns;
    if (conn.syn_frame && conn.synack_frame && conn.synack_ns >= conn.syn_ns) return conn.synack_ns - conn.syn_ns;
    int64_t best = -1;
    for (const SegmentInfo& s : call.segments) {
        if (s.len == 0 || s.acked_ns < s.ts_ns || s.retransmission) continue;
        int64_t d = s.acked_ns - s.ts_ns;
        if (best < 0 || d < best) best = d;
    }
    return best < 0 ? 0 : best;
}

int message_group(uint16_t c) {
    if (c & (carries::kRequestHeaders | carries::kRequestBody)) return 1;
    if (c & (carries::kContinue | carries::kResponseHeaders | carries::kResponseBody)) return 2;
    return 0;
}

Side peer_of(Side s) { return s == Side::Client ? Side::Server : Side::Client; }

template <class T>
static std::string join(const std::vector<T>& v, size_t max) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i == max) { out += ",..."; break; }
        if (i) out += ",";
        out += std::to_string(v[i]);
    }
    return out;
}

std::string join_sizes(const std::vector<uint32_t>& v, size_t max) { return join(v, max); }
std::string join_frames(const std::vector<uint64_t>& v, size_t max) { return join(v, max); }

std::string fmt_ms(double v) { return ms_number(v, 1); }

namespace {
MessageInfo message_facts(const MessageInfo& m) {
    MessageInfo k;
    k.first_frame = m.first_frame;
    k.headers_end_frame = m.headers_end_frame;
    k.body_first_frame = m.body_first_frame;
    k.last_frame = m.last_frame;
    k.first_ns = m.first_ns;
    k.headers_end_ns = m.headers_end_ns;
    k.body_first_ns = m.body_first_ns;
    k.last_ns = m.last_ns;
    k.header_bytes = m.header_bytes;
    k.body_bytes = m.body_bytes;
    k.complete = m.complete;
    k.missing_bytes = m.missing_bytes;
    k.content_bytes = m.content_bytes;
    k.markup_bytes = m.markup_bytes;
    k.deflate_estimate = m.deflate_estimate;
    k.deflate_pick = m.deflate_pick;
    k.whole_xml = m.whole_xml;
    return k;
}
} // namespace

// Field by field: copying the whole call and then dropping its vectors
// copied every segment first (connection_setup keeps the facts of every
// call that opened its connection). model_spill_tests checks that every
// field but those vectors is copied.
Call call_facts(const Call& call) {
    Call k;
    k.id = call.id;
    k.connection_id = call.connection_id;
    k.index_on_connection = call.index_on_connection;
    k.method = call.method;
    k.uri = call.uri;
    k.http_version = call.http_version;
    k.status = call.status;
    k.reason = call.reason;
    k.user_agent = call.user_agent;
    k.server = call.server;
    k.content_type = call.content_type;
    k.soap_action = call.soap_action;
    k.content_encoding = call.content_encoding;
    k.expect_continue = call.expect_continue;
    k.got_continue = call.got_continue;
    k.continue_frame = call.continue_frame;
    k.continue_ns = call.continue_ns;
    k.request_chunked = call.request_chunked;
    k.response_chunked = call.response_chunked;
    k.connection_close = call.connection_close;
    k.request_close = call.request_close;
    k.request = message_facts(call.request);
    k.response = message_facts(call.response);
    k.soap = call.soap;
    k.soap_response = call.soap_response;
    k.request_first_frame = call.request_first_frame;
    k.response_last_frame = call.response_last_frame;
    k.start_ns = call.start_ns;
    k.end_ns = call.end_ns;
    k.latency_ms = call.latency_ms;
    k.complete = call.complete;
    k.opened_connection = call.opened_connection;
    k.closed_connection = call.closed_connection;
    k.encrypted = call.encrypted;
    k.attribution = call.attribution;
    k.setup_ms = call.setup_ms;
    k.savings = call.savings;
    k.view = call.view;
    k.client_path_ms = call.client_path_ms;
    return k;
}

Finding make_finding(const char* kind, Side side, const Call& call) {
    return make_finding(kind, side, call.connection_id, call.id);
}

Finding make_finding(const char* kind, Side side, uint64_t connection_id, uint64_t call_id) {
    Finding f;
    f.kind = kind;
    f.side = side;
    f.connection_id = connection_id;
    f.calls.push_back(call_id);
    return f;
}

} // namespace stallscope::detect
