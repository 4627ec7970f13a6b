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
    p.client_hops = hops_from_ttl(conn.client_ttl);
    p.server_hops = hops_from_ttl(conn.server_ttl);
    return p;
}

int hops_from_ttl(uint8_t ttl) {
    // Plain comparisons, not a loop over the initial values: this runs for
    // both ends of every call's connection (path_position).
    if (ttl == 0) return -1;
    if (ttl <= 32) return 32 - ttl;
    if (ttl <= 64) return 64 - ttl;
    if (ttl <= 128) return 128 - ttl;
    return 255 - ttl;
}

CapturePlace place_by_ttl(const PathPosition& p) {
    if (p.client_hops < 0 || p.server_hops < 0) return CapturePlace::Unknown;
    if (p.client_hops == 0 && p.server_hops > 0) return CapturePlace::Client;
    if (p.server_hops == 0 && p.client_hops > 0) return CapturePlace::Server;
    if (p.client_hops > 0 && p.server_hops > 0) return CapturePlace::Path;
    return CapturePlace::Unknown;  // both 0: one segment, anywhere on it
}

CapturePlace place_of(const PathPosition& p) {
    if (!p.known) return place_by_ttl(p);
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
