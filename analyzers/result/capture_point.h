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
    int64_t rtt_ns() const { return client_ns + server_ns; }
    // The client's share of the round trip, 0..1 (0 when not known).
    double client_share() const { return known && rtt_ns() > 0 ? double(client_ns) / double(rtt_ns()) : 0; }
};

PathPosition path_position(const Connection& conn);

// Near the client: its side is at most a fifth of the round trip; near the
// server likewise; in between: in the path.
CapturePlace place_of(const PathPosition& p);

// The round trip from the capture point to `side` and back as the timing
// rules use it: 0 when unknown or when the whole round trip is under
// kPlaceableRttNs.
int64_t path_to(const PathPosition& p, Side side);

} // namespace stallscope
