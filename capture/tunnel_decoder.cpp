// Encapsulations real capture points produce: IP-in-IP, GRE (and ERSPAN in
// it), VXLAN, Geneve, Teredo, MPLS, PPPoE sessions, Linux NFLOG. Connections inside
// a tunnel are keyed by their inner addresses.
#include "capture/decode_internal.h"

#include <algorithm>

namespace stallscope::decode {

namespace {

constexpr uint16_t kUdpVxlan = 4789;   // IANA
constexpr uint16_t kUdpTeredo = 3544;  // IANA
constexpr uint16_t kUdpGeneve = 6081;  // IANA (OVN, AWS Gateway Load Balancer)
constexpr int kMaxMplsLabels = 16;
constexpr const char* kUdpNotTunnel = "IP protocol 17 (UDP)";

template <typename Decode>
DecodeResult inner(Context& c, const char* tunnel, Decode&& decode) {
    if (!enter_tunnel(c, tunnel)) return too_deep(c);
    return decode();
}

// The IP version an inner packet announces in its first nibble (0 if none).
int ip_version(const ByteReader& r) {
    auto first = r.peek_u8();
    return first ? *first >> 4 : 0;
}

// ---- GRE (RFC 2784, 2890) and ERSPAN ----------------------------------------

DecodeResult decode_erspan3(ByteReader r, Context& c) {
    // version/VLAN(2) COS/BSO/T/session(2) timestamp(4) SGT(2) P/FT/HW/D/Gra/O(2)
    auto head = r.bytes(12);
    if (!head) return malformed("truncated ERSPAN type III header");
    const bool platform_subheader = ((*head)[11] & 0x01) != 0;
    if (platform_subheader && !r.skip(8)) return malformed("truncated ERSPAN type III platform subheader");
    return inner(c, "ERSPAN", [&] { return decode_ethernet(r, c); });
}

DecodeResult gre_payload(uint16_t proto, bool has_seq, ByteReader r, Context& c) {
    switch (proto) {
    case 0x0800: return inner(c, "GRE", [&] { return decode_ipv4(r, c); });
    case 0x86dd: return inner(c, "GRE", [&] { return decode_ipv6(r, c); });
    case 0x6558: return inner(c, "GRE", [&] { return decode_ethernet(r, c); });  // transparent bridging, NVGRE
    case 0x8847: return inner(c, "GRE", [&] { return decode_mpls(r, c); });
    case 0x88be:  // ERSPAN: type II has a sequence number and an 8-byte header, type I neither
        if (has_seq && !r.skip(8)) return malformed("truncated ERSPAN type II header");
        return inner(c, "ERSPAN", [&] { return decode_ethernet(r, c); });
    case 0x22eb: return decode_erspan3(r, c);
    default: return unsupported("GRE protocol " + hex16(proto));
    }
}

} // namespace

DecodeResult decode_gre(ByteReader r, Context& c) {
    auto flags = r.be16(), proto = r.be16();
    if (!flags || !proto) return malformed("truncated GRE header");
    const int version = *flags & 0x7;
    if (version == 1) return unsupported("GRE version 1 (PPTP)");
    if (version != 0) return malformed("GRE version " + std::to_string(version));
    const bool checksum = *flags & 0x8000, routing = *flags & 0x4000, key = *flags & 0x2000, seq = *flags & 0x1000;
    if (routing) return unsupported("GRE with source routing (RFC 1701)");
    // Checksum and reserved (present if either bit is set), key, sequence number.
    const size_t optional = (checksum ? 4 : 0) + (key ? 4 : 0) + (seq ? 4 : 0);
    if (!r.skip(optional)) return malformed("truncated GRE header (optional fields)");
    return gre_payload(*proto, seq, r, c);
}

// ---- UDP: VXLAN (RFC 7348) and Teredo (RFC 4380) -------------------------------

namespace {

DecodeResult decode_vxlan(ByteReader r, Context& c) {
    auto flags = r.u8();
    if (!flags || !r.skip(7)) return malformed("truncated VXLAN header");
    if (!(*flags & 0x08)) return not_tcp("UDP port 4789 without the VXLAN I flag");
    return inner(c, "VXLAN", [&] { return decode_ethernet(r, c); });
}

// Geneve (RFC 8926): version 0, options (length in 4-byte words), then what
// the protocol type says (Ethernet, IPv4, IPv6).
DecodeResult decode_geneve(ByteReader r, Context& c) {
    auto ver_optlen = r.u8(), flags = r.u8();
    auto proto = r.be16();
    if (!ver_optlen || !flags || !proto || !r.skip(4)) return malformed("truncated Geneve header");
    if ((*ver_optlen >> 6) != 0) return unsupported("Geneve version " + std::to_string(*ver_optlen >> 6));
    if (!r.skip(size_t(*ver_optlen & 0x3f) * 4)) return malformed("truncated Geneve options");
    switch (*proto) {
    case 0x6558: return inner(c, "Geneve", [&] { return decode_ethernet(r, c); });
    case 0x0800: return inner(c, "Geneve", [&] { return decode_ipv4(r, c); });
    case 0x86dd: return inner(c, "Geneve", [&] { return decode_ipv6(r, c); });
    default: return unsupported("Geneve protocol " + hex16(*proto));
    }
}

// Is the IPv6 header at `r` to or from a Teredo address (2001:0::/32)?
bool teredo_address(ByteReader r) {
    if (!r.skip(8)) return false;
    auto src = r.be32();
    if (!src || !r.skip(12)) return false;
    auto dst = r.be32();
    return *src == 0x20010000u || (dst && *dst == 0x20010000u);
}

// Teredo: optional authentication and origin indication headers, then an
// IPv6 packet that fills the rest of the datagram. Anything else on port
// 3544 is some other UDP (the port is also an ephemeral one). Off 3544
// (`by_content`: Teredo data between a client and a relay uses any port, as
// Zeek finds it) the IPv6 packet must also be to or from a Teredo address, so
// random UDP is not taken for it (version 6, the exact length and a 32-bit
// prefix at one of two places).
DecodeResult decode_teredo(ByteReader r, size_t len_on_wire, Context& c, bool by_content = false) {
    const size_t start = r.remaining();
    ByteReader probe = r;
    if (probe.be16() == 0x0001) {  // authentication: id len, auth len, id, auth, nonce(8), confirmation(1)
        auto id_len = probe.u8(), au_len = probe.u8();
        if (!id_len || !au_len || !probe.skip(size_t(*id_len) + *au_len + 9)) return not_tcp(kUdpNotTunnel);
        r = probe;
    }
    probe = r;
    if (probe.be16() == 0x0000) {  // origin indication: obfuscated port and address
        if (!probe.skip(6)) return not_tcp(kUdpNotTunnel);
        r = probe;
    }
    const size_t header = start - r.remaining();
    probe = r;
    auto vtc = probe.be32();
    auto plen = probe.be16();
    if (!vtc || !plen || (*vtc >> 28) != 6 || len_on_wire < header || 40 + size_t(*plen) != len_on_wire - header)
        return not_tcp(kUdpNotTunnel);
    if (by_content && !teredo_address(r)) return not_tcp(kUdpNotTunnel);
    return inner(c, "Teredo", [&] { return decode_ipv6(r, c); });
}

} // namespace

DecodeResult decode_udp(ByteReader r, Context& c) {
    auto sport = r.be16(), dport = r.be16(), len = r.be16();
    if (!sport || !dport || !len || !r.skip(2)) return malformed("truncated UDP header");
    // Length 0 only in IPv6 jumbograms: take what the IP layer gave.
    size_t payload_on_wire = *len ? size_t(*len) : r.remaining() + 8;
    if (payload_on_wire < 8) return malformed("UDP length " + std::to_string(*len) + " (< 8)");
    payload_on_wire -= 8;
    ByteReader body(r.rest().first(std::min(r.remaining(), payload_on_wire)));
    if (*dport == kUdpVxlan) return decode_vxlan(body, c);
    if (*dport == kUdpGeneve) return decode_geneve(body, c);
    if (*sport == kUdpTeredo || *dport == kUdpTeredo) return decode_teredo(body, payload_on_wire, c);
    return decode_teredo(body, payload_on_wire, c, true);
}

DecodeResult decode_ip_in_ip(uint8_t proto, ByteReader r, Context& c) {
    if (proto == 4) return inner(c, "IPIP", [&] { return decode_ipv4(r, c); });
    return inner(c, "6in4", [&] { return decode_ipv6(r, c); });
}

// ---- MPLS (RFC 3032, pseudowires RFC 4385) --------------------------------------

DecodeResult decode_mpls(ByteReader r, Context& c) {
    for (int labels = 0;; ++labels) {
        if (labels >= kMaxMplsLabels) return malformed("more than " + std::to_string(kMaxMplsLabels) + " MPLS labels");
        auto entry = r.be32();
        if (!entry) return malformed("truncated MPLS label stack");
        if (*entry & 0x100) break;  // bottom of stack
    }
    // The label stack does not say what follows: the first nibble does
    // (as Wireshark guesses too).
    switch (ip_version(r)) {
    case 4: return inner(c, "MPLS", [&] { return decode_ipv4(r, c); });
    case 6: return inner(c, "MPLS", [&] { return decode_ipv6(r, c); });
    case 0:  // Ethernet pseudowire with a control word
        if (!r.skip(4)) return malformed("truncated MPLS pseudowire control word");
        return inner(c, "MPLS", [&] { return decode_ethernet(r, c); });
    default: {
        // Ethernet pseudowire without a control word: only when an IP or
        // VLAN EtherType sits where an Ethernet header has it.
        ByteReader probe = r;
        std::optional<uint16_t> type;
        if (probe.skip(12)) type = probe.be16();
        if (type && (*type == 0x0800 || *type == 0x86dd || *type == 0x8100 || *type == 0x88a8))
            return inner(c, "MPLS", [&] { return decode_ethernet(r, c); });
        return unsupported("MPLS payload neither IP nor an Ethernet pseudowire");
    }
    }
}

// ---- PPPoE session (RFC 2516) ------------------------------------------------------

DecodeResult decode_pppoe_session(ByteReader r, Context& c) {
    auto ver_type = r.u8(), code = r.u8();
    auto session = r.be16(), len = r.be16();
    if (!ver_type || !code || !session || !len) return malformed("truncated PPPoE header");
    if (*ver_type != 0x11) return malformed("PPPoE version/type " + std::to_string(*ver_type) + " (not 0x11)");
    ByteReader ppp(r.rest().first(std::min<size_t>(r.remaining(), *len)));  // drops Ethernet padding
    // PPP protocol: one byte when compressed (RFC 1661: odd first byte).
    auto first = ppp.u8();
    if (!first) return malformed("truncated PPP header");
    uint16_t proto = *first;
    if (!(proto & 1)) {
        auto second = ppp.u8();
        if (!second) return malformed("truncated PPP header");
        proto = uint16_t(proto << 8 | *second);
    }
    if (proto == 0x0021) return inner(c, "PPPoE", [&] { return decode_ipv4(ppp, c); });
    if (proto == 0x0057) return inner(c, "PPPoE", [&] { return decode_ipv6(ppp, c); });
    return not_tcp("PPP protocol " + hex16(proto));
}

// ---- Linux NFLOG (LINKTYPE_NFLOG) ---------------------------------------------------

DecodeResult decode_nflog(ByteReader r, Context& c) {
    auto family = r.u8(), version = r.u8();
    if (!family || !version || !r.skip(2)) return malformed("truncated NFLOG header");
    if (*version != 0) return unsupported("NFLOG version " + std::to_string(*version));
    // TLV length and type are in the capturing host's byte order: take the
    // order in which the first TLV makes sense (types are small).
    auto plausible = [&](Endian e) {
        ByteReader p = r;
        auto len = p.u16(e), type = p.u16(e);
        return len && type && *len >= 4 && *len <= r.remaining() && (*type & 0x7fff) < 64;
    };
    const Endian order = plausible(Endian::Little) ? Endian::Little : Endian::Big;
    // Each TLV takes at least 4 bytes, so this ends.
    while (r.remaining() >= 4) {
        const uint16_t len = *r.u16(order), type = *r.u16(order) & 0x7fff;
        if (len < 4) return malformed("NFLOG TLV length " + std::to_string(len) + " (< 4)");
        const size_t value_len = len - 4u;
        if (type == 9) {  // NFULA_PAYLOAD: the packet, from its IP header; the snaplen may cut it
            ByteReader packet(r.rest().first(std::min(r.remaining(), value_len)));
            if (*family == 2) return decode_ipv4(packet, c);
            if (*family == 10) return decode_ipv6(packet, c);
            return decode_ip_by_version(packet, c);
        }
        if (!r.skip(value_len)) return malformed("truncated NFLOG TLV (type " + std::to_string(type) + ")");
        r.skip(std::min<size_t>(r.remaining(), (4 - len % 4) % 4));  // padding to 4 bytes
    }
    return not_tcp("NFLOG record without a packet");
}

} // namespace stallscope::decode
