#include "analyzers/calls/call_timeline.h"

#include <algorithm>
#include <cstdint>

namespace stallscope {

namespace {
// Each known boundary (frame != 0) no earlier than `floor` and the one before it.
void order_message(MessageInfo& m, int64_t floor) {
    int64_t prev = floor;
    auto fix = [&](uint64_t frame, int64_t& ns) {
        if (!frame) return;
        ns = std::max(ns, prev);
        prev = ns;
    };
    fix(m.first_frame, m.first_ns);
    fix(m.headers_end_frame, m.headers_end_ns);
    fix(m.body_first_frame, m.body_first_ns);
    fix(m.last_frame, m.last_ns);
}
} // namespace

void order_call_times(Call& c) {
    order_message(c.request, 0);
    int64_t start = c.request.first_frame ? c.request.first_ns : c.start_ns;
    order_message(c.response, start);
    if (c.continue_frame) c.continue_ns = std::max(c.continue_ns, start);
    if (c.request.first_frame) c.start_ns = start;
    if (c.complete && c.response.last_frame) c.end_ns = c.response.last_ns;
    else if (!c.complete && c.request.last_frame) c.end_ns = c.request.last_ns;  // an unanswered call ends with its request
    c.end_ns = std::max(c.end_ns, c.start_ns);
    c.latency_ms = c.complete ? double(c.end_ns - c.start_ns) / 1e6 : 0.0;
}

void build_phases(Call& c, const Connection& conn, int64_t close_ns, uint64_t close_frame) {
    c.phases.clear();
    c.phases.reserve(8);  // one of each PhaseKind at most: one allocation, not four
    // Phases in time order: none starts before the one before it ended, none
    // ends before it starts (such a phase is left out).
    // A complete call's own phases lie inside it (first request byte -> last
    // response byte): a request body still going after an early response ends there.
    int64_t cursor = INT64_MIN;
    // Inlined: a call through the closure (five arguments, nine call sites) cost more than the body.
    auto add = [&](PhaseKind k, int64_t s, uint64_t sf, int64_t e, uint64_t ef) __attribute__((always_inline)) {
        if (sf == 0 || ef == 0) return;
        if (c.complete && k != PhaseKind::Connect && k != PhaseKind::Close && k != PhaseKind::TlsHandshake) {
            s = std::clamp(s, c.start_ns, c.end_ns);
            e = std::clamp(e, c.start_ns, c.end_ns);
        }
        s = std::max(s, cursor);
        if (e < s) return;
        c.phases.push_back(Phase{k, s, e, sf, ef});
        cursor = e;
    };
    const MessageInfo& rq = c.request;
    const MessageInfo& rs = c.response;
    if (c.opened_connection && conn.syn_frame) {
        // TCP Fast Open: the request left on the SYN; the handshake ran beside
        // it, and the connect phase (the wait before the request) is empty.
        if (rq.first_frame == conn.syn_frame) add(PhaseKind::Connect, conn.syn_ns, conn.syn_frame, conn.syn_ns, conn.syn_frame);
        else if (conn.ack_frame) add(PhaseKind::Connect, conn.syn_ns, conn.syn_frame, conn.ack_ns, conn.ack_frame);
        else add(PhaseKind::Connect, conn.syn_ns, conn.syn_frame, conn.synack_ns, conn.synack_frame);
    }
    // The TLS handshake, paid by the call that opened the connection (before its first request byte).
    if (c.index_on_connection == 0 && conn.tls && conn.tls->handshake_last_frame && c.request.first_frame &&
        conn.tls->handshake_end_ns <= c.request.first_ns)
        add(PhaseKind::TlsHandshake, conn.tls->handshake_start_ns, conn.tls->handshake_first_frame,
            conn.tls->handshake_end_ns, conn.tls->handshake_last_frame);
    add(PhaseKind::RequestHeaders, rq.first_ns, rq.first_frame, rq.headers_end_ns, rq.headers_end_frame);
    // Phases are contiguous: a body phase starts where the head ended, so a
    // wait between head and body (a Nagle stall) is time of the body phase,
    // unless the client was waiting for 100 Continue.
    if (rq.body_first_frame) {
        if (c.expect_continue) {
            add(PhaseKind::ContinueWait, rq.headers_end_ns, rq.headers_end_frame, rq.body_first_ns, rq.body_first_frame);
            add(PhaseKind::RequestBody, rq.body_first_ns, rq.body_first_frame, rq.last_ns, rq.last_frame);
        } else {
            add(PhaseKind::RequestBody, rq.headers_end_ns, rq.headers_end_frame, rq.last_ns, rq.last_frame);
        }
    }
    if (rs.first_frame) {
        add(PhaseKind::ServerTime, rq.last_ns, rq.last_frame, rs.first_ns, rs.first_frame);
        add(PhaseKind::ResponseHeaders, rs.first_ns, rs.first_frame, rs.headers_end_ns, rs.headers_end_frame);
        if (rs.body_first_frame)
            add(PhaseKind::ResponseBody, rs.headers_end_ns, rs.headers_end_frame, rs.last_ns, rs.last_frame);
    }
    if (c.closed_connection && close_frame) {
        bool has_resp = rs.last_frame != 0;
        add(PhaseKind::Close, has_resp ? rs.last_ns : rq.last_ns, has_resp ? rs.last_frame : rq.last_frame, close_ns,
            close_frame);
    }
}

} // namespace stallscope
