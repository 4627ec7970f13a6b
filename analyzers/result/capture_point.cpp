#include "analyzers/result/capture_point.h"

#include <algorithm>

namespace stallscope {

namespace {
void least(int64_t& into, bool& have, int64_t v) {
    if (v < 0) return;
    into = have ? std::min(into, v) : v;
    have = true;
}
} // namespace

PathPosition path_position(const Connection& conn) {
    PathPosition p;
    bool have_c = false, have_s = false;
    // A retransmitted SYN: which copy the SYN-ACK answers is unknown.
    if (conn.syn_frame && conn.synack_frame && conn.syn_retransmissions == 0 && conn.synack_ns >= conn.syn_ns) {
        least(p.server_ns, have_s, conn.synack_ns - conn.syn_ns);
        p.from_handshake = true;
    }
    if (conn.synack_frame && conn.ack_frame && conn.ack_ns >= conn.synack_ns) {
        least(p.client_ns, have_c, conn.ack_ns - conn.synack_ns);
        p.from_handshake = true;
    }
    least(p.client_ns, have_c, conn.client_path_ns);
    least(p.server_ns, have_s, conn.server_path_ns);
    p.data_ack_pairs = conn.path_samples;
    p.known = have_c && have_s;
    if (!p.known) p.client_ns = p.server_ns = 0;
    return p;
}

CapturePlace place_of(const PathPosition& p) {
    if (!p.known) return CapturePlace::Unknown;
    if (p.rtt_ns() < kPlaceableRttNs) return CapturePlace::Both;
    double c = p.client_share();
    if (c <= 0.2) return CapturePlace::Client;
    if (c >= 0.8) return CapturePlace::Server;
    return CapturePlace::Path;
}

int64_t path_to(const PathPosition& p, Side side) {
    if (!p.known || p.rtt_ns() < kPlaceableRttNs) return 0;
    return side == Side::Client ? p.client_ns : p.server_ns;
}

} // namespace stallscope
