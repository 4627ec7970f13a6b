#pragma once
// Test helpers that build link/IP/TCP packets as bytes. Written
// independently of the decoder (plain push_back, no ByteReader).
#include <cstdint>
#include <utility>
#include <vector>

namespace stallscope::test {

using Bytes = std::vector<uint8_t>;

inline void put8(Bytes& b, uint8_t v) { b.push_back(v); }
inline void put16be(Bytes& b, uint16_t v) { b.push_back(uint8_t(v >> 8)); b.push_back(uint8_t(v)); }
inline void put32be(Bytes& b, uint32_t v) { put16be(b, uint16_t(v >> 16)); put16be(b, uint16_t(v)); }
inline void put16le(Bytes& b, uint16_t v) { b.push_back(uint8_t(v)); b.push_back(uint8_t(v >> 8)); }
inline void put32le(Bytes& b, uint32_t v) { put16le(b, uint16_t(v)); put16le(b, uint16_t(v >> 16)); }
inline void append(Bytes& b, const Bytes& x) { b.insert(b.end(), x.begin(), x.end()); }

struct TcpSpec {
    uint16_t sport = 40000, dport = 80;
    uint32_t seq = 1000, ack = 2000;
    uint8_t flags = 0x18;  // PSH|ACK
    uint16_t window = 512;
    Bytes options;  // zero-padded (EOL) to a multiple of 4
    Bytes payload;
};

inline Bytes tcp_segment(const TcpSpec& s) {
    Bytes opts = s.options;
    while (opts.size() % 4) opts.push_back(0);
    Bytes b;
    put16be(b, s.sport);
    put16be(b, s.dport);
    put32be(b, s.seq);
    put32be(b, s.ack);
    uint8_t off = uint8_t((20 + opts.size()) / 4);
    put8(b, uint8_t(off << 4));
    put8(b, s.flags);
    put16be(b, s.window);
    put16be(b, 0);  // checksum (not checked)
    put16be(b, 0);  // urgent
    append(b, opts);
    append(b, s.payload);
    return b;
}

struct Ipv4Spec {
    uint8_t src[4] = {192, 168, 1, 10};
    uint8_t dst[4] = {10, 0, 0, 1};
    uint8_t proto = 6;
    uint16_t frag = 0x4000;  // DF
    uint16_t id = 0x1234;
    uint8_t ttl = 64;
    Bytes options;           // multiple of 4
    int total_override = -1; // -1: computed
    int ihl_override = -1;
};

inline Bytes ipv4_packet(const Ipv4Spec& s, const Bytes& l4) {
    Bytes b;
    const size_t hl = 20 + s.options.size();
    put8(b, uint8_t(0x40 | (s.ihl_override >= 0 ? s.ihl_override : int(hl / 4))));
    put8(b, 0);
    put16be(b, uint16_t(s.total_override >= 0 ? s.total_override : int(hl + l4.size())));
    put16be(b, s.id);
    put16be(b, s.frag);
    put8(b, s.ttl);
    put8(b, s.proto);
    put16be(b, 0);
    b.insert(b.end(), s.src, s.src + 4);
    b.insert(b.end(), s.dst, s.dst + 4);
    append(b, s.options);
    append(b, l4);
    return b;
}

inline Bytes v6addr(uint8_t last) {
    Bytes a = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last};
    return a;
}

// ext: already-chained extension headers; first_next: next header of the fixed header.
inline Bytes ipv6_packet(uint8_t first_next, const Bytes& ext, const Bytes& l4, uint8_t src_last = 1,
                         uint8_t dst_last = 2, int plen_override = -1) {
    Bytes b;
    put32be(b, 0x60000000);
    put16be(b, uint16_t(plen_override >= 0 ? plen_override : int(ext.size() + l4.size())));
    put8(b, first_next);
    put8(b, 64);
    append(b, v6addr(src_last));
    append(b, v6addr(dst_last));
    append(b, ext);
    append(b, l4);
    return b;
}

// Hop-by-hop / destination options header of (len+1)*8 bytes, PadN-filled.
inline Bytes ipv6_opts_header(uint8_t next, uint8_t len8) {
    Bytes b;
    put8(b, next);
    put8(b, len8);
    const size_t total = (size_t(len8) + 1) * 8;
    put8(b, 1);  // PadN
    put8(b, uint8_t(total - 4));
    while (b.size() < total) b.push_back(0);
    return b;
}

inline Bytes ipv6_frag_header(uint8_t next, uint16_t offset_bytes, bool more, uint32_t ident) {
    Bytes b;
    put8(b, next);
    put8(b, 0);
    put16be(b, uint16_t((offset_bytes & 0xfff8) | (more ? 1 : 0)));
    put32be(b, ident);
    return b;
}

inline Bytes ethernet(uint16_t type, const Bytes& payload, const std::vector<std::pair<uint16_t, uint16_t>>& tags = {}) {
    Bytes b = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
    for (auto [tpid, tci] : tags) {
        put16be(b, tpid);
        put16be(b, tci);
    }
    put16be(b, type);
    append(b, payload);
    return b;
}

inline Bytes sll(uint16_t proto, const Bytes& payload) {
    Bytes b;
    put16be(b, 0);  // to us
    put16be(b, 1);  // ARPHRD_ETHER
    put16be(b, 6);
    for (int i = 0; i < 8; ++i) b.push_back(uint8_t(i < 6 ? 0xa0 + i : 0));
    put16be(b, proto);
    append(b, payload);
    return b;
}

inline Bytes sll2(uint16_t proto, const Bytes& payload) {
    Bytes b;
    put16be(b, proto);
    put16be(b, 0);
    put32be(b, 3);  // ifindex
    put16be(b, 1);  // ARPHRD_ETHER
    put8(b, 4);     // outgoing
    put8(b, 6);
    for (int i = 0; i < 8; ++i) b.push_back(uint8_t(i < 6 ? 0xb0 + i : 0));
    append(b, payload);
    return b;
}

inline Bytes null_header(uint32_t family, bool big_endian, const Bytes& payload) {
    Bytes b;
    if (big_endian) put32be(b, family);
    else put32le(b, family);
    append(b, payload);
    return b;
}

// ---- encapsulations ----------------------------------------------------------

inline Bytes udp_datagram(uint16_t sport, uint16_t dport, const Bytes& payload) {
    Bytes b;
    put16be(b, sport);
    put16be(b, dport);
    put16be(b, uint16_t(8 + payload.size()));
    put16be(b, 0);
    append(b, payload);
    return b;
}

// GRE (RFC 2784/2890): optional checksum, key and sequence number.
inline Bytes gre(uint16_t proto, const Bytes& payload, bool checksum = false, bool key = false, bool seq = false) {
    Bytes b;
    put16be(b, uint16_t((checksum ? 0x8000 : 0) | (key ? 0x2000 : 0) | (seq ? 0x1000 : 0)));
    put16be(b, proto);
    if (checksum) put32be(b, 0xbeef0000);
    if (key) put32be(b, 0x00000abc);
    if (seq) put32be(b, 7);
    append(b, payload);
    return b;
}

inline Bytes vxlan(uint32_t vni, const Bytes& inner_ethernet) {
    Bytes b = {0x08, 0, 0, 0};
    put32be(b, vni << 8);
    append(b, inner_ethernet);
    return b;
}

// MPLS label stack entries (label, bottom-of-stack set on the last).
inline Bytes mpls(const std::vector<uint32_t>& labels, const Bytes& payload) {
    Bytes b;
    for (size_t i = 0; i < labels.size(); ++i)
        put32be(b, (labels[i] << 12) | (i + 1 == labels.size() ? 0x100 : 0) | 64);
    append(b, payload);
    return b;
}

inline Bytes pppoe_session(uint16_t ppp_proto, const Bytes& payload) {
    Bytes b = {0x11, 0x00};
    put16be(b, 0x1234);  // session id
    put16be(b, uint16_t(payload.size() + 2));
    put16be(b, ppp_proto);
    append(b, payload);
    return b;
}

// NFLOG: header, a few TLVs in little-endian (x86) order, the payload TLV (type 9).
inline Bytes nflog(uint8_t family, const Bytes& packet, bool big_endian_tlvs = false) {
    Bytes b = {family, 0};
    put16be(b, 42);  // resource id
    auto tlv = [&](uint16_t type, const Bytes& value) {
        const uint16_t len = uint16_t(4 + value.size());
        if (big_endian_tlvs) { put16be(b, len); put16be(b, type); }
        else { put16le(b, len); put16le(b, type); }
        append(b, value);
        while (b.size() % 4) b.push_back(0);
    };
    tlv(1, {0x08, 0x00, 3, 0});  // NFULA_PACKET_HDR
    tlv(10, {'x'});              // NFULA_PREFIX: 5 bytes, padded to 8
    tlv(9, packet);              // NFULA_PAYLOAD
    return b;
}

inline Bytes default_tcp(size_t payload_len = 5) {
    TcpSpec t;
    for (size_t i = 0; i < payload_len; ++i) t.payload.push_back(uint8_t('a' + i % 26));
    return tcp_segment(t);
}

} // namespace stallscope::test
