#pragma once
// Where on the path between client and server a connection was captured: not
// "near the client or near the server" but the share of the round trip on
// each side of the capture point.
//
// A packet passes the capture point, reaches one end, and the answer comes
// back past the capture point: that round trip is the end's side of the
// path. The handshake gives one sample of each (SYN -> SYN-ACK: the server's
// side; SYN-ACK -> ACK: the client's); so does every data segment and the
// ACK that covers it (more when the ACK was delayed, so the least sample
// counts). Near the client its side is ~0 and the server's is the whole
// round trip; on a middle hop both are about half.
//
// Every timing rule that depends on where the capture was taken reads this
// (detectors, the call ledger, the report). docs/live-capture.md, "Where the
// capture was taken".
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>

namespace stallscope {

// Below this round trip the capture point is not placed (both ends are
// within it): every side's share counts as 0, the rules are those of a
// capture at both ends at once (loopback, one switch).
inline constexpr int64_t kPlaceableRttNs = 1'000'000;

struct PathPosition {
    bool known = false;             // both sides sampled
    int64_t client_ns = 0;          // capture -> client -> capture
    int64_t server_ns = 0;          // capture -> server -> capture
    bool from_handshake = false;    // the handshake gave a sample
    uint32_t data_ack_pairs = 0;    // data/ACK pairs gave the others
    // Routers each side's packets passed before the capture point, from
    // their TTLs (-1: unknown). Where timing cannot place a connection
    // (no handshake, no data/ACK pair both ways) they still can.
    int client_hops = -1, server_hops = -1;
    int64_t rtt_ns() const { return client_ns + server_ns; }
    // The client's share of the round trip, 0..1 (0 when not known).
    double client_share() const { return known && rtt_ns() > 0 ? double(client_ns) / double(rtt_ns()) : 0; }
};

PathPosition path_position(const Connection& conn);

// Routers a packet passed: how far its TTL (IPv4) or hop limit (IPv6) is
// below the nearest common initial value at or above it (64: Linux, macOS;
// 128: Windows; 255: network gear; 32: old stacks). -1 for 0 (unknown). A
// guess where a host uses another initial value, hence evidence only.
int hops_from_ttl(uint8_t ttl);

// Near the client: its side is at most a fifth of the round trip; near the
// server likewise; in between: in the path. Without the timing, from the
// TTLs: 0 routers from the client and some from the server is near the
// client (and the other way round); routers from both is in the path.
CapturePlace place_of(const PathPosition& p);
// The TTLs' answer alone (Unknown when they say nothing).
CapturePlace place_by_ttl(const PathPosition& p);

// The round trip from the capture point to `side` and back as the timing
// rules use it: 0 when unknown or when the whole round trip is under
// kPlaceableRttNs.
int64_t path_to(const PathPosition& p, Side side);

} // namespace stallscope
