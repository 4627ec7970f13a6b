// ConnectionAnalyzer on its own: TcpPackets fed directly (no capture file),
// calls and warnings caught by a test host. Handshake, probes,
// retransmissions, time order and port reuse.
#include "analyzers/calls/connection.h"
#include "analyzers/detectors/detector.h"
#include "analyzers/detectors/builtin.h"

#include <catch2/catch.hpp>

#include <deque>
#include <string>

using namespace stallscope;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = 1'704'067'200'000'000'000;  // 2024-01-01

struct Host : ConnectionHost {
    uint64_t next_id = 0;
    std::vector<Call> calls;
    std::vector<std::string> warnings;
    uint64_t new_call_id() override { return ++next_id; }
    void warn(Warning w) override { warnings.push_back(w.message); }
    void call_ready(Call&& c, const Connection&) override { calls.push_back(std::move(c)); }
};

Endpoint ep(uint8_t last, uint16_t port) {
    uint8_t a[4] = {10, 0, 0, last};
    return Endpoint{IpAddress::v4(a), port};
}

// One TCP connection on the wire: builds packets with explicit sequence
// numbers and feeds them, in the order and at the times the test says.
struct Wire {
    Host host;
    AnalysisOptions opt;
    Endpoint client = ep(1, 40001), server = ep(2, 80);
    uint32_t isn_c = 1000, isn_s = 500000;
    std::deque<std::string> payloads;  // keeps the spans valid
    std::unique_ptr<ConnectionAnalyzer> conn;
    uint64_t frame = 0;

    TcpPacket packet(bool from_client, uint8_t flags, uint32_t seq, uint32_t ack, const std::string& data = {},
                     uint16_t window = 65535) {
        TcpPacket p;
        p.src = from_client ? client : server;
        p.dst = from_client ? server : client;
        p.seq = seq;
        p.ack = ack;
        p.flags = flags;
        p.window = window;
        payloads.push_back(data);
        p.payload = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(payloads.back().data()), data.size());
        p.payload_len = uint32_t(data.size());
        return p;
    }
    // Client data at stream offset `off` (0 = first byte after the SYN).
    TcpPacket c_data(uint32_t off, const std::string& d, uint32_t s_off = 0) {
        return packet(true, tcpflag::kAck | tcpflag::kPsh, isn_c + 1 + off, isn_s + 1 + s_off, d);
    }
    TcpPacket s_data(uint32_t off, const std::string& d, uint32_t c_off) {
        return packet(false, tcpflag::kAck | tcpflag::kPsh, isn_s + 1 + off, isn_c + 1 + c_off, d);
    }
    TcpPacket c_ack(uint32_t c_off, uint32_t s_off, uint16_t window = 65535) {
        return packet(true, tcpflag::kAck, isn_c + 1 + c_off, isn_s + 1 + s_off, {}, window);
    }
    TcpPacket s_ack(uint32_t s_off, uint32_t c_off, uint16_t window = 65535) {
        return packet(false, tcpflag::kAck, isn_s + 1 + s_off, isn_c + 1 + c_off, {}, window);
    }
    void feed(int64_t at_ms, const TcpPacket& p) { feed_ns(kT0 + at_ms * kMs, p); }
    void feed_ns(int64_t ts, const TcpPacket& p) {
        Frame f;
        f.number = ++frame;
        f.ts_ns = ts;
        if (!conn) conn = std::make_unique<ConnectionAnalyzer>(1, p, opt, host);
        conn->on_packet(f, p);
    }
    void syn(int64_t at_ms) { feed(at_ms, packet(true, tcpflag::kSyn, isn_c, 0)); }
    void synack(int64_t at_ms) { feed(at_ms, packet(false, tcpflag::kSyn | tcpflag::kAck, isn_s, isn_c + 1)); }
    void handshake() {
        syn(0);
        synack(1);
        feed(2, c_ack(0, 0));
    }
    void finish() { conn->finish(); }
};

const std::string kReq = "POST /q HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789";
const std::string kResp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

// Request at 10 ms, response at 20 ms, ACKs in between.
void one_call(Wire& w, int64_t at_ms = 10, uint32_t c_off = 0, uint32_t s_off = 0) {
    w.feed(at_ms, w.c_data(c_off, kReq, s_off));
    w.feed(at_ms + 1, w.s_ack(s_off, c_off + uint32_t(kReq.size())));
    w.feed(at_ms + 10, w.s_data(s_off, kResp, c_off + uint32_t(kReq.size())));
    w.feed(at_ms + 11, w.c_ack(c_off + uint32_t(kReq.size()), s_off + uint32_t(kResp.size())));
}

void check_phases_in_order(const Call& c) {
    int64_t prev_end = INT64_MIN;
    for (const Phase& p : c.phases) {
        INFO(phase_name(p.kind));
        CHECK(p.end_ns >= p.start_ns);
        CHECK(p.start_ns >= prev_end);
        prev_end = p.end_ns;
    }
}

} // namespace

TEST_CASE("connection: handshake is SYN -> SYN-ACK -> pure ACK, never a data segment", "[connection]") {
    Wire w;
    w.syn(0);
    w.synack(25);
    // No handshake ACK captured; the request's later segment is captured
    // 2.46 s before its first one. Both ACK the SYN-ACK.
    w.feed(2486, w.c_data(20, kReq.substr(20)));
    w.feed(2490, w.c_data(0, kReq.substr(0, 20)));
    REQUIRE(w.conn->info().handshake_ms);
    CHECK(*w.conn->info().handshake_ms == Approx(25.0));
    CHECK(w.conn->info().ack_frame == 0);
    w.feed(2491, w.s_ack(0, uint32_t(kReq.size())));
    w.feed(2500, w.s_data(0, kResp, uint32_t(kReq.size())));
    w.finish();
    REQUIRE(w.host.calls.size() == 1);
    const Call& c = w.host.calls[0];
    CHECK(c.complete);
    CHECK(c.latency_ms >= 0);
    CHECK(c.request.last_ns >= c.request.first_ns);  // the segment with the last byte was captured first
    check_phases_in_order(c);
    for (const Phase& p : c.phases)
        if (p.kind == PhaseKind::ServerTime) CHECK(p.start_ns >= c.request.first_ns);
}

TEST_CASE("connection: a late pure ACK still ends the handshake, data before it does not", "[connection]") {
    Wire w;
    w.syn(0);
    w.synack(25);
    w.feed(30, w.c_data(0, kReq));         // early data (ACKs the SYN-ACK, carries bytes)
    CHECK(w.conn->info().ack_frame == 0);
    w.feed(40, w.c_ack(0, 0));             // the handshake's own ACK, captured late
    CHECK(w.conn->info().ack_frame == 4);
    CHECK(*w.conn->info().handshake_ms == Approx(40.0));
    // Later packets (no SYN, not the handshake's ACK) leave it as it is.
    w.feed(50, w.s_data(0, kResp, uint32_t(kReq.size())));
    w.feed(60, w.c_ack(uint32_t(kReq.size()), uint32_t(kResp.size())));
    REQUIRE(w.conn->info().handshake_ms);
    CHECK(*w.conn->info().handshake_ms == Approx(40.0));
}

TEST_CASE("connection: a SYN-ACK captured before its SYN gives no handshake time", "[connection]") {
    Wire w;
    w.feed(0, w.packet(false, tcpflag::kSyn | tcpflag::kAck, w.isn_s, w.isn_c + 1));
    w.feed(5, w.packet(true, tcpflag::kSyn, w.isn_c, 0));  // captured after its SYN-ACK
    CHECK_FALSE(w.conn->info().handshake_ms);
}

TEST_CASE("connection: a keep-alive 45 s after a call is no retransmission and no data", "[connection]") {
    Wire w;
    w.handshake();
    one_call(w);
    uint32_t c_end = uint32_t(kReq.size()), s_end = uint32_t(kResp.size());
    // 1-byte keep-alive (Windows) at next - 1, its ACK, a 0-byte one (Linux) from the server.
    w.feed(45'030, w.packet(true, tcpflag::kAck, w.isn_c + c_end, w.isn_s + 1 + s_end, std::string(1, '\0')));
    w.feed(45'031, w.s_ack(s_end, c_end));
    w.feed(45'040, w.packet(false, tcpflag::kAck, w.isn_s + s_end, w.isn_c + 1 + c_end));
    one_call(w, 46'000, c_end, s_end);  // a second call parses: the probe's byte was not taken as data
    w.finish();
    CHECK(w.conn->info().retransmissions == 0);
    REQUIRE(w.host.calls.size() == 2);
    CHECK(w.host.calls[1].complete);
    CHECK(w.host.calls[1].method == "POST");
    const Call& c = w.host.calls[0];
    CHECK(c.latency_ms == Approx(10.0));  // first request byte -> last response byte
    int keepalives = 0;
    for (const auto& s : c.segments) {
        if (s.probe == probe::kKeepAlive) ++keepalives;
        CHECK_FALSE(s.retransmission);
    }
    CHECK(keepalives == 2);
    // And no retransmission finding for it.
    std::vector<Finding> out;
    make_retransmission_detector()->on_call(c, w.conn->info(), CallScan(c, w.conn->info()), out);
    CHECK(out.empty());
}

TEST_CASE("connection: zero-window probes and the segment that repeats their byte are no retransmission",
          "[connection]") {
    Wire w;
    w.handshake();
    uint32_t c_end = uint32_t(kReq.size());
    w.feed(10, w.c_data(0, kReq));
    w.feed(11, w.s_ack(0, c_end));
    std::string big = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'b');
    w.feed(20, w.s_data(0, big.substr(0, 50), c_end));
    w.feed(21, w.c_ack(c_end, 50, 0));                                         // window 0
    w.feed(221, w.s_data(50, big.substr(50, 1), c_end));                       // probe
    w.feed(222, w.c_ack(c_end, 50, 0));                                        // byte refused
    w.feed(622, w.s_data(50, big.substr(50, 1), c_end));                       // probe again
    w.feed(700, w.c_ack(c_end, 50, 65535));                                    // window update
    w.feed(701, w.s_data(50, big.substr(50), c_end));                          // the rest, probe byte included
    w.feed(702, w.c_ack(c_end, uint32_t(big.size())));
    w.finish();
    CHECK(w.conn->info().retransmissions == 0);
    REQUIRE(w.host.calls.size() == 1);
    const Call& c = w.host.calls[0];
    CHECK(c.complete);
    CHECK(c.response.body_bytes == 100);
    int probes = 0;
    for (const auto& s : c.segments) probes += s.probe == probe::kZeroWindowProbe;
    CHECK(probes == 2);
}

TEST_CASE("connection: a real retransmission is counted, its cost stays inside the call", "[connection]") {
    Wire w;
    w.handshake();
    uint32_t c_end = uint32_t(kReq.size()), s_end = uint32_t(kResp.size());
    w.feed(10, w.c_data(0, kReq));
    w.feed(310, w.c_data(0, kReq));  // sent again after an RTO: the server never ACKed
    w.feed(311, w.s_ack(0, c_end));
    w.feed(320, w.s_data(0, kResp, c_end));
    w.feed(321, w.c_ack(c_end, s_end));
    // The server sends its response again 60 s later (it missed the ACK):
    // after the call, so not this call's cost.
    w.feed(60'320, w.s_data(0, kResp, c_end));
    w.finish();
    CHECK(w.conn->info().retransmissions == 2);
    REQUIRE(w.host.calls.size() == 1);
    const Call& c = w.host.calls[0];
    CHECK(c.latency_ms == Approx(310.0));
    std::vector<Finding> out;
    make_retransmission_detector()->on_call(c, w.conn->info(), CallScan(c, w.conn->info()), out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].side == Side::Client);
    CHECK(out[0].cost_ms == Approx(300.0));
    CHECK(out[0].cost_ms <= c.latency_ms);
    CHECK(out[0].start_ns >= c.start_ns);
    CHECK(out[0].end_ns <= c.end_ns);
}

TEST_CASE("connection: port reuse after a close opens a new connection, a retransmitted SYN does not",
          "[connection]") {
    Wire w;
    w.syn(0);
    TcpPacket again = w.packet(true, tcpflag::kSyn, w.isn_c, 0);
    CHECK(w.conn->accepts(again));  // the same SYN sent again
    w.feed(1000, again);
    CHECK(w.conn->info().syn_retransmissions == 1);
    w.synack(1001);
    w.feed(1002, w.c_ack(0, 0));
    one_call(w, 1010);
    uint32_t c_end = uint32_t(kReq.size()), s_end = uint32_t(kResp.size());
    w.feed(1100, w.packet(true, tcpflag::kFin | tcpflag::kAck, w.isn_c + 1 + c_end, w.isn_s + 1 + s_end));
    w.feed(1101, w.packet(false, tcpflag::kFin | tcpflag::kAck, w.isn_s + 1 + s_end, w.isn_c + 2 + c_end));
    w.feed(1102, w.c_ack(c_end + 1, s_end + 1));
    CHECK(w.conn->closed());
    TcpPacket reuse = w.packet(true, tcpflag::kSyn, 77777, 0);
    CHECK_FALSE(w.conn->accepts(reuse));
    // A new SYN on a connection still open that carried data is a new connection too.
    Wire open;
    open.handshake();
    open.feed(10, open.c_data(0, kReq));
    CHECK_FALSE(open.conn->accepts(open.packet(true, tcpflag::kSyn, 99, 0)));
    CHECK(open.conn->accepts(open.packet(true, tcpflag::kSyn, open.isn_c, 0)));  // its own SYN again
}

TEST_CASE("connection: calls left when it closes are kept parked and handed on whole, with the late ACKs",
          "[connection]") {
    Wire w;
    w.handshake();
    one_call(w, 10);
    const uint32_t c1 = uint32_t(kReq.size()), s1 = uint32_t(kResp.size());
    // The second call's request carries a SOAP envelope so the parked call has every kind of field.
    const std::string body = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>"
                             "<m:getQuote xmlns:m=\"urn:q\"/></s:Body></s:Envelope>";
    const std::string req = "POST /soap HTTP/1.1\r\nHost: x\r\nUser-Agent: test-agent/1.0 (parked)\r\n"
                            "Content-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:q#getQuote\"\r\n"
                            "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    const std::string resp = "HTTP/1.1 500 Internal Server Error\r\nServer: parked-server\r\nContent-Length: 5\r\n\r\nfault";
    const uint32_t c2 = c1 + uint32_t(req.size()), s2 = s1 + uint32_t(resp.size());
    w.feed(50, w.c_data(c1, req, s1));
    w.feed(51, w.s_ack(s1, c2));
    w.feed(60, w.s_data(s1, resp, c2));
    // The client closes before it acknowledges the response.
    w.feed(100, w.packet(true, tcpflag::kFin | tcpflag::kAck, w.isn_c + 1 + c2, w.isn_s + 1 + s1));
    w.feed(101, w.packet(false, tcpflag::kFin | tcpflag::kAck, w.isn_s + 1 + s2, w.isn_c + 2 + c2));
    CHECK(w.conn->closed());
    REQUIRE(w.host.calls.size() == 1);  // the first call; the second waits (parked) for late ACKs
    // The client's ACK of the response and of the FIN, captured late and twice.
    w.feed(300, w.c_ack(c2 + 1, s2 + 1));
    w.feed(900, w.c_ack(c2 + 1, s2 + 1));
    w.finish();
    REQUIRE(w.host.calls.size() == 2);
    const Call& c = w.host.calls[1];
    CHECK(c.index_on_connection == 1);
    CHECK(c.method == "POST");
    CHECK(c.uri == "/soap");
    CHECK(c.user_agent == "test-agent/1.0 (parked)");
    CHECK(c.content_type == "text/xml; charset=utf-8");
    CHECK(c.soap_action == "urn:q#getQuote");
    CHECK(c.status == 500);
    CHECK(c.reason == "Internal Server Error");
    CHECK(c.server == "parked-server");
    CHECK(c.soap.is_soap);
    CHECK(c.soap.operation == "getQuote");
    CHECK(c.soap.operation_ns == "urn:q");
    CHECK(c.complete);
    CHECK(c.closed_connection);
    CHECK(c.latency_ms == Approx(10.0));
    CHECK(c.request.write_sizes == std::vector<uint32_t>{uint32_t(req.size())});
    CHECK(c.response.frames.size() == 1);
    // Its window runs to the end: the late ACKs are its segments, the response acknowledged by the first.
    REQUIRE(!c.segments.empty());
    CHECK(c.segments.back().frame == w.frame);
    bool resp_acked = false;
    for (const auto& s : c.segments)
        if (s.carries & carries::kResponseBody) resp_acked = s.acked_frame == w.frame - 1;
    CHECK(resp_acked);
    REQUIRE(!c.phases.empty());
    CHECK(c.phases.back().kind == PhaseKind::Close);
    CHECK(c.phases.back().end_frame == w.frame);
}

namespace {

// A TLS record of `type` around `body`, as a string for Wire.
std::string tls_record(uint8_t type, const std::string& body, uint16_t version = 0x0303) {
    std::string r{char(type), char(version >> 8), char(version & 0xff), char(body.size() >> 8), char(body.size() & 0xff)};
    return r + body;
}
std::string tls_handshake(uint8_t type, const std::string& body) {
    return std::string{char(type), char(body.size() >> 16), char((body.size() >> 8) & 0xff), char(body.size() & 0xff)} +
           body;
}
std::string u16(size_t v) { return std::string{char(v >> 8), char(v & 0xff)}; }
// ClientHello with SNI `host`, no session id; ServerHello choosing TLS 1.2 suite 0xc02f.
std::string client_hello(const std::string& host) {
    std::string name = std::string{char(0)} + u16(host.size()) + host;
    std::string sni = u16(0) + u16(name.size() + 2) + u16(name.size()) + name;
    std::string body = u16(0x0303) + std::string(32, '\x11') + std::string(1, '\0') + u16(2) + u16(0xc02f) +
                       std::string{char(1), char(0)} + u16(sni.size()) + sni;
    return tls_handshake(1, body);
}
std::string server_hello() {
    std::string body = u16(0x0303) + std::string(32, '\x22') + std::string(1, '\0') + u16(0xc02f) +
                       std::string(1, '\0') + u16(0);
    return tls_handshake(2, body);
}

} // namespace

TEST_CASE("connection: TLS is detected by its record header on any port, no HTTP calls without keys, only keyless ones", "[connection][tls]") {
    Wire w;  // server port 80: the port says HTTP, the bytes say TLS
    w.handshake();
    std::string ch = tls_record(22, client_hello("soap.example.com"), 0x0301);
    // The ClientHello in two segments, the ServerHello in one, then application data.
    w.feed(10, w.c_data(0, ch.substr(0, 7)));
    w.feed(11, w.c_data(7, ch.substr(7)));
    std::string sh = tls_record(22, server_hello());
    w.feed(20, w.s_data(0, sh, uint32_t(ch.size())));
    std::string app = tls_record(23, std::string(100, 'x'));
    w.feed(30, w.c_data(uint32_t(ch.size()), app, uint32_t(sh.size())));
    w.feed(40, w.s_data(uint32_t(sh.size()), app, uint32_t(ch.size() + app.size())));
    w.finish();
    REQUIRE(w.conn->tls());
    const TlsConnectionInfo& i = w.conn->tls()->info();
    CHECK(i.sni == "soap.example.com");
    CHECK(i.version == 0x0303);
    CHECK(i.cipher_suite == 0xc02f);
    CHECK(i.records[Side::Client] == 2);
    CHECK(i.records[Side::Server] == 2);
    REQUIRE(w.host.calls.size() == 1);  // the keyless model's: one request record, one answer
    CHECK(w.host.calls[0].encrypted);
    CHECK(w.host.calls[0].status == 0);
    CHECK_FALSE(w.conn->info().http);
    CHECK(w.host.warnings.empty());
}

TEST_CASE("connection: a plaintext connection has no TLS side", "[connection][tls]") {
    Wire w;
    w.handshake();
    one_call(w);
    w.finish();
    CHECK_FALSE(w.conn->tls());
    CHECK(w.host.calls.size() == 1);
}

TEST_CASE("connection: without a SYN, the ClientHello names the client whatever the ports", "[connection][tls]") {
    Wire w;
    w.client = ep(1, 443);    // the client on the low port: the port guess would make it the server
    w.server = ep(2, 50000);
    std::string ch = tls_record(22, client_hello("x"), 0x0301);
    w.feed(10, w.c_data(0, ch));
    CHECK(w.conn->info().client.port == 443);
    w.finish();  // without a SYN the stream's origin is settled only at the end
    REQUIRE(w.conn->tls());
    CHECK(w.conn->tls()->info().client_hello);
}

TEST_CASE("connection: a bogus record length warns with its frame and never makes calls", "[connection][tls]") {
    Wire w;
    w.handshake();
    std::string ch = tls_record(22, client_hello("x"), 0x0301);
    w.feed(10, w.c_data(0, ch));
    std::string bad = std::string{char(23), 3, 3, char(0x48), 1} + std::string(200, 'A');
    w.feed(20, w.c_data(uint32_t(ch.size()), bad));
    w.finish();
    REQUIRE(w.host.warnings.size() == 1);
    CHECK(w.host.warnings[0].find("frame 5") != std::string::npos);
    CHECK(w.host.warnings[0].find("record_too_long") != std::string::npos);
    CHECK(w.host.calls.empty());
}
