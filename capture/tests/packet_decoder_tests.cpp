#include "capture/packet_decoder.h"
#include "capture/tests/packet_builder.h"

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>

using namespace stallscope;
using namespace stallscope::test;

namespace {

const Bytes kPayload = {'h', 'e', 'l', 'l', 'o'};

Bytes tcp_with_payload(const Bytes& payload) {
    TcpSpec t;
    t.payload = payload;
    return tcp_segment(t);
}

Bytes ipv4_tcp(const Bytes& payload = kPayload) { return ipv4_packet(Ipv4Spec{}, tcp_with_payload(payload)); }
Bytes ipv6_tcp(const Bytes& payload = kPayload) { return ipv6_packet(6, {}, tcp_with_payload(payload)); }

void check_default_v4(const DecodeResult& r) {
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.src.addr.to_string() == "192.168.1.10");
    CHECK(r.tcp.dst.addr.to_string() == "10.0.0.1");
    CHECK(r.tcp.src.port == 40000);
    CHECK(r.tcp.dst.port == 80);
    CHECK(r.tcp.seq == 1000);
    CHECK(r.tcp.ack == 2000);
    CHECK(r.tcp.flags == (tcpflag::kPsh | tcpflag::kAck));
    CHECK(r.tcp.window == 512);
    CHECK(r.tcp.payload_len == kPayload.size());
    CHECK(Bytes(r.tcp.payload.begin(), r.tcp.payload.end()) == kPayload);
}

void check_default_v6(const DecodeResult& r) {
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.src.addr.to_string() == "2001:db8::1");
    CHECK(r.tcp.dst.addr.to_string() == "2001:db8::2");
    CHECK(r.tcp.payload_len == kPayload.size());
    CHECK(Bytes(r.tcp.payload.begin(), r.tcp.payload.end()) == kPayload);
}

// Decodes from an exactly-sized heap copy, so a read past the end is a
// real out-of-bounds access that ASan (STALLSCOPE_SANITIZE) reports.
DecodeResult decode_exact(int lt, const Bytes& b, size_t n, size_t* payload_size = nullptr) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[n ? n : 1]);
    for (size_t i = 0; i < n; ++i) copy[i] = b[i];
    auto r = decode_packet(lt, std::span<const uint8_t>(copy.get(), n));
    if (r.status == DecodeStatus::Tcp) {
        // the payload must lie inside the input
        if (!r.tcp.payload.empty()) {
            REQUIRE(r.tcp.payload.data() >= copy.get());
            REQUIRE(r.tcp.payload.data() + r.tcp.payload.size() <= copy.get() + n);
        }
        if (payload_size) *payload_size = r.tcp.payload.size();
        r.tcp.payload = {};  // must not outlive `copy`
    }
    return r;
}

} // namespace

TEST_CASE("Ethernet IPv4 TCP decodes every field") {
    const Bytes frame = ethernet(0x0800, ipv4_tcp());  // outlives r.tcp.payload
    auto r = decode_packet(linktype::kEthernet, frame);
    check_default_v4(r);
}

TEST_CASE("Ethernet IPv6 TCP") {
    check_default_v6(decode_packet(linktype::kEthernet, ethernet(0x86dd, ipv6_tcp())));
}

TEST_CASE("The IPv4 TTL and the IPv6 hop limit are read") {
    Ipv4Spec v4;
    v4.ttl = 121;
    auto r4 = decode_packet(linktype::kRaw, ipv4_packet(v4, tcp_with_payload(kPayload)));
    REQUIRE(r4.status == DecodeStatus::Tcp);
    CHECK(int(r4.tcp.ttl) == 121);
    Bytes v6 = ipv6_tcp();
    v6[7] = 250;  // hop limit
    auto r6 = decode_packet(linktype::kRaw, v6);
    REQUIRE(r6.status == DecodeStatus::Tcp);
    CHECK(int(r6.tcp.ttl) == 250);
}

TEST_CASE("Ethernet padding is not payload") {
    // A bare ACK: 14 + 20 + 20 = 54 bytes, padded to the 60-byte minimum.
    Bytes frame = ethernet(0x0800, ipv4_tcp({}));
    REQUIRE(frame.size() == 54);
    frame.resize(60, 0xee);
    auto r = decode_packet(linktype::kEthernet, frame);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.payload_len == 0);
    CHECK(r.tcp.payload.empty());

    Bytes one = ethernet(0x0800, ipv4_tcp({'x'}));
    one.resize(60, 0xee);
    auto r1 = decode_packet(linktype::kEthernet, one);
    REQUIRE(r1.status == DecodeStatus::Tcp);
    CHECK(r1.tcp.payload_len == 1);
    REQUIRE(r1.tcp.payload.size() == 1);
    CHECK(r1.tcp.payload[0] == 'x');
}

TEST_CASE("Ethernet IPv6 padding is not payload") {
    Bytes frame = ethernet(0x86dd, ipv6_tcp({'y'}));
    frame.resize(frame.size() + 7, 0xee);
    auto r = decode_packet(linktype::kEthernet, frame);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.payload_len == 1);
    CHECK(r.tcp.payload.size() == 1);
}

TEST_CASE("802.1Q and QinQ VLAN tags are skipped") {
    SECTION("802.1Q") {
        check_default_v4(decode_packet(linktype::kEthernet, ethernet(0x0800, ipv4_tcp(), {{0x8100, 0x0064}})));
    }
    SECTION("QinQ 0x88a8 + 0x8100") {
        check_default_v4(
            decode_packet(linktype::kEthernet, ethernet(0x0800, ipv4_tcp(), {{0x88a8, 0x00c8}, {0x8100, 0x0064}})));
    }
    SECTION("IPv6 behind a tag") {
        check_default_v6(decode_packet(linktype::kEthernet, ethernet(0x86dd, ipv6_tcp(), {{0x8100, 7}})));
    }
    SECTION("truncated tag is malformed") {
        Bytes f = ethernet(0x0800, {}, {{0x8100, 7}});
        f.resize(16);  // tag TPID present, TCI + inner type cut
        CHECK(decode_packet(linktype::kEthernet, f).status == DecodeStatus::Malformed);
    }
    SECTION("endless tags are bounded") {
        std::vector<std::pair<uint16_t, uint16_t>> tags(50, {0x8100, 1});
        auto r = decode_packet(linktype::kEthernet, ethernet(0x0800, ipv4_tcp(), tags));
        CHECK(r.status == DecodeStatus::Malformed);
        CHECK(r.detail.find("VLAN") != std::string::npos);
    }
}

TEST_CASE("Linux cooked v1 and v2") {
    check_default_v4(decode_packet(linktype::kLinuxSll, sll(0x0800, ipv4_tcp())));
    check_default_v6(decode_packet(linktype::kLinuxSll, sll(0x86dd, ipv6_tcp())));
    check_default_v4(decode_packet(linktype::kLinuxSll2, sll2(0x0800, ipv4_tcp())));
    check_default_v6(decode_packet(linktype::kLinuxSll2, sll2(0x86dd, ipv6_tcp())));
    CHECK(decode_packet(linktype::kLinuxSll, sll(0x0806, Bytes(28, 0))).status == DecodeStatus::NotTcp);
}

TEST_CASE("BSD null and loop: both byte orders, all AF_INET6 values") {
    for (int lt : {linktype::kNull, linktype::kLoop}) {
        for (bool be : {false, true}) {
            INFO("linktype " << lt << " big-endian " << be);
            check_default_v4(decode_packet(lt, null_header(2, be, ipv4_tcp())));
            for (uint32_t af6 : {24u, 28u, 30u}) check_default_v6(decode_packet(lt, null_header(af6, be, ipv6_tcp())));
            CHECK(decode_packet(lt, null_header(7, be, ipv4_tcp())).status == DecodeStatus::NotTcp);
        }
    }
}

TEST_CASE("Raw IP link types") {
    check_default_v4(decode_packet(linktype::kRaw, ipv4_tcp()));
    check_default_v6(decode_packet(linktype::kRaw, ipv6_tcp()));
    check_default_v4(decode_packet(linktype::kIpv4, ipv4_tcp()));
    check_default_v6(decode_packet(linktype::kIpv6, ipv6_tcp()));
    CHECK(decode_packet(linktype::kIpv4, ipv6_tcp()).status == DecodeStatus::Malformed);
    CHECK(decode_packet(linktype::kIpv6, ipv4_tcp()).status == DecodeStatus::Malformed);
    CHECK(decode_packet(linktype::kRaw, Bytes{0x50, 0, 0, 0}).status == DecodeStatus::Malformed);
}

TEST_CASE("Unsupported link type and names") {
    auto r = decode_packet(147, ipv4_tcp());
    CHECK(r.status == DecodeStatus::UnsupportedLink);
    CHECK(r.detail.find("LINKTYPE_147") != std::string::npos);
    CHECK(std::string(linktype_name(1)) == "EN10MB");
    CHECK(std::string(linktype_name(113)) == "LINUX_SLL");
    CHECK(std::string(linktype_name(276)) == "LINUX_SLL2");
    CHECK(std::string(linktype_name(0)) == "NULL");
    const char* a = linktype_name(999);
    const char* b = linktype_name(998);
    CHECK(std::string(a) == "LINKTYPE_999");  // still valid after another call
    CHECK(std::string(b) == "LINKTYPE_998");
}

TEST_CASE("IPv4 options and bad header length") {
    Ipv4Spec s;
    s.options = {0x01, 0x01, 0x01, 0x00};  // NOP NOP NOP EOL
    check_default_v4(decode_packet(linktype::kRaw, ipv4_packet(s, tcp_with_payload(kPayload))));

    for (int ihl : {0, 4}) {
        Ipv4Spec bad;
        bad.ihl_override = ihl;
        auto r = decode_packet(linktype::kRaw, ipv4_packet(bad, tcp_with_payload(kPayload)));
        CHECK(r.status == DecodeStatus::Malformed);
        CHECK(r.detail.find("header length") != std::string::npos);
    }
    Ipv4Spec big;
    big.ihl_override = 15;  // 60 bytes claimed, 20 + 25 captured -> still fits...
    auto r = decode_packet(linktype::kRaw, ipv4_packet(big, Bytes(10, 0)));
    CHECK(r.status == DecodeStatus::Malformed);  // 30 bytes total, 60-byte header
}

TEST_CASE("IPv4 total length shorter than header is malformed") {
    Ipv4Spec s;
    s.total_override = 12;
    CHECK(decode_packet(linktype::kRaw, ipv4_packet(s, tcp_with_payload(kPayload))).status == DecodeStatus::Malformed);
}

TEST_CASE("IPv4 total length 0 (TSO capture) uses the captured length") {
    Ipv4Spec s;
    s.total_override = 0;
    auto r = decode_packet(linktype::kRaw, ipv4_packet(s, tcp_with_payload(Bytes(3000, 'z'))));
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.payload_len == 3000);
    CHECK(r.tcp.payload.size() == 3000);
}

TEST_CASE("snaplen-cut payload: payload_len from IP, span is the captured part") {
    Bytes pkt = ipv4_tcp(Bytes(100, 'q'));
    pkt.resize(20 + 20 + 10);
    auto r = decode_packet(linktype::kRaw, pkt);
    REQUIRE(r.status == DecodeStatus::Tcp);
    CHECK(r.tcp.payload_len == 100);
    CHECK(r.tcp.payload.size() == 10);
}

TEST_CASE("IPv4 fragments") {
    SECTION("first fragment (MF set)") {
        Ipv4Spec s;
        s.frag = 0x2000;
        auto r = decode_packet(linktype::kRaw, ipv4_packet(s, tcp_with_payload(kPayload)));
        CHECK(r.status == DecodeStatus::Fragment);
        CHECK(r.detail.find("IPv4 fragment") != std::string::npos);
        CHECK(r.detail.find("more fragments") != std::string::npos);
        CHECK(r.tcp.src.addr.to_string() == "192.168.1.10");
    }
    SECTION("last fragment (offset only)") {
        Ipv4Spec s;
        s.frag = 0x00b9;  // offset 185*8 = 1480
        auto r = decode_packet(linktype::kRaw, ipv4_packet(s, Bytes(40, 1)));
        CHECK(r.status == DecodeStatus::Fragment);
        CHECK(r.detail.find("offset 1480") != std::string::npos);
    }
    SECTION("DF alone is not a fragment") {
        Ipv4Spec s;
        s.frag = 0x4000;
        CHECK(decode_packet(linktype::kRaw, ipv4_packet(s, tcp_with_payload(kPayload))).status == DecodeStatus::Tcp);
    }
}

TEST_CASE("IPv6 extension headers") {
    SECTION("hop-by-hop then destination options then TCP") {
        Bytes ext = ipv6_opts_header(60, 0);
        append(ext, ipv6_opts_header(6, 1));  // 16 bytes
        check_default_v6(decode_packet(linktype::kRaw, ipv6_packet(0, ext, tcp_with_payload(kPayload))));
    }
    SECTION("routing header") {
        Bytes ext = ipv6_opts_header(6, 0);
        check_default_v6(decode_packet(linktype::kRaw, ipv6_packet(43, ext, tcp_with_payload(kPayload))));
    }
    SECTION("fragment header is a Fragment") {
        Bytes ext = ipv6_frag_header(6, 0, true, 0xabcdef01);
        auto r = decode_packet(linktype::kRaw, ipv6_packet(44, ext, tcp_with_payload(kPayload)));
        CHECK(r.status == DecodeStatus::Fragment);
        CHECK(r.detail.find("IPv6 fragment") != std::string::npos);
        CHECK(r.detail.find("0xabcdef01") != std::string::npos);
    }
    SECTION("non-first fragment") {
        Bytes ext = ipv6_frag_header(6, 1448, false, 7);
        auto r = decode_packet(linktype::kRaw, ipv6_packet(44, ext, Bytes(16, 0)));
        CHECK(r.status == DecodeStatus::Fragment);
        CHECK(r.detail.find("offset 1448") != std::string::npos);
    }
    SECTION("atomic fragment (RFC 6946) is a whole packet") {
        Bytes ext = ipv6_frag_header(6, 0, false, 9);
        check_default_v6(decode_packet(linktype::kRaw, ipv6_packet(44, ext, tcp_with_payload(kPayload))));
    }
    SECTION("extension header longer than payload length") {
        Bytes ext = ipv6_opts_header(6, 3);  // 32 bytes
        auto r = decode_packet(linktype::kRaw, ipv6_packet(0, ext, tcp_with_payload(kPayload), 1, 2, 16));
        CHECK(r.status == DecodeStatus::Malformed);
    }
    SECTION("a long chain is bounded") {
        Bytes ext;
        for (int i = 0; i < 40; ++i) append(ext, ipv6_opts_header(60, 0));
        auto r = decode_packet(linktype::kRaw, ipv6_packet(60, ext, tcp_with_payload(kPayload)));
        CHECK(r.status == DecodeStatus::Malformed);
    }
    SECTION("no next header / UDP") {
        CHECK(decode_packet(linktype::kRaw, ipv6_packet(59, {}, {})).status == DecodeStatus::NotTcp);
        CHECK(decode_packet(linktype::kRaw, ipv6_packet(17, {}, Bytes(8, 0))).status == DecodeStatus::NotTcp);
    }
}

TEST_CASE("Non-TCP packets are NotTcp") {
    Ipv4Spec udp;
    udp.proto = 17;
    auto r = decode_packet(linktype::kEthernet, ethernet(0x0800, ipv4_packet(udp, Bytes(8, 0))));
    CHECK(r.status == DecodeStatus::NotTcp);
    CHECK(r.detail.find("17") != std::string::npos);
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x0806, Bytes(28, 0))).status == DecodeStatus::NotTcp);
    CHECK(decode_packet(linktype::kEthernet, ethernet(0x0026, Bytes(38, 0))).status == DecodeStatus::NotTcp);
}

TEST_CASE("TCP options: MSS, window scale, SACK permitted") {
    TcpSpec t;
    t.flags = tcpflag::kSyn;
    // MSS 1460, NOP, WS 7, SACK-permitted, timestamps
    t.options = {2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0};
    auto r = decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, tcp_segment(t)));
    REQUIRE(r.status == DecodeStatus::Tcp);
    REQUIRE(r.tcp.mss);
    CHECK(*r.tcp.mss == 1460);
    REQUIRE(r.tcp.wscale);
    CHECK(*r.tcp.wscale == 7);
    CHECK(r.tcp.sack_permitted);
    CHECK(r.tcp.payload_len == 0);
    CHECK(r.tcp.flags == tcpflag::kSyn);

    SECTION("no options: nothing set") {
        auto plain = decode_packet(linktype::kRaw, ipv4_tcp());
        CHECK_FALSE(plain.tcp.mss);
        CHECK_FALSE(plain.tcp.wscale);
        CHECK_FALSE(plain.tcp.sack_permitted);
    }
    SECTION("window scale above 14 is clamped") {
        TcpSpec w;
        w.options = {3, 3, 20};
        auto rw = decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, tcp_segment(w)));
        REQUIRE(rw.tcp.wscale);
        CHECK(*rw.tcp.wscale == 14);
    }
    SECTION("option with a bad length stops option parsing, keeps the segment") {
        TcpSpec b;
        b.options = {2, 4, 0x05, 0xb4, 8, 0, 3, 3};  // timestamp with length 0
        auto rb = decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, tcp_segment(b)));
        REQUIRE(rb.status == DecodeStatus::Tcp);
        CHECK(rb.tcp.mss == 1460);
        CHECK_FALSE(rb.tcp.wscale);
        CHECK(rb.detail.find("option") != std::string::npos);
    }
    SECTION("option running past the header") {
        TcpSpec b;
        b.options = {1, 1, 2, 40};  // MSS claims 40 bytes
        auto rb = decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, tcp_segment(b)));
        REQUIRE(rb.status == DecodeStatus::Tcp);
        CHECK_FALSE(rb.tcp.mss);
    }
}

TEST_CASE("TCP data offset beyond the segment or below 20 is malformed") {
    Bytes seg = tcp_with_payload({});
    seg[12] = 0xf0;  // 60-byte header in a 20-byte segment
    CHECK(decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, seg)).status == DecodeStatus::Malformed);
    seg[12] = 0x40;  // 16 bytes
    CHECK(decode_packet(linktype::kRaw, ipv4_packet(Ipv4Spec{}, seg)).status == DecodeStatus::Malformed);
}

TEST_CASE("Every truncated prefix is Malformed (headers) or a shorter payload, never a crash") {
    TcpSpec t;
    t.options = {2, 4, 0x05, 0xb4, 1, 3, 3, 7};
    t.payload = Bytes(9, 'p');
    const Bytes seg = tcp_segment(t);  // 28-byte header
    Ipv4Spec opt4;
    opt4.options = {1, 1, 1, 0};
    Bytes v6ext = ipv6_opts_header(6, 1);
    struct Case {
        const char* name;
        int lt;
        Bytes frame;
        size_t headers;  // bytes before the TCP payload
    };
    const std::vector<Case> cases = {
        {"ethernet v4", linktype::kEthernet, ethernet(0x0800, ipv4_packet(opt4, seg)), 14 + 24 + 28},
        {"vlan qinq v6", linktype::kEthernet, ethernet(0x86dd, ipv6_packet(0, v6ext, seg), {{0x88a8, 1}, {0x8100, 2}}),
         22 + 40 + 16 + 28},
        {"sll v4", linktype::kLinuxSll, sll(0x0800, ipv4_packet(Ipv4Spec{}, seg)), 16 + 20 + 28},
        {"sll2 v6", linktype::kLinuxSll2, sll2(0x86dd, ipv6_packet(6, {}, seg)), 20 + 40 + 28},
        {"null v6", linktype::kNull, null_header(30, false, ipv6_packet(6, {}, seg)), 4 + 40 + 28},
        {"loop v4", linktype::kLoop, null_header(2, true, ipv4_packet(Ipv4Spec{}, seg)), 4 + 20 + 28},
        {"raw v4", linktype::kRaw, ipv4_packet(Ipv4Spec{}, seg), 20 + 28},
        {"ipv6", linktype::kIpv6, ipv6_packet(60, v6ext, seg), 40 + 16 + 28},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        REQUIRE(c.frame.size() == c.headers + 9);
        for (size_t n = 0; n <= c.frame.size(); ++n) {
            INFO("prefix " << n);
            size_t payload_size = 0;
            auto r = decode_exact(c.lt, c.frame, n, &payload_size);
            if (n < c.headers) {
                CHECK(r.status == DecodeStatus::Malformed);
                CHECK_FALSE(r.detail.empty());
            } else {
                REQUIRE(r.status == DecodeStatus::Tcp);
                CHECK(r.tcp.payload_len == 9);
                CHECK(payload_size == n - c.headers);
                CHECK(r.tcp.mss == 1460);
            }
        }
    }
}

TEST_CASE("Random bytes never crash the decoder") {
    std::mt19937 rng(12345);
    const Bytes good = ethernet(0x0800, ipv4_tcp());
    const int lts[] = {0, 1, 101, 108, 113, 228, 229, 276};
    size_t tcp_count = 0;
    for (int i = 0; i < 20000; ++i) {
        Bytes b;
        if (i % 2) {
            // mutate a good frame: flip a few bytes
            b = good;
            for (int k = 0; k < 3; ++k) b[rng() % b.size()] = uint8_t(rng());
            b.resize(rng() % (b.size() + 1));
        } else {
            b.resize(rng() % 120);
            for (auto& x : b) x = uint8_t(rng());
        }
        const int lt = (i % 2) ? 1 : lts[rng() % 8];
        auto r = decode_exact(lt, b, b.size());
        if (r.status == DecodeStatus::Tcp) ++tcp_count;
    }
    CHECK(tcp_count > 0);  // the mutations keep some frames valid
}
