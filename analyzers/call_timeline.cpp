#include "analyzers/call_timeline.h"

namespace stallscope {

void build_phases(Call& c, const Connection& conn, int64_t close_ns, uint64_t close_frame) {
    c.phases.clear();
    auto add = [&](PhaseKind k, int64_t s, uint64_t sf, int64_t e, uint64_t ef) {
        if (sf == 0 || ef == 0 || e < s) return;
        c.phases.push_back(Phase{k, s, e, sf, ef});
    };
    const MessageInfo& rq = c.request;
    const MessageInfo& rs = c.response;
    if (c.opened_connection && conn.syn_frame) {
        if (conn.ack_frame) add(PhaseKind::Connect, conn.syn_ns, conn.syn_frame, conn.ack_ns, conn.ack_frame);
        else add(PhaseKind::Connect, conn.syn_ns, conn.syn_frame, conn.synack_ns, conn.synack_frame);
    }
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
