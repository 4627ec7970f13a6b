#pragma once
// Small pieces shared by the pcap and pcapng readers: the error text format.
#include "capture/pcap/pcap_file_reader.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace stallscope::capture_detail {

// "<path>: <reason> (offset N)" -- the one error format of both readers.
inline std::string file_error(const std::string& path, const std::string& reason, uint64_t offset) {
    return path + ": " + reason + " (offset " + std::to_string(offset) + ")";
}

} // namespace stallscope::capture_detail
