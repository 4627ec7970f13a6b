#pragma once
// Finds Nagle / delayed-ACK stalls in one call's segments. Shared by the
// nagle_delayed_ack detector (which reports them), split_write (which says
// which split armed one) and server_time (which must not blame the server
// for a hold that was Nagle's).
#include "analyzers/result/capture_point.h"
#include "analyzers/result/model.h"

#include <vector>

namespace stallscope::detect {

// Thresholds, and why (see docs/detectors/nagle_delayed_ack.md):
// - A's ACK is "late" from 10 ms on. The shortest delayed-ACK timer in use is Linux's 40 ms
//   (macOS ~100 ms, Windows 200 ms); an ACK that is not delayed comes back
//   in one RTT, microseconds on loopback and well under 10 ms on a LAN.
//   10 ms sits far below every timer and far above scheduler noise.
// - The ACK is late by what exceeds the round trip from the capture point
//   to the receiver (analyzers/result/capture_point.h): 0 at the receiver,
//   the whole RTT at the sender, half of it half-way.
// - B is "released by" the ACK when it passes the capture point the round
//   trip from the capture to the sender after the ACK did (0 at the sender,
//   one RTT at the receiver), within 2 ms plus a tenth of the RTT either
//   way (on loopback it is tens of microseconds; 2 ms allows for a busy
//   host, the tenth for the path's jitter).
constexpr int64_t kLateAckNs = 10'000'000;
constexpr int64_t kCouplingNs = 2'000'000;

struct NagleStall {
    Side sender = Side::Client;       // whose data was held
    size_t a = 0, ack = 0, b = 0;     // indexes into call.segments (ack may be SIZE_MAX if not in the call)
    uint64_t a_frame = 0, ack_frame = 0, b_frame = 0;
    int64_t a_ns = 0, ack_ns = 0, b_ns = 0;
    uint32_t a_len = 0, b_len = 0;
    uint16_t a_carries = 0, b_carries = 0;
    int64_t rtt_ns = 0;               // the RTT estimate subtracted
    double cost_ms = 0;               // (B - A) - RTT, >= 0
    bool after_continue = false;      // A was an interim 100 Continue (seed Fig. 3)
};

std::vector<NagleStall> find_nagle_stalls(const Call& call, const Connection& conn);
// The same, given path_position(conn).
std::vector<NagleStall> find_nagle_stalls(const Call& call, const Connection& conn, const PathPosition& where);

} // namespace stallscope::detect
