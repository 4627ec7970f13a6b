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
constexpr int kNflog = 239;       // Linux netfilter log (iptables NFLOG target, "-i nflog")
constexpr int kLinuxSll2 = 276;   // Linux cooked v2
}

// Encapsulations (IP-in-IP, GRE, ERSPAN, VXLAN, Geneve, Teredo, MPLS, PPPoE) nested deeper than
// this are not followed: the packet is reported Unsupported.
constexpr int kMaxTunnelDepth = 6;
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
    uint8_t ttl = 0;                 // IPv4 TTL / IPv6 hop limit of the innermost IP header (0: unknown,
                                     // e.g. reassembled fragments): routers passed tell the capture point
    uint32_t payload_len = 0;        // TCP payload length on the wire (from IP lengths)
    std::span<const uint8_t> payload; // captured part of the payload (may be shorter)
};

// One IPv4 fragment, or one IPv6 packet with a Fragment header, as the
// FragmentReassembler needs it.
struct IpFragment {
    uint8_t version = 0;              // 4 or 6
    IpAddress src, dst;
    uint32_t id = 0;                  // IPv4: 16 bits; IPv6: 32 bits
    uint8_t protocol = 0;             // IPv4 protocol / IPv6 next header after the Fragment header
    uint32_t offset = 0;              // in bytes
    bool more = false;                // more fragments follow
    uint32_t len_on_wire = 0;         // fragment payload length according to the IP header
    std::span<const uint8_t> payload; // captured part of it (shorter when the snaplen cut it)
    int depth = 0;                    // tunnel depth it was found at
};

enum class DecodeStatus {
    Tcp,              // tcp is filled in
    NotTcp,           // a well-formed packet of another protocol (ARP, UDP, ICMP...)
    Fragment,         // an IP fragment: fragment is filled in, detail says which
    UnsupportedLink,  // link type we do not decode
    Unsupported,      // well-formed, but an encapsulation we do not follow (or tunnels too deep)
    Malformed,        // truncated or inconsistent headers; detail says what
};

struct DecodeResult {
    DecodeStatus status = DecodeStatus::Malformed;
    TcpPacket tcp;
    IpFragment fragment;
    std::string detail;   // human-readable reason for Fragment/Unsupported*/Malformed
    std::string tunnels;  // encapsulations passed through, outer first ("GRE,VXLAN"); empty when none
};

DecodeResult decode_packet(int linktype, std::span<const uint8_t> data);
// An IP datagram (version from its first nibble), e.g. one the
// FragmentReassembler rebuilt; tunnel_depth carries on the fragments' depth.
DecodeResult decode_ip_datagram(std::span<const uint8_t> data, int tunnel_depth = 0);

} // namespace stallscope
