// Encapsulations: NFLOG, PPPoE, GRE/ERSPAN, VXLAN, Teredo, IP-in-IP, MPLS,
// and the tunnel depth cap. Packets are built from bytes (packet_builder.h).
#include "capture/packet_decoder.h"
#include "capture/tests/packet_builder.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace stallscope;
using namespace stallscope::test;

namespace {

const Bytes kPayload = {'G', 'E', 'T', ' ', '/'};

Bytes inner_tcp() {
    TcpSpec t;
    t.payload = kPayload;
    return tcp_segment(t);
}
Bytes inner_v4() { return ipv4_packet(Ipv4Spec{}, inner_tcp()); }                 // 192.168.1.10 -> 10.0.0.1
Bytes inner_v6() { return ipv6_packet(6, {}, inner_tcp(), 0x10, 0x20); }          // 2001:db8::10 -> ::20

// An outer IPv4 header between two tunnel end points.
Bytes outer_v4(uint8_t proto, const Bytes& payload) {
    Ipv4Spec s;
    uint8_t src[4] = {172, 16, 0, 1}, dst[4] = {172, 16, 0, 2};
    std::copy(src, src + 4, s.src);
    std::copy(dst, dst + 4, s.dst);
    s.proto = proto;
    return ipv4_packet(s, payload);
}

void check_inner(const DecodeResult& r, const std::string& tunnels, const char* src, const char* dst) {
    INFO(r.detail);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.src.to_string() == src);
    CHECK(r.tcp.dst.to_string() == dst);
    CHECK(Bytes(r.tcp.payload.begin(), r.tcp.payload.end()) == kPayload);
    CHECK(r.tunnels == tunnels);
}
void check_inner_v4(const DecodeResult& r, const std::string& tunnels) {
    check_inner(r, tunnels, "192.168.1.10:40000", "10.0.0.1:80");
}
void check_inner_v6(const DecodeResult& r, const std::string& tunnels) {
    check_inner(r, tunnels, "[2001:db8::10]:40000", "[2001:db8::20]:80");
}

// Every prefix of `b` decodes without reading past it (heap copy of the
// exact size, so ASan sees an overrun) and never claims more payload than it has.
void check_prefixes(int lt, const Bytes& b) {
    for (size_t n = 0; n <= b.size(); ++n) {
        std::unique_ptr<uint8_t[]> copy(new uint8_t[n ? n : 1]);
        std::copy(b.begin(), b.begin() + n, copy.get());
        auto r = decode_packet(lt, std::span<const uint8_t>(copy.get(), n));
        if (r.status == DecodeStatus::Tcp) {
            REQUIRE(r.tcp.payload.size() <= r.tcp.payload_len);
            if (!r.tcp.payload.empty()) REQUIRE(r.tcp.payload.data() + r.tcp.payload.size() <= copy.get() + n);
        }
    }
}

} // namespace

TEST_CASE("NFLOG: the payload TLV holds the IP packet") {
    SECTION("IPv4, TLVs in little-endian order (as x86 hosts write them)") {
        auto pkt = nflog(2, inner_v4());
        check_inner_v4(decode_packet(linktype::kNflog, pkt), "");
        check_prefixes(linktype::kNflog, pkt);
    }
    SECTION("TLVs in big-endian order") {
        check_inner_v4(decode_packet(linktype::kNflog, nflog(2, inner_v4(), true)), "");
    }
    SECTION("IPv6") { check_inner_v6(decode_packet(linktype::kNflog, nflog(10, inner_v6())), ""); }
    SECTION("no payload TLV is not TCP, a TLV shorter than its header is malformed") {
        Bytes no_payload = {2, 0, 0, 42, 8, 0, 1, 0, 0x08, 0x00, 3, 0};
        CHECK(decode_packet(linktype::kNflog, no_payload).status == DecodeStatus::NotTcp);
        Bytes bad = {2, 0, 0, 42, 8, 0, 1, 0, 0x08, 0x00, 3, 0, 2, 0, 9, 0};
        CHECK(decode_packet(linktype::kNflog, bad).status == DecodeStatus::Malformed);
    }
    SECTION("a payload cut by the snapshot length keeps its length on the wire") {
        auto pkt = nflog(2, inner_v4());  // 45 bytes of packet, 3 of padding
        pkt.resize(pkt.size() - 3 - 2);
        auto r = decode_packet(linktype::kNflog, pkt);
        REQUIRE(r.status == DecodeStatus::Tcp);
        CHECK(r.tcp.payload_len == kPayload.size());
        CHECK(r.tcp.payload.size() == kPayload.size() - 2);
    }
    CHECK(std::string(linktype_name(linktype::kNflog)) == "NFLOG");
}

TEST_CASE("PPPoE session: PPP IPv4 and IPv6, padding dropped, control protocols not TCP") {
    auto v4 = ethernet(0x8864, pppoe_session(0x0021, inner_v4()));
    check_inner_v4(decode_packet(linktype::kEthernet, v4), "PPPoE");
    check_prefixes(linktype::kEthernet, v4);
    check_inner_v6(decode_packet(linktype::kEthernet, ethernet(0x8864, pppoe_session(0x0057, inner_v6()))), "PPPoE");
    // The PPPoE length ends the packet: trailing link padding is not payload.
    auto padded = v4;
    padded.insert(padded.end(), 6, 0xee);
    auto r = decode_packet(linktype::kEthernet, padded);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.payload.size() == kPayload.size());
    auto lcp = decode_packet(linktype::kEthernet, ethernet(0x8864, pppoe_session(0xc021, Bytes(10, 1))));
    CHECK(lcp.status == DecodeStatus::NotTcp);
    CHECK(lcp.detail == "PPP protocol 0xc021");
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x8863, Bytes(20, 0))).status == DecodeStatus::NotTcp);
    Bytes bad_version = pppoe_session(0x0021, inner_v4());
    bad_version[0] = 0x22;
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x8864, bad_version)).status == DecodeStatus::Malformed);
}

TEST_CASE("GRE: IPv4, IPv6 and Ethernet inside, with and without optional fields") {
    for (int flags = 0; flags < 8; ++flags) {
        const bool c = flags & 1, k = flags & 2, s = flags & 4;
        auto pkt = ethernet(0x0800, outer_v4(47, gre(0x0800, inner_v4(), c, k, s)));
        check_inner_v4(decode_packet(linktype::kEthernet, pkt), "GRE");
    }
    check_inner_v6(decode_packet(linktype::kRaw, outer_v4(47, gre(0x86dd, inner_v6(), false, true))), "GRE");
    auto bridged = outer_v4(47, gre(0x6558, ethernet(0x0800, inner_v4()), false, true));  // NVGRE-like
    check_inner_v4(decode_packet(linktype::kRaw, bridged), "GRE");
    check_prefixes(linktype::kRaw, bridged);
    // GRE over IPv6
    check_inner_v4(decode_packet(linktype::kRaw, ipv6_packet(47, {}, gre(0x0800, inner_v4()))), "GRE");

    SECTION("ERSPAN type I, II and III carry a mirrored Ethernet frame") {
        check_inner_v4(decode_packet(linktype::kRaw, outer_v4(47, gre(0x88be, ethernet(0x0800, inner_v4())))), "ERSPAN");
        Bytes erspan2(8, 0);
        erspan2[0] = 0x10;  // version 1 = type II
        append(erspan2, ethernet(0x0800, inner_v4()));
        check_inner_v4(decode_packet(linktype::kRaw, outer_v4(47, gre(0x88be, erspan2, false, false, true))), "ERSPAN");
        Bytes erspan3(12, 0);
        erspan3[0] = 0x20;
        erspan3[11] = 0x01;  // platform-specific subheader follows
        erspan3.insert(erspan3.end(), 8, 0);
        append(erspan3, ethernet(0x0800, inner_v4()));
        check_inner_v4(decode_packet(linktype::kRaw, outer_v4(47, gre(0x22eb, erspan3, false, false, true))), "ERSPAN");
    }
    SECTION("what GRE carries that we do not follow is Unsupported, not silently non-TCP") {
        auto r = decode_packet(linktype::kRaw, outer_v4(47, gre(0x880b, Bytes(20, 0))));
        CHECK(r.status == DecodeStatus::Unsupported);
        CHECK(r.detail == "GRE protocol 0x880b");
        Bytes routing = gre(0x0800, inner_v4());
        routing[0] |= 0x40;
        CHECK(decode_packet(linktype::kRaw, outer_v4(47, routing)).status == DecodeStatus::Unsupported);
        Bytes pptp = gre(0x880b, Bytes(20, 0));
        pptp[1] |= 0x01;
        CHECK(decode_packet(linktype::kRaw, outer_v4(47, pptp)).detail == "GRE version 1 (PPTP)");
    }
    SECTION("a truncated inner packet is malformed and says in which tunnel") {
        const Bytes whole = inner_v4();
        auto pkt = outer_v4(47, gre(0x0800, Bytes(whole.begin(), whole.begin() + 12)));
        auto r = decode_packet(linktype::kRaw, pkt);
        CHECK(r.status == DecodeStatus::Malformed);
        CHECK(r.detail.find("(inside GRE)") != std::string::npos);
    }
}

TEST_CASE("VXLAN: inner Ethernet on UDP 4789, keyed by the inner addresses") {
    auto pkt = ethernet(0x0800, outer_v4(17, udp_datagram(51234, 4789, vxlan(100, ethernet(0x0800, inner_v4())))));
    check_inner_v4(decode_packet(linktype::kEthernet, pkt), "VXLAN");
    check_prefixes(linktype::kEthernet, pkt);
    // VLAN-tagged inner frame, IPv6 underlay
    auto v6 = ipv6_packet(17, {}, udp_datagram(51234, 4789, vxlan(7, ethernet(0x86dd, inner_v6(), {{0x8100, 5}}))));
    check_inner_v6(decode_packet(linktype::kRaw, v6), "VXLAN");
    Bytes no_i_flag = vxlan(100, ethernet(0x0800, inner_v4()));
    no_i_flag[0] = 0;
    CHECK(decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(1, 4789, no_i_flag))).status == DecodeStatus::NotTcp);
    CHECK(decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(53, 53, Bytes(30, 0)))).status == DecodeStatus::NotTcp);
}

TEST_CASE("Geneve: inner Ethernet or IP on UDP 6081, options skipped") {
    auto geneve = [](uint16_t proto, uint8_t opt_words, const Bytes& inner) {
        Bytes b = {uint8_t(opt_words & 0x3f), 0};
        put16be(b, proto);
        put32be(b, 77 << 8);  // VNI
        b.insert(b.end(), size_t(opt_words) * 4, 0xab);
        append(b, inner);
        return b;
    };
    auto pkt = outer_v4(17, udp_datagram(40000, 6081, geneve(0x6558, 2, ethernet(0x0800, inner_v4()))));
    check_inner_v4(decode_packet(linktype::kRaw, pkt), "Geneve");
    check_prefixes(linktype::kRaw, pkt);
    check_inner_v6(decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(40000, 6081, geneve(0x86dd, 0, inner_v6())))),
                   "Geneve");
    auto other = decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(40000, 6081, geneve(0x1234, 0, Bytes(20, 0)))));
    CHECK(other.status == DecodeStatus::Unsupported);
    CHECK(other.detail == "Geneve protocol 0x1234");
}

TEST_CASE("Teredo: IPv6 in UDP 3544, with optional authentication and origin indication") {
    auto teredo = [](const Bytes& prefix) {
        Bytes b = prefix;
        append(b, inner_v6());
        return outer_v4(17, udp_datagram(3544, 61000, b));
    };
    check_inner_v6(decode_packet(linktype::kRaw, teredo({})), "Teredo");
    Bytes origin = {0x00, 0x00, 0xf2, 0x27, 0x3f, 0xff, 0xfe, 0xfd};
    check_inner_v6(decode_packet(linktype::kRaw, teredo(origin)), "Teredo");
    Bytes auth = {0x00, 0x01, 2, 3, 'i', 'd', 'a', 'u', 't', 1, 2, 3, 4, 5, 6, 7, 8, 0};
    Bytes both = auth;
    append(both, origin);
    check_inner_v6(decode_packet(linktype::kRaw, teredo(both)), "Teredo");
    check_prefixes(linktype::kRaw, teredo(both));
    // Port 3544 as someone's ephemeral port, carrying something else.
    CHECK(decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(3544, 53, Bytes(40, 0x61)))).status ==
          DecodeStatus::NotTcp);
}

TEST_CASE("Teredo by content on any UDP port: IPv6 to or from 2001:0::/32, nothing else") {
    Bytes v6 = inner_v6();                       // 2001:db8::10 -> 2001:db8::20: not Teredo addresses
    Bytes teredo_src = v6;
    const uint8_t prefix[4] = {0x20, 0x01, 0x00, 0x00};
    std::copy(prefix, prefix + 4, teredo_src.begin() + 8);   // source 2001::10, in 2001:0::/32 (a Teredo client)
    auto on_port = [](uint16_t sport, uint16_t dport, const Bytes& b) {
        return decode_packet(linktype::kRaw, outer_v4(17, udp_datagram(sport, dport, b)));
    };
    auto r = on_port(51000, 62000, teredo_src);  // a client and a relay: neither port is 3544
    INFO(r.detail);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tunnels == "Teredo");
    CHECK(r.tcp.src.to_string() == "[2001::10]:40000");
    Bytes teredo_dst = v6;
    std::copy(prefix, prefix + 4, teredo_dst.begin() + 24);
    CHECK(on_port(51000, 62000, teredo_dst).tunnels == "Teredo");
    Bytes origin = {0x00, 0x00, 0xf2, 0x27, 0x3f, 0xff, 0xfe, 0xfd};
    Bytes with_origin = origin;
    append(with_origin, teredo_src);
    CHECK(on_port(51000, 62000, with_origin).status == DecodeStatus::Tcp);
    check_prefixes(linktype::kRaw, outer_v4(17, udp_datagram(51000, 62000, with_origin)));

    // Guarded: IPv6 in UDP between other addresses is not Teredo off 3544 ...
    CHECK(on_port(51000, 62000, v6).status == DecodeStatus::NotTcp);
    // ... nor is a Teredo-addressed packet whose length does not fill the datagram ...
    Bytes longer = teredo_src;
    longer.push_back(0);
    CHECK(on_port(51000, 62000, longer).status == DecodeStatus::NotTcp);
    // ... nor random UDP payloads (deterministic pseudo-random bytes, 2000 datagrams).
    uint32_t x = 2463534242u;
    for (int i = 0; i < 2000; ++i) {
        Bytes junk(40 + size_t(i % 200));
        for (auto& b : junk) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; b = uint8_t(x); }
        REQUIRE(on_port(uint16_t(1024 + i), 53, junk).status == DecodeStatus::NotTcp);
    }
}

TEST_CASE("IP in IP: IPv4 (protocol 4) and IPv6 (protocol 41)") {
    check_inner_v4(decode_packet(linktype::kRaw, outer_v4(4, inner_v4())), "IPIP");
    check_inner_v6(decode_packet(linktype::kRaw, outer_v4(41, inner_v6())), "6in4");
    check_inner_v4(decode_packet(linktype::kRaw, ipv6_packet(4, {}, inner_v4())), "IPIP");
}

TEST_CASE("MPLS: IP under a label stack, Ethernet pseudowires") {
    check_inner_v4(decode_packet(linktype::kEthernet, ethernet(0x8847, mpls({16, 17}, inner_v4()))), "MPLS");
    check_inner_v6(decode_packet(linktype::kEthernet, ethernet(0x8847, mpls({2}, inner_v6()))), "MPLS");
    Bytes control_word(4, 0);
    append(control_word, ethernet(0x0800, inner_v4()));
    check_inner_v4(decode_packet(linktype::kEthernet, ethernet(0x8847, mpls({100}, control_word))), "MPLS");
    // Without a control word the inner Ethernet header starts with a MAC
    // address ("00:11:..." in the builder starts with nibble 0), so use one
    // with a high first nibble.
    Bytes pw = ethernet(0x0800, inner_v4());
    pw[0] = 0xa0;
    check_inner_v4(decode_packet(linktype::kEthernet, ethernet(0x8847, mpls({100}, pw))), "MPLS");
    pw[12] = 0x12;  // EtherType that is neither IP nor VLAN: we cannot tell what it is
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x8847, mpls({100}, pw))).status == DecodeStatus::Unsupported);
    // A label stack without a bottom is malformed (cap on labels, or truncation).
    Bytes endless;
    for (int i = 0; i < 20; ++i) put32be(endless, 0x00010040);
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x8847, endless)).status == DecodeStatus::Malformed);
    check_prefixes(linktype::kEthernet, ethernet(0x8847, mpls({16, 17}, inner_v4())));
}

TEST_CASE("Tunnel nesting is capped") {
    Bytes pkt = inner_v4();
    for (int i = 0; i < kMaxTunnelDepth; ++i) pkt = outer_v4(4, pkt);
    auto r = decode_packet(linktype::kRaw, pkt);
    REQUIRE(r.status == DecodeStatus::Tcp);  // exactly the cap: still followed
    pkt = outer_v4(4, pkt);
    r = decode_packet(linktype::kRaw, pkt);
    CHECK(r.status == DecodeStatus::Unsupported);
    CHECK(r.detail.find("nested deeper than " + std::to_string(kMaxTunnelDepth)) != std::string::npos);
    // A loop through GRE-bridged Ethernet ends at the cap too.
    Bytes loop = ethernet(0x0800, inner_v4());
    for (int i = 0; i < 10; ++i) loop = ethernet(0x0800, outer_v4(47, gre(0x6558, loop)));
    CHECK(decode_packet(linktype::kEthernet, loop).status == DecodeStatus::Unsupported);
}

TEST_CASE("A fragment inside a tunnel carries its depth and inner addresses") {
    Ipv4Spec s;
    s.frag = 0x2000;
    auto r = decode_packet(linktype::kRaw, outer_v4(47, gre(0x0800, ipv4_packet(s, inner_tcp()))));
    REQUIRE(r.status == DecodeStatus::Fragment);
    CHECK(r.fragment.depth == 1);
    CHECK(r.fragment.src.to_string() == "192.168.1.10");
    CHECK(r.fragment.more);
    CHECK(r.fragment.payload.size() == inner_tcp().size());
}

TEST_CASE("The TTL is the inner header's: routers the tunnelled packet passed, not the tunnel's") {
    Ipv4Spec inner;
    inner.ttl = 57;
    Ipv4Spec outer;
    outer.ttl = 250;
    outer.proto = 47;
    auto r = decode_packet(linktype::kRaw, ipv4_packet(outer, gre(0x0800, ipv4_packet(inner, inner_tcp()))));
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(int(r.tcp.ttl) == 57);
}
