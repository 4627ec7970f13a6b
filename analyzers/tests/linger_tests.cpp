// A closed connection lingers exactly one second of capture time after its
// last packet (late ACKs and a duplicated close still belong to it), then is
// closed at the first frame past that; and the Fifo the per-connection queues
// are built on.
#include "analyzers/pipeline/streaming_analysis.h"
#include "analyzers/calls/fifo.h"
#include "capture/tests/packet_builder.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace stallscope;
using namespace stallscope::test;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = 1'704'067'200'000'000'000;  // 2024-01-01

const std::string kReq = "POST /q HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789";
const std::string kResp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

// Frames of one client (192.168.1.10:40000) talking to 10.0.0.1:80, raw IPv4.
struct Capture {
    Analyzer analyzer{AnalysisOptions{}, "linger-test"};
    uint64_t frame = 0;
    uint32_t isn_c = 1000, isn_s = 500000;

    void send(int64_t at_ms, bool from_client, uint8_t flags, uint32_t seq, uint32_t ack, const std::string& data = {},
              uint16_t sport = 40000) {
        TcpSpec t;
        t.sport = from_client ? sport : 80;
        t.dport = from_client ? 80 : sport;
        t.seq = seq;
        t.ack = ack;
        t.flags = flags;
        t.window = 65535;
        t.payload.assign(data.begin(), data.end());
        Ipv4Spec ip;
        if (!from_client) std::swap(ip.src, ip.dst);
        Bytes bytes = ipv4_packet(ip, tcp_segment(t));
        Frame f;
        f.number = ++frame;
        f.ts_ns = kT0 + at_ms * kMs;
        f.linktype = 101;  // raw IP
        f.origlen = uint32_t(bytes.size());
        f.data = bytes;
        analyzer.on_frame(f);
    }
    // Handshake at 0 ms, one call at 10-21 ms, FIN/FIN/ACK at 100-102 ms.
    void call_then_close() {
        const uint32_t c_end = uint32_t(kReq.size()), s_end = uint32_t(kResp.size());
        send(0, true, 0x02, isn_c, 0);
        send(1, false, 0x12, isn_s, isn_c + 1);
        send(2, true, 0x10, isn_c + 1, isn_s + 1);
        send(10, true, 0x18, isn_c + 1, isn_s + 1, kReq);
        send(11, false, 0x10, isn_s + 1, isn_c + 1 + c_end);
        send(20, false, 0x18, isn_s + 1, isn_c + 1 + c_end, kResp);
        send(21, true, 0x10, isn_c + 1 + c_end, isn_s + 1 + s_end);
        send(100, true, 0x11, isn_c + 1 + c_end, isn_s + 1 + s_end);
        send(101, false, 0x11, isn_s + 1 + s_end, isn_c + 2 + c_end);
        send(102, true, 0x10, isn_c + 2 + c_end, isn_s + 2 + s_end);
    }
    void final_ack_again(int64_t at_ms) {
        send(at_ms, true, 0x10, isn_c + 2 + uint32_t(kReq.size()), isn_s + 2 + uint32_t(kResp.size()));
    }
    // Other traffic: a connection of its own on another port (keeps the capture's clock moving).
    void other(int64_t at_ms, uint16_t port) { send(at_ms, true, 0x02, 7, 0, {}, port); }
};

const Phase* close_phase(const Call& c) {
    for (const Phase& p : c.phases)
        if (p.kind == PhaseKind::Close) return &p;
    return nullptr;
}

} // namespace

TEST_CASE("linger: a packet within one second of a closed connection's last one still belongs to it", "[linger]") {
    Capture cap;
    cap.call_then_close();
    cap.other(900, 41000);
    cap.final_ack_again(1101);  // 999 ms after the close's last packet
    AnalysisResult r = cap.analyzer.finish();
    REQUIRE(r.connections.size() == 2);  // ours and the other one
    CHECK(r.connections[0].packets == 11);
    REQUIRE(r.calls.size() == 1);
    const Phase* close = close_phase(r.calls[0]);
    REQUIRE(close);
    CHECK(close->end_frame == 12);  // the repeated final ACK ends the close
}

TEST_CASE("linger: past one second the closed connection is over, whatever else the capture holds", "[linger]") {
    // With and without other traffic in between: the linger runs out at the
    // first frame past one second, not at a periodic sweep.
    for (bool busy : {false, true}) {
        INFO("other traffic: " << busy);
        Capture cap;
        cap.call_then_close();
        if (busy)
            for (int i = 0; i < 20; ++i) cap.other(150 + i * 50, uint16_t(41000 + i));
        cap.final_ack_again(1103);  // 1001 ms after the close's last packet
        AnalysisResult r = cap.analyzer.finish();
        REQUIRE(r.connections.size() == (busy ? 22u : 2u));
        CHECK(r.connections[0].packets == 10);
        CHECK(r.connections.back().packets == 1);  // the late ACK began a connection of its own
        REQUIRE(r.calls.size() == 1);
        const Phase* close = close_phase(r.calls[0]);
        REQUIRE(close);
        CHECK(close->end_frame == 10);
    }
}

TEST_CASE("fifo: push, pop and reuse keep order, an empty one owns nothing", "[linger]") {
    Fifo<std::unique_ptr<int>> q;
    CHECK(q.empty());
    int next_in = 0, next_out = 0;
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 7; ++i) q.push_back(std::make_unique<int>(next_in++));
        for (int i = 0; i < 5; ++i) {
            REQUIRE(*q.front() == next_out++);
            q.pop_front();
        }
        REQUIRE(q.size() == size_t(next_in - next_out));
        for (size_t i = 0; i < q.size(); ++i) REQUIRE(*q[i] == next_out + int(i));
    }
    q.drop_front(3);
    next_out += 3;
    CHECK(*q.front() == next_out);
    CHECK(*q.back() == next_in - 1);
    q.pop_back();
    CHECK(q.size() == size_t(next_in - 1 - next_out));
    q.shrink();
    CHECK(*q.front() == next_out);
    q.drop_front(q.size() + 5);  // more than it holds
    CHECK(q.empty());
    Fifo<int> ints;
    for (int i = 0; i < 100; ++i) ints.push_back(i);
    ints.drop_front(60);
    int sum = 0;
    for (int v : ints) sum += v;
    CHECK(sum == (60 + 99) * 40 / 2);
}
