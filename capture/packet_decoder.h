#pragma once
// Link, IP and TCP decoding from raw bytes. Pure: no libpcap, no I/O, every
// byte read through a bounds-checked reader, so it can be unit-tested and
// fuzzed from bytes.
#include "capture/ip_address.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace stallscope {

// LINKTYPE_* values we decode (see https://www.tcpdump.org/linktypes.html).
namespace linktype {
constexpr int kNull = 0;          // BSD loopback, host byte order family
constexpr int kEthernet = 1;      // with 802.1Q / QinQ tags
constexpr int kRaw = 101;         // raw IPv4/IPv6
constexpr int kLoop = 108;        // OpenBSD loopback, network byte order family
constexpr int kLinuxSll = 113;    // Linux cooked v1 ("-i any")
constexpr int kIpv4 = 228;
constexpr int kIpv6 = 229;
constexpr int kLinuxSll2 = 276;   // Linux cooked v2
}
const char* linktype_name(int linktype); // "EN10MB", "LINUX_SLL", ... or "LINKTYPE_<n>"

namespace tcpflag {
constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10, kUrg = 0x20;
}

struct TcpPacket {
    Endpoint src, dst;
    uint32_t seq = 0, ack = 0;
    uint8_t flags = 0;
    uint16_t window = 0;             // raw, unscaled
    std::optional<uint16_t> mss;     // SYN options
    std::optional<uint8_t> wscale;
    bool sack_permitted = false;
    uint32_t payload_len = 0;        // TCP payload length on the wire (from IP lengths)
    std::span<const uint8_t> payload; // captured part of the payload (may be shorter)
};

enum class DecodeStatus {
    Tcp,              // tcp is filled in
    NotTcp,           // a well-formed packet of another protocol (ARP, UDP, ICMP...)
    Fragment,         // an IP fragment (not reassembled); detail says which
    UnsupportedLink,  // link type we do not decode
    Malformed,        // truncated or inconsistent headers; detail says what
};

struct DecodeResult {
    DecodeStatus status = DecodeStatus::Malformed;
    TcpPacket tcp;
    std::string detail;  // human-readable reason for Fragment/UnsupportedLink/Malformed
};

DecodeResult decode_packet(int linktype, std::span<const uint8_t> data);

} // namespace stallscope
