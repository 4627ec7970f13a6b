// IPv4/IPv6 fragment reassembly from bytes: order, overlaps (first copy
// wins), timeouts, caps, and the warnings each of them gives.
#include "capture/fragment_reassembler.h"
#include "capture/packet_decoder.h"
#include "capture/tests/packet_builder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace stallscope;
using namespace stallscope::test;

namespace {

constexpr int64_t kSec = 1'000'000'000;

// A TCP segment with `n` payload bytes 'a'..'z' repeated.
Bytes segment(size_t n) {
    TcpSpec t;
    for (size_t i = 0; i < n; ++i) t.payload.push_back(uint8_t('a' + i % 26));
    return tcp_segment(t);
}

// Fragment [offset, offset + len) of an IPv4 datagram whose payload is `l4`.
Bytes v4_fragment(const Bytes& l4, size_t offset, size_t len, uint16_t id = 0x4242) {
    Ipv4Spec s;
    s.id = id;
    const bool more = offset + len < l4.size();
    s.frag = uint16_t((more ? 0x2000 : 0) | (offset / 8));
    return ipv4_packet(s, Bytes(l4.begin() + offset, l4.begin() + offset + len));
}

Bytes v6_fragment(const Bytes& l4, size_t offset, size_t len, uint32_t id = 0x01020304) {
    const bool more = offset + len < l4.size();
    return ipv6_packet(44, ipv6_frag_header(6, uint16_t(offset), more, id), Bytes(l4.begin() + offset, l4.begin() + offset + len));
}

struct Harness {
    std::vector<std::pair<std::string, uint64_t>> warnings;
    FragmentReassembler r;
    std::vector<Bytes> keep;  // fragments' bytes outlive their IpFragment spans

    explicit Harness(FragmentLimits limits = {})
        : r(limits, [this](const std::string& m, uint64_t frame) { warnings.emplace_back(m, frame); }) {}

    // Feeds one fragment packet; returns the decoded datagram when it completes one.
    std::optional<DecodeResult> feed(const Bytes& pkt, uint64_t frame, int64_t ts = 0) {
        keep.push_back(pkt);
        auto d = decode_packet(linktype::kRaw, keep.back());
        REQUIRE(d.status == DecodeStatus::Fragment);
        auto whole = r.add(d.fragment, frame, ts);
        if (!whole) return std::nullopt;
        return decode_ip_datagram(*whole, d.fragment.depth);
    }
    bool warned(const std::string& part, uint64_t frame) const {
        for (auto& [m, f] : warnings)
            if (f == frame && m.find(part) != std::string::npos && m.rfind("frame " + std::to_string(frame) + ": ", 0) == 0)
                return true;
        return false;
    }
};

void check_whole(const std::optional<DecodeResult>& d, const Bytes& l4) {
    REQUIRE(d);
    REQUIRE(d->status == DecodeStatus::Tcp);
    CHECK(d->tcp.payload_len == l4.size() - 20);
    CHECK(Bytes(d->tcp.payload.begin(), d->tcp.payload.end()) == Bytes(l4.begin() + 20, l4.end()));
    CHECK(d->tcp.dst.port == 80);
}

} // namespace

TEST_CASE("IPv4 fragments reassemble in any order") {
    const Bytes l4 = segment(3000);  // 3020 bytes: fragments of 1480, 1480, 60
    SECTION("in order") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 1));
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480), 2));
        CHECK(h.r.datagrams_held() == 1);
        CHECK(h.r.bytes_held() == 2960);
        auto d = h.feed(v4_fragment(l4, 2960, 60), 3);
        check_whole(d, l4);
        CHECK(d->tcp.src.addr.to_string() == "192.168.1.10");
        CHECK(h.warnings.empty());
        CHECK(h.r.datagrams_held() == 0);
        CHECK(h.r.bytes_held() == 0);
    }
    SECTION("last first, then the middle, then the first") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 2960, 60), 1));
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480), 2));
        check_whole(h.feed(v4_fragment(l4, 0, 1480), 3), l4);
        CHECK(h.warnings.empty());
    }
    SECTION("two datagrams with different ids interleaved") {
        Harness h;
        const Bytes other = segment(2000);
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 1), 1));
        CHECK_FALSE(h.feed(v4_fragment(other, 0, 1480, 2), 2));
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480, 1), 3));
        check_whole(h.feed(v4_fragment(other, 1480, 540, 2), 4), other);
        check_whole(h.feed(v4_fragment(l4, 2960, 60, 1), 5), l4);
    }
}

TEST_CASE("IPv6 fragments reassemble") {
    const Bytes l4 = segment(2500);
    Harness h;
    CHECK_FALSE(h.feed(v6_fragment(l4, 1232, l4.size() - 1232), 1));
    auto d = h.feed(v6_fragment(l4, 0, 1232), 2);
    check_whole(d, l4);
    CHECK(d->tcp.src.addr.to_string() == "2001:db8::1");
}

TEST_CASE("An exact duplicate fragment (a capture that saw the frame twice) is silent") {
    const Bytes l4 = segment(2000);
    Harness h;
    for (uint64_t frame = 1; frame <= 2; ++frame) CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), frame));
    check_whole(h.feed(v4_fragment(l4, 1480, 540), 3), l4);
    CHECK(h.warnings.empty());
}

TEST_CASE("Overlap with different content completes with the first copy") {
    const Bytes l4 = segment(2000);
    Harness h;
    CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 1));
    Bytes forged = l4;
    for (size_t i = 1400; i < 1480; ++i) forged[i] = 'X';
    auto d = h.feed(v4_fragment(forged, 1400, 620), 2);
    check_whole(d, l4);  // the 'X' bytes lost: the first copy was kept
    CHECK(h.warned("overlaps bytes already held", 2));
    CHECK(h.warnings.size() == 1);
}

TEST_CASE("Datagrams that never complete are dropped with a warning naming their first frame") {
    const Bytes l4 = segment(3000);
    SECTION("timeout by capture time") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 7, 0));
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480), 8, 31 * kSec));  // the first one expired before this
        CHECK(h.warned("never completed (no fragment for 30 s", 7));
        CHECK(h.r.fragments_dropped() == 1);
        CHECK_FALSE(h.feed(v4_fragment(l4, 2960, 60), 9, 32 * kSec));  // a new datagram: still missing 0..1480
        CHECK(h.r.datagrams_held() == 1);
    }
    SECTION("timeout noticed on any later frame, not only on a fragment") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 7, 0));
        h.r.advance(30 * kSec);
        CHECK(h.r.datagrams_held() == 1);  // exactly 30 s: not yet
        h.r.advance(30 * kSec + 1);
        CHECK(h.r.datagrams_held() == 0);
        CHECK(h.warned("never completed (no fragment for 30 s", 7));
    }
    SECTION("end of capture") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 3));
        CHECK_FALSE(h.feed(v4_fragment(l4, 2960, 60), 4));
        h.r.finish();
        CHECK(h.warned("never completed (the capture ends): its 2 fragment(s) from frame 3", 3));
        CHECK(h.r.fragments_dropped() == 2);
        CHECK(h.r.datagrams_held() == 0);
        CHECK(h.r.bytes_held() == 0);
    }
}

TEST_CASE("Caps: datagrams in flight and bytes held, warned when hit") {
    const Bytes l4 = segment(3000);
    SECTION("datagram count") {
        FragmentLimits lim;
        lim.max_datagrams = 2;
        Harness h(lim);
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 1), 1));
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 2), 2));
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 3), 3));
        CHECK(h.r.datagrams_held() == 2);
        CHECK(h.warned("reassembly cap (2 datagrams", 3));
        CHECK(h.warnings.size() == 1);  // the evicted datagram is counted, not warned one by one
        // the two newest still complete
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480, 3), 4));
        check_whole(h.feed(v4_fragment(l4, 2960, 60, 3), 5), l4);
        h.r.finish();
        CHECK(h.warned("1 incomplete IP datagram(s) dropped in all under the fragment reassembly cap", 3));
    }
    SECTION("bytes held") {
        FragmentLimits lim;
        lim.max_bytes = 4000;
        Harness h(lim);
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 1), 1));
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480, 2), 2));
        CHECK(h.r.bytes_held() == 2960);
        CHECK_FALSE(h.feed(v4_fragment(l4, 1480, 1480, 2), 3));  // 4440 > 4000: datagram 1 goes
        CHECK(h.r.bytes_held() <= lim.max_bytes);
        CHECK(h.r.datagrams_held() == 1);
        CHECK(h.warned("reassembly cap", 3));
        check_whole(h.feed(v4_fragment(l4, 2960, 60, 2), 4), l4);
    }
    SECTION("pieces of one datagram") {
        FragmentLimits lim;
        lim.max_pieces = 3;
        Harness h(lim);
        // every other 8-byte block: each one a separate piece
        for (size_t i = 0; i < 4; ++i) CHECK_FALSE(h.feed(v4_fragment(l4, i * 16, 8), 1 + i));
        CHECK(h.r.datagrams_held() == 0);
        CHECK(h.warned("in more than 3 separate pieces", 1));
    }
}

TEST_CASE("Fragments that cannot be used are skipped with a warning") {
    const Bytes l4 = segment(3000);
    SECTION("cut by the snapshot length") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 0, 1480), 1));
        Bytes cut = v4_fragment(l4, 1480, 1480);
        cut.resize(cut.size() - 100);
        CHECK_FALSE(h.feed(cut, 2));
        CHECK(h.warned("cut by the snapshot length (1380 of 1480 bytes captured)", 2));
        CHECK(h.warned("never completed (a fragment was cut by the snapshot length)", 1));
        CHECK(h.r.datagrams_held() == 0);
    }
    SECTION("two last fragments that disagree") {
        Harness h;
        CHECK_FALSE(h.feed(v4_fragment(l4, 2960, 60), 1));
        Bytes shorter(l4.begin(), l4.begin() + 2000);
        CHECK_FALSE(h.feed(v4_fragment(shorter, 1480, 520), 2));
        CHECK(h.warned("a second last fragment says the datagram has 2000 bytes, not 3020", 2));
    }
    SECTION("past the largest datagram") {
        Harness h;
        Ipv4Spec s;
        s.frag = 0x1fff;  // offset 65528
        CHECK_FALSE(h.feed(ipv4_packet(s, Bytes(100, 0)), 1));
        CHECK(h.warned("past the largest datagram", 1));
    }
}
