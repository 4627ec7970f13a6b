#pragma once
// Shared by the decoder's translation units (link layers, IP/TCP, tunnels);
// not part of the public API (see packet_decoder.h).
#include "capture/byte_reader.h"
#include "capture/packet_decoder.h"

#include <string>

namespace stallscope::decode {

// Carried down through the layers of one packet.
struct Context {
    int depth = 0;        // tunnels entered so far
    std::string tunnels;  // their names, outer first
};

DecodeResult fail(DecodeStatus s, std::string detail);
inline DecodeResult malformed(std::string detail) { return fail(DecodeStatus::Malformed, std::move(detail)); }
inline DecodeResult not_tcp(std::string detail) { return fail(DecodeStatus::NotTcp, std::move(detail)); }
inline DecodeResult unsupported(std::string detail) { return fail(DecodeStatus::Unsupported, std::move(detail)); }
std::string hex16(uint16_t v);

// Records that the packet goes into tunnel `name`; false when that would
// nest deeper than kMaxTunnelDepth (the caller returns too_deep()).
bool enter_tunnel(Context& c, const char* name);
DecodeResult too_deep(const Context& c);

// TCP options (ip_decoder.cpp): MSS, window scale, SACK permitted into `tcp`;
// what was wrong with a bad option into `detail`.
void parse_tcp_options(ByteReader opts, TcpPacket& tcp, std::string& detail);

// The common frame, Ethernet (no VLAN tag) / IPv4 (not a fragment) / TCP with
// whole headers, decoded straight from its bytes into `r` (fresh); false for
// anything else, `r` then untouched, and the general decoder takes the frame
// (fast_tcp_decoder.cpp). Where it says true, the general decoder gives the same result.
bool decode_ethernet_ipv4_tcp(std::span<const uint8_t> frame, DecodeResult& r);
// decode_packet without that shortcut: every frame through the layers (tests
// compare the two).
DecodeResult decode_packet_layered(int linktype, std::span<const uint8_t> data);

// IP layer (ip_decoder.cpp).
DecodeResult decode_ipv4(ByteReader ip, Context& c);
DecodeResult decode_ipv6(ByteReader ip, Context& c);
DecodeResult decode_ip_by_version(ByteReader ip, Context& c);

// Link layers (packet_decoder.cpp).
DecodeResult decode_ethernet(ByteReader r, Context& c);
DecodeResult decode_ethertype(uint16_t type, ByteReader r, Context& c);

// Encapsulations (tunnel_decoder.cpp). `payload` is the IP payload trimmed to
// its length on the wire (as far as captured).
DecodeResult decode_gre(ByteReader payload, Context& c);
DecodeResult decode_udp(ByteReader payload, Context& c);
DecodeResult decode_ip_in_ip(uint8_t proto, ByteReader payload, Context& c);
DecodeResult decode_mpls(ByteReader r, Context& c);
DecodeResult decode_pppoe_session(ByteReader r, Context& c);
DecodeResult decode_nflog(ByteReader r, Context& c);

} // namespace stallscope::decode
