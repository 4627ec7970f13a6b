#pragma once
// Frames the streaming pcapng writer tests write and read back: payload(i)
// is recognisable (its length hits every padding), so a reader can check
// that frame i is whole and in its place.
#include "capture/frame.h"
#include "capture/pcap/pcapng_writer.h"
#include "capture/tests/packet_builder.h"

#include <cstdint>
#include <span>

namespace stallscope::test {

// Frame i carries (i % 97) + 1 bytes of value i & 0xff, so lengths hit every padding.
inline Bytes payload(uint64_t i) { return Bytes(size_t(i % 97) + 1, uint8_t(i)); }

inline Frame frame_of(const Bytes& b, int64_t ts_ns, uint32_t origlen = 0) {
    Frame f;
    f.ts_ns = ts_ns;
    f.origlen = origlen ? origlen : uint32_t(b.size());
    f.data = std::span<const uint8_t>(b.data(), b.size());
    return f;
}

inline PcapngInterface lo_iface() {
    PcapngInterface i;
    i.linktype = 1;
    i.snaplen = 262144;
    i.name = "lo";
    i.filter = "tcp port 8080";
    return i;
}

} // namespace stallscope::test
