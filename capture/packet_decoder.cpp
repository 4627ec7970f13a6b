#include "capture/packet_decoder.h"

#include "capture/decode_internal.h"

#include <cstdio>
#include <map>
#include <mutex>

// Link layers and the EtherType dispatch; IP/TCP are in ip_decoder.cpp,
// tunnels in tunnel_decoder.cpp.
namespace stallscope {

namespace decode {

namespace {
constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint16_t kEtherIpv6 = 0x86dd;
constexpr uint16_t kEtherVlan = 0x8100;    // 802.1Q
constexpr uint16_t kEtherQinQ = 0x88a8;    // 802.1ad service tag
constexpr uint16_t kEtherQinQOld = 0x9100; // pre-standard QinQ, still seen
constexpr uint16_t kEtherMpls = 0x8847, kEtherMplsMulticast = 0x8848;
constexpr uint16_t kEtherPppoeDiscovery = 0x8863, kEtherPppoeSession = 0x8864;
constexpr int kMaxVlanTags = 8;            // more is not a real frame
} // namespace

DecodeResult fail(DecodeStatus s, std::string detail) {
    DecodeResult r;
    r.status = s;
    r.detail = std::move(detail);
    return r;
}

std::string hex16(uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04x", v);
    return buf;
}

bool enter_tunnel(Context& c, const char* name) {
    if (c.depth >= kMaxTunnelDepth) return false;
    ++c.depth;
    if (!c.tunnels.empty()) c.tunnels += ',';
    c.tunnels += name;
    return true;
}

DecodeResult too_deep(const Context& c) {
    return unsupported("tunnels nested deeper than " + std::to_string(kMaxTunnelDepth) + " (" + c.tunnels + ")");
}

// ---- link layers -------------------------------------------------------------

// Dispatches on an EtherType, first skipping any VLAN tags.
DecodeResult decode_ethertype(uint16_t type, ByteReader r, Context& c) {
    for (int tags = 0; type == kEtherVlan || type == kEtherQinQ || type == kEtherQinQOld; ++tags) {
        if (tags >= kMaxVlanTags) return malformed("too many VLAN tags");
        auto tci = r.be16(), inner = r.be16();
        if (!tci || !inner) return malformed("truncated VLAN tag");
        type = *inner;
    }
    switch (type) {
    case kEtherIpv4: return decode_ipv4(r, c);
    case kEtherIpv6: return decode_ipv6(r, c);
    case kEtherMpls:
    case kEtherMplsMulticast: return decode_mpls(r, c);
    case kEtherPppoeSession: return decode_pppoe_session(r, c);
    case kEtherPppoeDiscovery: return not_tcp("PPPoE discovery");
    default: break;
    }
    if (type < 0x0600) return not_tcp("802.3 frame (length/LLC " + hex16(type) + ")");
    return not_tcp("EtherType " + hex16(type));
}

DecodeResult decode_ethernet(ByteReader r, Context& c) {
    if (!r.skip(12)) return malformed("truncated Ethernet header");
    auto type = r.be16();
    if (!type) return malformed("truncated Ethernet header");
    return decode_ethertype(*type, r, c);
}

namespace {

DecodeResult decode_sll(ByteReader r, Context& c) {
    // packet type(2) ARPHRD(2) addr len(2) addr(8) protocol(2)
    if (!r.skip(2)) return malformed("truncated Linux cooked header");
    auto hatype = r.be16();
    if (!hatype || !r.skip(10)) return malformed("truncated Linux cooked header");
    auto proto = r.be16();
    if (!proto) return malformed("truncated Linux cooked header");
    if (*hatype == 824) return not_tcp("netlink");  // ARPHRD_NETLINK: protocol is not an EtherType
    return decode_ethertype(*proto, r, c);
}

DecodeResult decode_sll2(ByteReader r, Context& c) {
    // protocol(2) reserved(2) ifindex(4) ARPHRD(2) packet type(1) addr len(1) addr(8)
    auto proto = r.be16();
    if (!proto || !r.skip(6)) return malformed("truncated Linux cooked v2 header");
    auto hatype = r.be16();
    if (!hatype || !r.skip(10)) return malformed("truncated Linux cooked v2 header");
    if (*hatype == 824) return not_tcp("netlink");
    return decode_ethertype(*proto, r, c);
}

DecodeResult decode_null(ByteReader r, Context& c) {
    // The family is in the byte order of the capturing host (and LINKTYPE_LOOP
    // claims network order but writers get it wrong); families are small, so
    // a value with high bits set is the other byte order.
    auto fam = r.be32();
    if (!fam) return malformed("truncated loopback header");
    uint32_t f = *fam;
    if (f > 0xffff) f = ((f & 0xff) << 24) | ((f & 0xff00) << 8) | ((f >> 8) & 0xff00) | (f >> 24);
    switch (f) {
    case 2: return decode_ipv4(r, c);                            // AF_INET everywhere
    case 24: case 28: case 30: return decode_ipv6(r, c);         // AF_INET6: Net/OpenBSD, FreeBSD, Darwin
    default: return not_tcp("loopback address family " + std::to_string(f));
    }
}

} // namespace

} // namespace decode

const char* linktype_name(int lt) {
    switch (lt) {
    case linktype::kNull: return "NULL";
    case linktype::kEthernet: return "EN10MB";
    case linktype::kRaw: return "RAW";
    case linktype::kLoop: return "LOOP";
    case linktype::kLinuxSll: return "LINUX_SLL";
    case linktype::kIpv4: return "IPV4";
    case linktype::kIpv6: return "IPV6";
    case linktype::kNflog: return "NFLOG";
    case linktype::kLinuxSll2: return "LINUX_SLL2";
    default: break;
    }
    // Names of other types are interned so the pointer stays valid forever
    // (bounded: a file can only name so many link types).
    static std::mutex mu;
    static std::map<int, std::string> names;
    std::lock_guard lock(mu);
    auto [it, inserted] = names.try_emplace(lt);
    if (inserted) it->second = "LINKTYPE_" + std::to_string(lt);
    return it->second.c_str();
}

namespace {

DecodeResult decode_link(int lt, ByteReader r, decode::Context& c) {
    using namespace decode;
    switch (lt) {
    case linktype::kEthernet: return decode_ethernet(r, c);
    case linktype::kLinuxSll: return decode_sll(r, c);
    case linktype::kLinuxSll2: return decode_sll2(r, c);
    case linktype::kNull:
    case linktype::kLoop: return decode_null(r, c);
    case linktype::kRaw: return decode_ip_by_version(r, c);
    case linktype::kIpv4: return decode_ipv4(r, c);
    case linktype::kIpv6: return decode_ipv6(r, c);
    case linktype::kNflog: return decode_nflog(r, c);
    default: return fail(DecodeStatus::UnsupportedLink, std::string("link type ") + linktype_name(lt));
    }
}

// Says in which tunnel a malformed inner packet was found. In place: the
// callers return their one result by name (no copy of it per packet).
void finish(DecodeResult& r, decode::Context& c) {
    if (r.status == DecodeStatus::Malformed && !c.tunnels.empty()) r.detail += " (inside " + c.tunnels + ")";
    r.tunnels = std::move(c.tunnels);
}

} // namespace

namespace decode {
DecodeResult decode_packet_layered(int lt, std::span<const uint8_t> data) {
    Context c;
    DecodeResult r = decode_link(lt, ByteReader(data), c);
    finish(r, c);
    return r;
}
} // namespace decode

DecodeResult decode_packet(int lt, std::span<const uint8_t> data) {
    DecodeResult r;
    if (lt == linktype::kEthernet && decode::decode_ethernet_ipv4_tcp(data, r)) return r;
    r = decode::decode_packet_layered(lt, data);
    return r;
}

DecodeResult decode_ip_datagram(std::span<const uint8_t> data, int tunnel_depth) {
    decode::Context c;
    c.depth = tunnel_depth;
    DecodeResult r = decode::decode_ip_by_version(ByteReader(data), c);
    finish(r, c);
    return r;
}

} // namespace stallscope
