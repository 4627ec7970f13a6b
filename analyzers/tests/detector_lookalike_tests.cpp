// Hand-built segment sequences (no capture): each Nagle look-alike must or
// must not be called a Nagle stall, and the other detectors must say what
// they are. The builder fills seq/ack and the ACK timing the way the
// pipeline does: a data segment is acked by the first later peer segment
// whose ack covers its last byte.
#include "analyzers/detectors/detector.h"
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "capture/packet_decoder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace stallscope;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr uint16_t RqH = carries::kRequestHeaders, RqB = carries::kRequestBody, C100 = carries::kContinue,
                   RsH = carries::kResponseHeaders, RsB = carries::kResponseBody;

struct Builder {
    Call call;
    Connection conn;
    PerSide<uint32_t> next_seq = {1, 1};  // next byte each side sends (relative)

    Builder() {
        call.id = 1;
        call.connection_id = 1;
        call.method = "POST";
        call.complete = true;
        conn.id = 1;
        conn.client.addr.family = 4;
        conn.client.addr.bytes[0] = 127;
        conn.server = conn.client;
        conn.client.port = 40000;
        conn.server.port = 80;
    }
    // The handshake, with the RTT split as the capture point sees it.
    Builder& handshake(double syn_to_synack_ms, double synack_to_ack_ms) {
        conn.saw_syn = true;
        conn.syn_ns = 0;
        conn.synack_ns = int64_t(syn_to_synack_ms * kMs);
        conn.ack_ns = conn.synack_ns + int64_t(synack_to_ack_ms * kMs);
        conn.syn_frame = 1; conn.synack_frame = 2; conn.ack_frame = 3;
        conn.handshake_ms = double(conn.ack_ns) / kMs;
        conn.client_mss = conn.server_mss = 65495;
        return *this;
    }
    // A segment at `t_ms`; `ack_upto` < 0 acks everything the peer sent.
    Builder& seg(Side from, double t_ms, uint32_t len, uint16_t bits = 0, int64_t ack_upto = -1, bool retx = false,
                 uint8_t extra_flags = 0) {
        SegmentInfo s;
        s.frame = call.segments.size() + 10;
        s.ts_ns = int64_t(t_ms * kMs);
        s.from = from;
        s.flags = tcpflag::kAck | (len ? tcpflag::kPsh : 0) | extra_flags;
        s.len = len;
        s.carries = bits;
        s.window = 65535;
        s.retransmission = retx;
        if (retx) {
            // Resend the bytes of the last segment this side sent.
            for (auto it = call.segments.rbegin(); it != call.segments.rend(); ++it)
                if (it->from == from && it->len) { s.seq = it->seq; break; }
        } else {
            s.seq = next_seq[from];
            next_seq[from] += len;
        }
        s.ack = ack_upto >= 0 ? uint32_t(ack_upto) : next_seq[other_side(from)];
        // This segment acks the peer's data it covers (first ack wins).
        for (SegmentInfo& o : call.segments) {
            if (o.from == from || o.len == 0 || o.retransmission || o.acked_ns >= 0) continue;
            if (o.seq + o.len <= s.ack) {
                o.acked_ns = s.ts_ns;
                o.acked_frame = s.frame;
                o.acked_by_pure_ack = len == 0 && !(extra_flags & (tcpflag::kFin | tcpflag::kSyn | tcpflag::kRst));
            }
        }
        call.segments.push_back(s);
        record(s);
        return *this;
    }
    // Message bookkeeping the exchange tracker would do.
    void record(const SegmentInfo& s) {
        MessageInfo* m = nullptr;
        bool body = false;
        if (s.carries & (RqH | RqB)) { m = &call.request; body = s.carries & RqB; }
        else if (s.carries & (RsH | RsB)) { m = &call.response; body = s.carries & RsB; }
        else if (s.carries & C100) {
            call.got_continue = true;
            if (!call.continue_frame) { call.continue_frame = s.frame; call.continue_ns = s.ts_ns; }
            return;
        }
        if (!m) return;
        if (!m->first_frame) { m->first_frame = s.frame; m->first_ns = s.ts_ns; }
        if (s.carries & (RqH | RsH)) {
            m->headers_end_frame = s.frame;
            m->headers_end_ns = s.ts_ns;
            m->header_bytes += (s.carries & (RqB | RsB)) ? std::min<uint32_t>(s.len, 150) : s.len;
        }
        if (body && !m->body_first_frame) { m->body_first_frame = s.frame; m->body_first_ns = s.ts_ns; }
        m->write_sizes.push_back(s.len);
        m->frames.push_back(s.frame);
        m->last_frame = s.frame;
        m->last_ns = s.ts_ns;
        m->complete = true;
        if (m == &call.request) { call.start_ns = call.start_ns ? call.start_ns : s.ts_ns; call.request_first_frame = s.frame; }
        else { call.end_ns = s.ts_ns; call.response_last_frame = s.frame; }
        call.latency_ms = double(call.end_ns - call.start_ns) / kMs;
    }
};

std::vector<Finding> run(const Builder& b, bool with_finish = false) {
    std::vector<Finding> out;
    auto detectors = make_detectors();
    const CallScan scan(b.call, b.conn);
    for (auto& d : detectors) d->on_call(b.call, b.conn, scan, out);
    if (with_finish) {
        Connection conn = b.conn;  // over now, having carried this one call
        if (!conn.calls) conn.calls = 1;
        for (auto& d : detectors) d->on_connection_closed(conn, out);
        for (auto& d : detectors) d->finish(out);
        for (Finding& f : out)
            for (auto& d : detectors)
                if (f.kind == d->kind()) d->finalize(f);
    }
    return out;
}

size_t count(const std::vector<Finding>& v, const std::string& kind) {
    return size_t(std::count_if(v.begin(), v.end(), [&](const Finding& f) { return f.kind == kind; }));
}
const Finding* first(const std::vector<Finding>& v, const std::string& kind) {
    for (auto& f : v) if (f.kind == kind) return &f;
    return nullptr;
}

} // namespace

TEST_CASE("lookalike: Fig. 2 request split held by the server's delayed ACK is a Nagle stall", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 191, RqH)             // A: headers
        .seg(Side::Server, 41.6, 0)                // late pure ACK of A
        .seg(Side::Client, 41.62, 494, RqB)        // B: body, right after the ACK
        .seg(Side::Server, 41.9, 827, RsH | RsB)
        .seg(Side::Client, 41.95, 0);
    auto f = run(b);
    REQUIRE(count(f, "nagle_delayed_ack") == 1);
    const Finding* n = first(f, "nagle_delayed_ack");
    CHECK(n->side == Side::Client);
    CHECK(n->frames == std::vector<uint64_t>{10, 11, 12});
    CHECK(n->cost_ms == Approx(40.62 - 0.03).margin(0.01));  // B - A minus the handshake RTT
    CHECK(n->start_ns == 1 * kMs);
    // Its texts (built in one buffer by detect::text): every part in place.
    CHECK(n->cost_method == "B.send - A.send - one RTT (0.030 ms, from the handshake or the quickest ACK): frames 10 -> 12");
    CHECK(n->explanation == "the client's request body (frame 12, 494 B) waited 40.6 ms for the server's delayed ACK (frame 11) "
                            "of its 191-byte request headers (frame 10): Nagle + delayed ACK");
    CHECK(n->fix == "send each message in one write on the client (one buffer, writev/gather write, or TCP_CORK/MSG_MORE "
                    "then flush), or set TCP_NODELAY on the client's socket; TCP_QUICKACK on the server only mitigates");
    // The split that armed it is reported, with no time of its own.
    REQUIRE(count(f, "split_write") == 1);
    CHECK(first(f, "split_write")->cost_ms == 0);
    CHECK(first(f, "split_write")->frames == std::vector<uint64_t>{10, 12});
    CHECK(first(f, "split_write")->explanation == "the client's request of 685 B left in 2 segments (191,494): header block and body in "
                                                        "separate segments (boundary at the end of the headers); it armed a 40.6 ms Nagle stall");
    CHECK(first(f, "split_write")->cost_method == "0 here: it armed a Nagle stall (frame 12, 40.6 ms) counted in the nagle_delayed_ack finding");
    CHECK(count(f, "server_time") == 0);
}

TEST_CASE("lookalike: think time with a quick ACK is not a Nagle stall", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 191, RqH)
        .seg(Side::Server, 1.03, 0)                // quick ACK
        .seg(Side::Client, 51.0, 494, RqB)         // the application wrote the body 50 ms later
        .seg(Side::Server, 51.3, 827, RsH | RsB);
    CHECK(count(run(b), "nagle_delayed_ack") == 0);
}

TEST_CASE("lookalike: think time ending after a delayed ACK (not at it) is not a Nagle stall", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 191, RqH)
        .seg(Side::Server, 41.0, 0)                // delayed ACK
        .seg(Side::Client, 55.0, 494, RqB)         // body 14 ms after it: the application, not Nagle
        .seg(Side::Server, 55.3, 827, RsH | RsB);
    CHECK(count(run(b), "nagle_delayed_ack") == 0);
}

TEST_CASE("lookalike: a slow server is server time, not a Nagle stall", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 685, RqH | RqB)
        .seg(Side::Server, 41.0, 0)                // delayed ACK: the server has nothing to send yet
        .seg(Side::Server, 121.0, 113, RsH)        // 120 ms of processing
        .seg(Side::Client, 161.0, 0)               // client's delayed ACK of the headers
        .seg(Side::Server, 180.0, 714, RsB);       // body 19 ms after that ACK: the server's own pace
    auto f = run(b);
    CHECK(count(f, "nagle_delayed_ack") == 0);
    REQUIRE(count(f, "server_time") == 1);
    CHECK(first(f, "server_time")->cost_ms == Approx(120.0).margin(0.01));
    CHECK(first(f, "server_time")->side == Side::Server);
}

TEST_CASE("lookalike: a lost segment and its retransmission are not a Nagle stall", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 191, RqH)             // lost on the way: the server never acks it
        .seg(Side::Client, 201.0, 191, RqH, -1, true)  // retransmitted after the 200 ms RTO
        .seg(Side::Server, 241.0, 0)               // and then acked late (delayed ACK)
        .seg(Side::Client, 241.02, 494, RqB)       // body right after that ACK
        .seg(Side::Server, 241.3, 827, RsH | RsB);
    auto f = run(b);
    CHECK(count(f, "nagle_delayed_ack") == 0);
    REQUIRE(count(f, "retransmission") == 1);
    const Finding* r = first(f, "retransmission");
    CHECK(r->side == Side::Client);
    CHECK(r->cost_ms == Approx(200.0).margin(0.01));
}

TEST_CASE("lookalike: Fig. 3 response held after an unasked 100 Continue", "[detectors][lookalike]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 650, RqH | RqB)       // whole request in one segment
        .seg(Side::Server, 1.01, 0)
        .seg(Side::Server, 1.05, 25, C100)         // A: 100 Continue after the body is there
        .seg(Side::Client, 42.2, 0)                // client's delayed ACK of the 100
        .seg(Side::Server, 42.22, 588, RsH | RsB)  // B: the final response, released by it
        .seg(Side::Client, 42.25, 0);
    auto f = run(b);
    REQUIRE(count(f, "nagle_delayed_ack") == 1);
    CHECK(first(f, "nagle_delayed_ack")->side == Side::Server);
    CHECK(first(f, "nagle_delayed_ack")->cost_ms == Approx(41.17 - 0.03).margin(0.01));
    REQUIRE(count(f, "expect_100_wait") == 1);
    const Finding* e = first(f, "expect_100_wait");
    CHECK(e->side == Side::Server);
    // The same hold: the 100 started it, so this finding carries the hold's
    // interval too (the ledger counts it once, here; see call_ledger_tests).
    CHECK(e->cost_ms == Approx(first(f, "nagle_delayed_ack")->cost_ms));
    REQUIRE(e->intervals.size() == 1);
    CHECK(e->intervals[0].start_ns == first(f, "nagle_delayed_ack")->intervals.at(0).start_ns);
    CHECK(e->intervals[0].end_ns == first(f, "nagle_delayed_ack")->intervals.at(0).end_ns);
    // Not blamed on the server's processing either.
    CHECK(count(f, "server_time") == 0);
}

TEST_CASE("lookalike: curl's 1 s Expect wait is an expect wait, not a Nagle stall", "[detectors][lookalike]") {
    for (double ack_at : {1.04, 41.0}) {  // quick or delayed ACK of the headers
        CAPTURE(ack_at);
        Builder b;
        b.call.expect_continue = true;
        b.handshake(0.02, 0.01);
        b.seg(Side::Client, 1.0, 189, RqH)
            .seg(Side::Server, ack_at, 0)
            .seg(Side::Client, 1001.5, 1433, RqB)  // curl's timer ran out
            .seg(Side::Server, 1003.0, 1655, RsH | RsB);
        auto f = run(b);
        CHECK(count(f, "nagle_delayed_ack") == 0);
        REQUIRE(count(f, "expect_100_wait") == 1);
        const Finding* e = first(f, "expect_100_wait");
        CHECK(e->side == Side::Client);
        CHECK(e->cost_ms == Approx(1000.5).margin(0.01));
        CHECK(e->explanation.find("curl") != std::string::npos);
        CHECK(count(f, "split_write") == 0);  // split because of Expect: that is the Expect finding
    }
}

TEST_CASE("lookalike: Expect answered by 100 Continue costs the round trip", "[detectors][lookalike]") {
    Builder b;
    b.call.expect_continue = true;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 213, RqH)
        .seg(Side::Server, 1.02, 25, C100)
        .seg(Side::Client, 1.05, 2116, RqB)
        .seg(Side::Server, 1.2, 2248, RsH | RsB);
    auto f = run(b);
    CHECK(count(f, "nagle_delayed_ack") == 0);
    REQUIRE(count(f, "expect_100_wait") == 1);
    CHECK(first(f, "expect_100_wait")->cost_ms == Approx(0.05).margin(0.001));
}

TEST_CASE("lookalike: a capture at the receiver over a 30 ms path still finds the stall", "[detectors][lookalike]") {
    // Seen at the server: SYN-ACK leaves at once, the client's ACK comes one RTT later.
    Builder b;
    b.conn.client.addr.bytes[0] = 10;
    b.conn.server.addr.bytes[0] = 10;
    b.handshake(0.01, 30.0);
    b.seg(Side::Client, 31.0, 191, RqH)
        .seg(Side::Server, 71.0, 0)                // 40 ms delayed ACK leaves the server
        .seg(Side::Client, 101.0, 494, RqB)        // the body arrives one RTT after it
        .seg(Side::Server, 101.3, 827, RsH | RsB);
    auto f = run(b);
    REQUIRE(count(f, "nagle_delayed_ack") == 1);
    CHECK(first(f, "nagle_delayed_ack")->cost_ms == Approx(40.0).margin(0.05));
}

TEST_CASE("lookalike: at the sender over a 30 ms path, a plain one-RTT ACK is not a delayed-ACK stall", "[detectors][lookalike]") {
    Builder b;
    b.conn.client.addr.bytes[0] = 10;
    b.conn.server.addr.bytes[0] = 10;
    b.handshake(30.0, 0.01);
    b.seg(Side::Client, 31.0, 191, RqH)
        .seg(Side::Server, 61.0, 0)                // quick ACK, one RTT away
        .seg(Side::Client, 61.02, 494, RqB)
        .seg(Side::Server, 91.3, 827, RsH | RsB);
    CHECK(count(run(b), "nagle_delayed_ack") == 0);
    // ...but with a 40 ms delayed ACK on top of the RTT it is one.
    Builder c;
    c.conn.client.addr.bytes[0] = 10;
    c.conn.server.addr.bytes[0] = 10;
    c.handshake(30.0, 0.01);
    c.seg(Side::Client, 31.0, 191, RqH)
        .seg(Side::Server, 101.0, 0)
        .seg(Side::Client, 101.02, 494, RqB)
        .seg(Side::Server, 131.3, 827, RsH | RsB);
    auto f = run(c);
    REQUIRE(count(f, "nagle_delayed_ack") == 1);
    CHECK(first(f, "nagle_delayed_ack")->cost_ms == Approx(40.02).margin(0.05));
}

TEST_CASE("split_write: many small writes are a split, full segments of a big message are not", "[detectors][split]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 300, RqH | RqB);
    for (int i = 0; i < 5; ++i) b.seg(Side::Server, 1.1 + i * 0.01, 64, i == 0 ? RsH : RsB);
    auto f = run(b);
    REQUIRE(count(f, "split_write") == 1);
    CHECK(first(f, "split_write")->side == Side::Server);
    bool sizes = false;
    for (auto& [k, v] : first(f, "split_write")->details) if (k == "write_sizes") sizes = v == "64,64,64,64,64";
    CHECK(sizes);

    Builder big;
    big.conn.client.addr.bytes[0] = 10;
    big.conn.server.addr.bytes[0] = 10;
    big.handshake(0.02, 0.01);
    big.conn.client_mss = big.conn.server_mss = 1460;
    big.seg(Side::Client, 1.0, 300, RqH | RqB);
    big.seg(Side::Server, 1.1, 1448, RsH | RsB);
    for (int i = 0; i < 9; ++i) big.seg(Side::Server, 1.2 + i * 0.01, 1448, RsB);
    CHECK(count(run(big), "split_write") == 0);
}

TEST_CASE("connection_setup: a call alone on its connection costs the handshake", "[detectors][connection]") {
    Builder b;
    b.handshake(0.5, 0.25);
    b.call.opened_connection = true;
    b.call.request_close = b.call.connection_close = true;
    b.call.http_version = "HTTP/1.0";
    b.conn.fin_client = b.conn.fin_server = true;
    b.conn.syn_retransmissions = 1;
    b.seg(Side::Client, 1.0, 685, RqH | RqB).seg(Side::Server, 2.0, 827, RsH | RsB);
    auto f = run(b, true);
    REQUIRE(count(f, "connection_setup") == 1);
    const Finding* c = first(f, "connection_setup");
    CHECK(c->side == Side::Client);
    CHECK(c->cost_ms == Approx(0.75));
    CHECK(c->explanation.find("retransmitted") != std::string::npos);

    // A kept-alive connection still open at the end: not a connection per call.
    Builder k;
    k.handshake(0.5, 0.25);
    k.call.opened_connection = true;
    k.seg(Side::Client, 1.0, 685, RqH | RqB).seg(Side::Server, 2.0, 827, RsH | RsB);
    CHECK(count(run(k, true), "connection_setup") == 0);
}

// Both keep what they need of a connection's first call until its linger
// ends, with the call itself gone by then: the finding must still name it
// and carry what was read from it (ids, version, headers, latency).
TEST_CASE("connection_setup and tls_resumption_missing: decided from what they kept of the call", "[detectors][connection]") {
    auto detectors = make_detectors();
    std::vector<Finding> out;
    auto call_on = [&](uint64_t call_id, const Builder& b) {
        Call c = b.call;  // gone before the connection closes
        c.id = call_id;
        c.connection_id = b.conn.id;
        const CallScan scan(c, b.conn);
        for (auto& d : detectors) d->on_call(c, b.conn, scan, out);
    };
    auto closed = [&](Connection conn) {
        conn.calls = 1;
        for (auto& d : detectors) d->on_connection_closed(conn, out);
    };
    // Plain HTTP/1.0 from a gSOAP client: the client asked to close.
    Builder a;
    a.handshake(0.5, 0.25);
    a.conn.id = 5;
    a.call.opened_connection = true;
    a.call.request_close = a.call.connection_close = true;
    a.call.http_version = "HTTP/1.0";
    a.call.user_agent = "gSOAP/2.8";
    a.conn.fin_client = a.conn.fin_server = true;
    a.seg(Side::Client, 1.0, 685, RqH | RqB).seg(Side::Server, 3.0, 827, RsH | RsB);
    call_on(7, a);
    // TLS: two connections of one client to one server, the second with a
    // full handshake again; it closed first from the server side.
    auto tls_conn = [](uint64_t id, uint64_t first_frame) {
        Builder t;
        t.handshake(0.5, 0.25);
        t.conn.id = id;
        t.call.opened_connection = true;
        t.call.encrypted = true;
        t.call.server = "gSOAP/2.8";
        t.conn.fin_client = t.conn.fin_server = true;
        ConnectionTls& tls = t.conn.tls.emplace();
        tls.version = "TLS 1.2";
        tls.sni = "svc.example";
        tls.handshake_first_frame = first_frame;
        tls.handshake_last_frame = first_frame + 3;
        tls.handshake_start_ns = 1 * kMs;
        tls.handshake_end_ns = 4 * kMs;
        t.seg(Side::Client, 5.0, 300, RqH | RqB).seg(Side::Server, 6.0, 400, RsH | RsB);
        t.seg(Side::Server, 6.5, 0, 0, -1, false, tcpflag::kFin);
        return t;
    };
    const Builder t1 = tls_conn(8, 20), t2 = tls_conn(9, 40);
    call_on(11, t1);
    call_on(12, t2);
    closed(a.conn);
    closed(t1.conn);
    closed(t2.conn);

    std::vector<const Finding*> setup, resumption;
    for (const Finding& f : out) {
        if (f.kind == "connection_setup") setup.push_back(&f);
        if (f.kind == "tls_resumption_missing") resumption.push_back(&f);
    }
    REQUIRE(setup.size() == 3);
    const Finding& plain = *setup[0];
    CHECK(plain.connection_id == 5);
    CHECK(plain.calls == std::vector<uint64_t>{7});
    CHECK(plain.side == Side::Client);
    CHECK(plain.toolkit == "gSOAP");
    CHECK(plain.explanation.find("call 7 opened its own TCP connection (the client spoke HTTP/1.0)") == 0);
    INFO(plain.explanation);
    CHECK(plain.explanation.find("(27.3% of the call with its handshake)") != std::string::npos);  // 0.75 / (0.75 + 2)
    const Finding& enc = *setup[2];
    CHECK(enc.connection_id == 9);
    CHECK(enc.calls == std::vector<uint64_t>{12});
    CHECK(enc.side == Side::Server);  // the server's FIN came first
    CHECK(enc.toolkit == "gSOAP");     // from the Server header, the server's side
    CHECK(enc.explanation.find("the server closed it after one encrypted call") != std::string::npos);

    REQUIRE(resumption.size() == 1);
    CHECK(resumption[0]->connection_id == 9);
    CHECK(resumption[0]->calls == std::vector<uint64_t>{12});
    CHECK(resumption[0]->explanation.find("although connection 8 from the same client") != std::string::npos);
}

TEST_CASE("retransmission: a zero window counts until the window reopens", "[detectors][retransmission]") {
    Builder b;
    b.handshake(0.02, 0.01);
    b.seg(Side::Client, 1.0, 685, RqH | RqB).seg(Side::Server, 1.5, 1448, RsH | RsB);
    b.seg(Side::Client, 1.6, 0);
    b.call.segments.back().window = 0;               // the client's buffer is full
    b.seg(Side::Client, 31.6, 0);                    // window update 30 ms later
    b.seg(Side::Server, 31.7, 500, RsB);
    auto f = run(b);
    REQUIRE(count(f, "retransmission") == 1);
    const Finding* r = first(f, "retransmission");
    CHECK(r->side == Side::Client);
    CHECK(r->cost_ms == Approx(30.0).margin(0.01));
    CHECK(count(f, "nagle_delayed_ack") == 0);
}

TEST_CASE("detector text: parts appended in order, integers as std::to_string writes them", "[detectors]") {
    using detect::text;
    CHECK(text("a", std::string("b"), std::string_view("c")) == "abc");
    CHECK(text() == "");
    CHECK(text(uint64_t(18446744073709551615ull), " ", int64_t(-9223372036854775807ll - 1), " ", uint32_t(0), " ",
               uint16_t(65535), " ", -1) == "18446744073709551615 -9223372036854775808 0 65535 -1");
    for (uint64_t v : {uint64_t(0), uint64_t(7), uint64_t(10), uint64_t(191), uint64_t(4294967296ull)})
        CHECK(text("frame ", v, ")") == "frame " + std::to_string(v) + ")");
}
