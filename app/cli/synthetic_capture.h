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

bool write_synthetic_capture(const std::string& path, uint64_t target_packets, SyntheticStats& stats,
                             std::string& error);

} // namespace stallscope::cli
