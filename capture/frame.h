#pragma once
// One captured frame as it came off a file or an interface. The bytes are
// borrowed from the reader and valid only until its next read.
#include <cstdint>
#include <span>

namespace stallscope {

struct Frame {
    uint64_t number = 0;          // 1-based, as Wireshark numbers frames
    int64_t ts_ns = 0;            // capture time, ns since the Unix epoch
    int linktype = 0;             // LINKTYPE_* value of this frame's interface
    uint32_t interface_id = 0;    // pcapng interface index (0 for pcap)
    uint32_t origlen = 0;         // length on the wire
    uint64_t file_offset = 0;     // byte offset of the record in the file (0 when live)
    std::span<const uint8_t> data; // captured bytes (caplen = data.size())
};

} // namespace stallscope
