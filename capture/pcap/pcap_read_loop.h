#pragma once
// A bare libpcap read loop over a file: the baseline the benchmark compares
// the full analysis against (how fast can the bytes be read at all).
#include <cstdint>
#include <string>

namespace stallscope {

struct ReadLoopStats {
    uint64_t packets = 0, bytes = 0;  // bytes = captured bytes of all packets
    bool ok = false;
    std::string error;
};

ReadLoopStats bare_pcap_read(const std::string& path);

} // namespace stallscope
