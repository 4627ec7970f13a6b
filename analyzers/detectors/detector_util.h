#pragma once
// Small facts every detector needs about a call's segments: the usable
// segment size of each sender, a round-trip estimate, and finding/number
// formatting (where the capture was taken: analyzers/result/capture_point.h).
// No detector logic here.
#include "analyzers/result/model.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stallscope::detect {

constexpr double kNsPerMs = 1e6;
inline double ms(int64_t ns) { return double(ns) / kNsPerMs; }

// Payload bytes one segment from `sender` can carry: the peer's MSS option
// minus 12 (TCP timestamps, the usual case; being 12 bytes low only makes
// "would have fit one segment" more conservative). Unknown MSS: 65483 on
// loopback, else 1448 (Ethernet with timestamps) or the largest payload the
// sender was seen to send, whichever is larger.
uint32_t usable_mss(const Call& call, const Connection& conn, Side sender);
bool is_loopback(const Endpoint& e);

// One round trip as the capture point sees it: the handshake (SYN to the
// final ACK is one RTT wherever the capture was taken), else the quickest
// ACK of any data segment in the call, else 0.
int64_t rtt_estimate_ns(const Call& call, const Connection& conn);

// Which message a segment's bytes belong to: 1 = the request, 2 = the
// response (an interim 100 Continue counts with the response it precedes),
// 0 = none/other.
int message_group(uint16_t carries_bits);

Side peer_of(Side s);

// "191,494" (at most `max` values, then ",...").
std::string join_sizes(const std::vector<uint32_t>& v, size_t max = 16);
std::string join_frames(const std::vector<uint64_t>& v, size_t max = 16);
std::string fmt_ms(double v);  // "43.7" / "0.052"

// A finding's text built in one buffer: strings and integers (as
// std::to_string writes them) appended in order, where a chain of
// `"..." + std::to_string(n) + ...` makes a temporary string per `+`.
inline void append_text(std::string& s, std::string_view v) { s.append(v); }
template <class I>
    requires std::is_integral_v<I> && (!std::is_same_v<I, bool>) && (!std::is_same_v<I, char>)
void append_text(std::string& s, I n) {
    char b[24];
    s.append(b, std::to_chars(b, b + sizeof b, n).ptr);
}
template <class... Parts>
std::string text(const Parts&... parts) {
    std::string s;
    s.reserve(192);
    (append_text(s, parts), ...);
    return s;
}

// A call without its per-segment vectors (segments, phases, write sizes,
// frames): what a detector keeps of a call it decides about later, when the
// call itself may already be on disk.
Call call_facts(const Call& call);

// A finding with the fields every kind fills the same way.
Finding make_finding(const char* kind, Side side, const Call& call);
Finding make_finding(const char* kind, Side side, uint64_t connection_id, uint64_t call_id);

} // namespace stallscope::detect
