#include "capture/decode_internal.h"

#include <algorithm>

// The shortcut for the frame nearly every capture of HTTP is made of:
// Ethernet without a VLAN tag, IPv4 that is not a fragment, TCP whose header
// and options are whole. Its fields are read at fixed offsets once the
// lengths are checked, instead of through the layers' optional reads, the
// tunnel context and a result per layer (about 580 instructions a packet
// on the bench capture). Any test that fails hands the frame to the general
// decoder, which also says what is wrong with it; every accepted frame gives
// what the general decoder gives (fast_tcp_decoder_tests.cpp compares them).
namespace stallscope::decode {

namespace {

constexpr size_t kEthernetHeader = 14;
constexpr size_t kMinIpv4Header = 20, kMinTcpHeader = 20;

inline uint16_t be16_at(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
inline uint32_t be32_at(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

} // namespace

bool decode_ethernet_ipv4_tcp(std::span<const uint8_t> frame, DecodeResult& r) {
    if (frame.size() < kEthernetHeader + kMinIpv4Header + kMinTcpHeader) return false;
    const uint8_t* eth = frame.data();
    if (eth[12] != 0x08 || eth[13] != 0x00) return false;  // EtherType IPv4, no VLAN tag

    const uint8_t* ip = eth + kEthernetHeader;
    const size_t captured = frame.size() - kEthernetHeader;  // the IP packet as captured
    if ((ip[0] >> 4) != 4) return false;
    const size_t ihl = size_t(ip[0] & 0x0f) * 4;
    if (ihl < kMinIpv4Header || captured < ihl + kMinTcpHeader) return false;
    if ((be16_at(ip + 6) & 0x3fff) != 0) return false;  // more fragments, or an offset: a fragment
    if (ip[9] != 6) return false;                       // not TCP
    // Total length 0 is what TSO/GSO captures show: the captured length stands for it.
    size_t total_len = be16_at(ip + 2);
    if (total_len == 0) total_len = captured;
    if (total_len < ihl) return false;

    // Bytes past total length are link padding, not payload.
    const size_t payload_on_wire = total_len - ihl;
    const uint8_t* tcp = ip + ihl;
    const size_t seg_captured = std::min(captured - ihl, payload_on_wire);
    if (seg_captured < kMinTcpHeader) return false;
    const uint16_t off_flags = be16_at(tcp + 12);
    const size_t hlen = size_t(off_flags >> 12) * 4;
    if (hlen < kMinTcpHeader || hlen > payload_on_wire || hlen > seg_captured) return false;

    TcpPacket& t = r.tcp;
    t.src.addr = IpAddress::v4(ip + 12);
    t.dst.addr = IpAddress::v4(ip + 16);
    t.ttl = ip[8];
    t.src.port = be16_at(tcp);
    t.dst.port = be16_at(tcp + 2);
    t.seq = be32_at(tcp + 4);
    t.ack = be32_at(tcp + 8);
    t.flags = uint8_t(off_flags & 0x3f);
    t.window = be16_at(tcp + 14);
    if (hlen > kMinTcpHeader)
        parse_tcp_options(ByteReader({tcp + kMinTcpHeader, hlen - kMinTcpHeader}), t, r.detail);
    t.payload_len = uint32_t(payload_on_wire - hlen);
    // Captured payload: never more than the IP lengths say (seg_captured is already cut to them).
    t.payload = {tcp + hlen, seg_captured - hlen};
    r.status = DecodeStatus::Tcp;
    return true;
}

} // namespace stallscope::decode
