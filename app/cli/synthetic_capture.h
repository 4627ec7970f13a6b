#pragma once
// Writes a large synthetic SOAP capture for the benchmark: many concurrent
// connections (keep-alive with clean one-write calls, and HTTP/1.0 calls
// with a split header/body write held 40 ms by Nagle/delayed ACK),
// interleaved by time as a busy server would see them. Streams straight
// to disk; memory is the set of connections in flight.
#include <cstdint>
#include <string>

namespace stallscope::cli {

struct SyntheticStats {
    uint64_t packets = 0, bytes = 0, connections = 0, calls = 0;
};

// tls_keylog non-empty: the same connections and calls over TLS 1.3
// (synthetic_tls.h; port 443, three handshake packets more per connection,
// each payload one record), their secrets written to that NSS key log.
// connections non-zero: exactly that many connections (the same ones, in
// the same order, as a plaintext file that had them), whatever the packets.
// envelope_bytes non-zero: each request and response envelope carries an
// array of doubles of about that size (seed 002's echoDoubles), each write
// still one segment, as a capture on a host with TSO/GRO sees it; zero: the
// small getString envelopes (~250 and ~430 bytes). At most kMaxEnvelope.
inline constexpr size_t kMaxEnvelope = 60000;
bool write_synthetic_capture(const std::string& path, uint64_t target_packets, SyntheticStats& stats,
                             std::string& error, const std::string& tls_keylog = {}, uint64_t connections = 0,
                             size_t envelope_bytes = 0);

} // namespace stallscope::cli
