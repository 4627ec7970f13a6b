// The Ethernet/IPv4/TCP shortcut (capture/fast_tcp_decoder.cpp) against the
// layered decoder: on every frame of every bundled and public capture and on
// mutated frames, the shortcut takes exactly the frames the layers decode as
// plain Ethernet/IPv4/TCP, and gives the same result for each.
#include "capture/decode_internal.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/packet_builder.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

using namespace stallscope;
using namespace stallscope::test;

namespace {

bool same_span(std::span<const uint8_t> a, std::span<const uint8_t> b) {
    return a.data() == b.data() && a.size() == b.size();
}

// Every field, payload spans by address (both must point into the frame at the same place).
std::string difference(const DecodeResult& a, const DecodeResult& b) {
    const TcpPacket &x = a.tcp, &y = b.tcp;
    if (a.status != b.status) return "status";
    if (a.detail != b.detail) return "detail '" + a.detail + "' vs '" + b.detail + "'";
    if (a.tunnels != b.tunnels) return "tunnels";
    if (x.src != y.src || x.dst != y.dst) return "endpoints";
    if (x.seq != y.seq || x.ack != y.ack || x.flags != y.flags || x.window != y.window) return "seq/ack/flags/window";
    if (x.mss != y.mss || x.wscale != y.wscale || x.sack_permitted != y.sack_permitted) return "options";
    if (x.ttl != y.ttl) return "ttl";
    if (x.payload_len != y.payload_len || !same_span(x.payload, y.payload)) return "payload";
    const IpFragment &f = a.fragment, &g = b.fragment;
    if (f.version != g.version || f.src != g.src || f.dst != g.dst || f.id != g.id || f.protocol != g.protocol ||
        f.offset != g.offset || f.more != g.more || f.len_on_wire != g.len_on_wire || !same_span(f.payload, g.payload) ||
        f.depth != g.depth)
        return "fragment";
    return "";
}

// What the layers say is plain Ethernet/IPv4/TCP: the frames the shortcut must take.
bool plain_ipv4_tcp(std::span<const uint8_t> frame, const DecodeResult& layered) {
    return layered.status == DecodeStatus::Tcp && layered.tunnels.empty() && frame.size() >= 14 &&
           frame[12] == 0x08 && frame[13] == 0x00;
}

struct Tally {
    size_t frames = 0, taken = 0;
};

// Checks one Ethernet frame; decodes from an exactly-sized heap copy so a read
// past the end is an out-of-bounds access ASan reports.
void check_frame(std::span<const uint8_t> bytes, Tally& tally) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.empty() ? 1 : bytes.size()]);
    std::copy(bytes.begin(), bytes.end(), copy.get());
    const std::span<const uint8_t> frame(copy.get(), bytes.size());

    const DecodeResult layered = decode::decode_packet_layered(linktype::kEthernet, frame);
    DecodeResult fast;
    const bool taken = decode::decode_ethernet_ipv4_tcp(frame, fast);
    ++tally.frames;
    REQUIRE(taken == plain_ipv4_tcp(frame, layered));
    if (taken) {
        ++tally.taken;
        REQUIRE(difference(fast, layered) == "");
    } else {
        REQUIRE(difference(fast, DecodeResult{}) == "");  // left untouched
    }
    // decode_packet, shortcut or not, is the layered result.
    REQUIRE(difference(decode_packet(linktype::kEthernet, frame), layered) == "");
}

std::vector<std::filesystem::path> captures_under(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file() && (name.find(".pcap") != std::string::npos)) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

constexpr size_t kMaxFramesPerFile = 200000;  // bounds the loop; every bundled capture is smaller

// Frames of Ethernet captures, mutated: bytes of the headers flipped, lengths
// cut, the IPv4 and TCP length fields set to edge values.
void check_mutations(const Bytes& frame, std::mt19937& rng, Tally& tally) {
    const size_t head = std::min<size_t>(frame.size(), 14 + 60 + 60);
    for (int m = 0; m < 8; ++m) {
        Bytes b = frame;
        switch (m % 4) {
        case 0:  // a few header bytes
            for (int k = 0; k < 2 && head; ++k) b[rng() % head] = uint8_t(rng());
            break;
        case 1:  // a cut anywhere
            b.resize(rng() % (b.size() + 1));
            break;
        case 2:  // IPv4 total length, IHL, fragment field, TCP data offset
            if (b.size() > 14 + 20) {
                const size_t at[] = {14, 16, 17, 20, 21, 23};
                b[at[rng() % 6]] = uint8_t(rng());
                if (b.size() > 14 + 20 + 13) b[14 + 20 + 12] = uint8_t(rng());
            }
            break;
        default:  // total length 0 (TSO), or the frame padded past it
            if (b.size() > 14 + 4) {
                if (rng() % 2) b[16] = b[17] = 0;
                else b.resize(b.size() + rng() % 40, 0xee);
            }
            break;
        }
        check_frame(b, tally);
    }
}

void check_file(const std::filesystem::path& path, Tally& tally, std::mt19937* rng) {
    INFO(path.string());
    std::string error;
    auto reader = PcapFileReader::open(path.string(), error);
    if (!reader) return;  // hostile fixtures: files the reader refuses have no frames to compare
    Frame f;
    for (size_t n = 0; n < kMaxFramesPerFile && reader->next(f) == PcapFileReader::Status::Ok; ++n) {
        if (f.linktype != linktype::kEthernet) continue;
        INFO("frame " << f.number);
        check_frame(f.data, tally);
        if (rng && n % 7 == 0) check_mutations(Bytes(f.data.begin(), f.data.end()), *rng, tally);
    }
}

} // namespace

TEST_CASE("The Ethernet/IPv4/TCP shortcut agrees with the layered decoder on every bundled capture") {
    Tally tally;
    std::mt19937 rng(2026);
    for (const auto& p : captures_under(STALLSCOPE_TESTDATA_DIR)) check_file(p, tally, &rng);
    INFO(tally.frames << " frames, " << tally.taken << " taken");
    CHECK(tally.taken > 5000);  // the shortcut does take the common frame (9,215 of 25,508 today)
    CHECK(tally.taken < tally.frames);
}

TEST_CASE("The shortcut agrees with the layered decoder on every public capture") {
    const auto files = captures_under(STALLSCOPE_PUBLIC_CORPUS_DIR);
    if (files.empty()) {
        WARN("no public corpus at " STALLSCOPE_PUBLIC_CORPUS_DIR);
        return;
    }
    Tally tally;
    std::mt19937 rng(26);
    for (const auto& p : files) check_file(p, tally, &rng);
    INFO(tally.frames << " frames, " << tally.taken << " taken");
    CHECK(tally.taken > 0);
}

TEST_CASE("The shortcut on built frames: options, padding, TSO, fragments, VLAN, other protocols") {
    TcpSpec syn;
    syn.flags = tcpflag::kSyn;
    syn.options = {2, 4, 0x05, 0xb4, 1, 3, 3, 20, 4, 2};  // MSS 1460, window scale 20 (clamped), SACK permitted
    TcpSpec bad_opt;
    bad_opt.options = {2, 9, 0, 0};  // option length past the header
    TcpSpec data;
    data.payload = Bytes(100, 'x');
    Ipv4Spec opts4;
    opts4.options = {1, 1, 1, 0};
    Ipv4Spec tso;
    tso.total_override = 0;
    Ipv4Spec frag;
    frag.frag = 0x2000;
    Ipv4Spec udp;
    udp.proto = 17;

    Bytes padded = ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(data)));
    padded.resize(padded.size() + 30, 0xee);
    struct Case {
        const char* name;
        Bytes frame;
        bool taken;
    };
    const std::vector<Case> cases = {
        {"SYN with options", ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(syn))), true},
        {"bad option", ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(bad_opt))), true},
        {"data", ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(data))), true},
        {"IPv4 options", ethernet(0x0800, ipv4_packet(opts4, tcp_segment(data))), true},
        {"TSO total length 0", ethernet(0x0800, ipv4_packet(tso, tcp_segment(data))), true},
        {"link padding", padded, true},
        {"fragment", ethernet(0x0800, ipv4_packet(frag, tcp_segment(data))), false},
        {"UDP", ethernet(0x0800, ipv4_packet(udp, tcp_segment(data))), false},
        {"VLAN", ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(data)), {{0x8100, 5}}), false},
        {"IPv6", ethernet(0x86dd, ipv6_packet(6, {}, tcp_segment(data))), false},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        Tally tally;
        check_frame(c.frame, tally);
        CHECK(tally.taken == (c.taken ? 1u : 0u));
        // Every prefix of it too (cut headers are the layers' to report).
        for (size_t n = 0; n < c.frame.size(); ++n) check_frame({c.frame.data(), n}, tally);
    }
    DecodeResult r;
    REQUIRE(decode::decode_ethernet_ipv4_tcp(cases[0].frame, r));
    CHECK(r.tcp.mss == 1460);
    CHECK(r.tcp.wscale == 14);
    CHECK(r.tcp.sack_permitted);
    CHECK(r.detail == "window scale 20 clamped to 14");
    DecodeResult d;
    REQUIRE(decode::decode_ethernet_ipv4_tcp(padded, d));
    CHECK(d.tcp.payload.size() == 100);  // the padding is not payload
}

TEST_CASE("The shortcut on random mutations of a frame with options") {
    TcpSpec t;
    t.options = {2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2};
    t.payload = Bytes(40, 'p');
    const Bytes good = ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(t)));
    std::mt19937 rng(77);
    Tally tally;
    for (int i = 0; i < 5000; ++i) check_mutations(good, rng, tally);
    CHECK(tally.taken > 1000);
    CHECK(tally.taken < tally.frames);
}
