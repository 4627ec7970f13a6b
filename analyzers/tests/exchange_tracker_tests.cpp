// ExchangeTracker on its own: bytes and segment records fed straight in
// (no capture), each segment with the ACK it carried, as ConnectionAnalyzer
// would give them. Covers pairing (pipelining, lost responses, a response
// before its request), interim 100, HEAD, 101/CONNECT tunnels, missing bytes
// and the pending-request cap.
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/calls/response_pairing.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

using namespace stallscope;

namespace {
struct Host : ExchangeHost {
    uint64_t next = 0;
    std::vector<std::string> warnings;
    uint64_t new_call_id() override { return ++next; }
    std::vector<WarningCode> codes;
    void warn(WarningCode code, const std::string& m, uint64_t frame, uint64_t call_id) override {
        std::string text = m;  // the call's number as the back stage fills it in
        if (size_t at = text.find("{call}"); at != std::string::npos) text.replace(at, 6, std::to_string(call_id));
        codes.push_back(code);
        warnings.push_back(text + " [frame " + std::to_string(frame) + "]");
    }
    bool warned(const std::string& part) const {
        for (auto& w : warnings)
            if (w.find(part) != std::string::npos) return true;
        return false;
    }
};

struct Conn {
    SegmentStore segs{100000};
    Host host;
    AnalysisOptions opt;
    ExchangeTracker t{1, segs, host, opt};
    PerSide<uint64_t> off = {0, 0};
    uint64_t frame = 0;
    // One segment of `dir` carrying `s`, acknowledging everything the peer
    // sent so far (ack = peer offset + 1, as SegmentInfo::ack counts).
    uint64_t send(Side dir, const std::string& s) { return send_ack(dir, s, uint32_t(off[other_side(dir)] + 1)); }
    uint64_t send_ack(Side dir, const std::string& s, uint32_t ack) {
        SegmentInfo si;
        si.frame = ++frame;
        si.ts_ns = int64_t(frame) * 1000000;
        si.from = dir;
        si.len = uint32_t(s.size());
        si.ack = ack;
        const uint64_t idx = segs.push(si);
        t.on_data(dir, off[dir], {reinterpret_cast<const uint8_t*>(s.data()), s.size()}, idx);
        off[dir] += s.size();
        return si.frame;
    }
    // `n` bytes of `dir` never captured.
    void lose(Side dir, uint64_t n) {
        t.on_gap(dir, off[dir], n);
        off[dir] += n;
    }
    std::vector<Call> calls() {
        std::vector<Call> out;
        std::vector<ExchangeTracker::Ready> ready;
        t.take_ready(true, ready);
        for (auto& r : ready) out.push_back(std::move(r.call()));
        return out;
    }
};

std::string req(int i, const std::string& method = "GET") {
    return method + " /q" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
}
// The status says which request it answers: 200 + i.
std::string resp(int i, const std::string& body = "ok") {
    return "HTTP/1.1 " + std::to_string(200 + i) + " OK\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}
} // namespace

TEST_CASE("sequential calls pair in order") {
    Conn c;
    for (int i = 1; i <= 3; ++i) { c.send(Side::Client, req(i)); c.send(Side::Server, resp(i)); }
    auto calls = c.calls();
    REQUIRE(calls.size() == 3);
    for (int i = 0; i < 3; ++i) {
        CHECK(calls[size_t(i)].status == 201 + i);
        CHECK(calls[size_t(i)].complete);
    }
    CHECK(c.host.warnings.empty());
}

TEST_CASE("pipelined requests: responses pair in order") {
    Conn c;
    c.send(Side::Client, req(1) + req(2) + req(3));
    c.send(Side::Server, resp(1) + resp(2));
    c.send(Side::Server, resp(3));
    auto calls = c.calls();
    REQUIRE(calls.size() == 3);
    CHECK(calls[0].status == 201);
    CHECK(calls[1].status == 202);
    CHECK(calls[2].status == 203);
    CHECK(calls[2].complete);
}

TEST_CASE("a lost response header: that request is unanswered, later pairs stay right") {
    Conn c;
    c.send(Side::Client, req(1));
    c.send(Side::Server, resp(1));
    const uint64_t lost_req = c.send(Side::Client, req(2));
    std::string r2 = resp(2);
    const size_t head = r2.find("\r\n\r\n") + 4;
    c.lose(Side::Server, head);                    // the header segment was not captured
    c.send(Side::Server, r2.substr(head));         // its body was
    c.send(Side::Client, req(3));                  // sent after the client got response 2 (its ACK says so)
    c.send(Side::Server, resp(3));
    c.send(Side::Client, req(4));
    c.send(Side::Server, resp(4));
    auto calls = c.calls();
    REQUIRE(calls.size() == 4);
    CHECK(calls[0].status == 201);
    CHECK(calls[1].status == 0);
    CHECK_FALSE(calls[1].complete);
    CHECK(calls[2].status == 203);
    CHECK(calls[3].status == 204);
    CHECK(calls[3].complete);
    CHECK(c.host.warned("no response captured for the request at frame " + std::to_string(lost_req)));
}

TEST_CASE("pipelining with a lost response: the fewest missing responses that fit") {
    Conn c;
    c.send(Side::Client, req(1) + req(2) + req(3) + req(4));
    c.send(Side::Server, resp(1));
    c.lose(Side::Server, resp(2).size());
    c.send(Side::Server, resp(3) + resp(4));
    auto calls = c.calls();
    REQUIRE(calls.size() == 4);
    CHECK(calls[0].status == 201);
    CHECK(calls[1].status == 0);
    CHECK(calls[2].status == 203);
    CHECK(calls[3].status == 204);
}

TEST_CASE("a response never answers a request the server had not received (ACK)") {
    Conn c;
    c.send(Side::Client, req(1));
    c.send(Side::Server, resp(1));
    c.send(Side::Client, req(2));
    // A response whose ACK does not cover request 2: it answers something
    // not in the capture, and request 2 keeps waiting for its own.
    c.send_ack(Side::Server, resp(9), uint32_t(req(1).size() + 1));
    c.send(Side::Server, resp(2));
    auto calls = c.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[1].status == 202);
    CHECK(c.host.warned("response without a request"));
}

TEST_CASE("a response captured before its request is never paired with it, nor shifts the next") {
    Conn c;
    // The response acknowledges request bytes the tracker has not seen yet.
    c.send_ack(Side::Server, resp(1), uint32_t(req(1).size() + 1));
    c.send(Side::Client, req(1));
    c.send(Side::Client, req(2));
    c.send(Side::Server, resp(2));
    auto calls = c.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].status == 0);
    CHECK_FALSE(calls[0].complete);
    CHECK(calls[1].status == 202);
    CHECK(c.host.warned("captured before its request"));
}

TEST_CASE("interim 100 Continue does not end the call") {
    Conn c;
    c.send(Side::Client, "POST /s HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    const uint64_t cont = c.send(Side::Server, "HTTP/1.1 100 Continue\r\n\r\n");
    c.send(Side::Client, "abcd");
    c.send(Side::Server, resp(0));
    c.send(Side::Client, req(2));
    c.send(Side::Server, resp(2));
    auto calls = c.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].got_continue);
    CHECK(calls[0].continue_frame == cont);
    CHECK(calls[0].status == 200);
    CHECK(calls[0].complete);
    CHECK(calls[1].status == 202);
}

TEST_CASE("a HEAD response has no body even with Content-Length") {
    Conn c;
    c.send(Side::Client, req(1, "HEAD") + req(2));
    c.send(Side::Server, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + resp(2));
    auto calls = c.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].status == 200);
    CHECK(calls[0].complete);
    CHECK(calls[0].response.body_bytes == 0);
    CHECK(calls[1].status == 202);
}

TEST_CASE("HEAD stays aligned after a lost response") {
    Conn c;
    c.send(Side::Client, req(1) + req(2, "HEAD") + req(3));
    c.lose(Side::Server, resp(1).size());
    c.send(Side::Server, "HTTP/1.1 202 OK\r\nContent-Length: 1000\r\n\r\n" + resp(3));
    auto calls = c.calls();
    REQUIRE(calls.size() == 3);
    CHECK(calls[0].status == 0);
    CHECK(calls[1].status == 202);
    CHECK(calls[1].response.body_bytes == 0);
    CHECK(calls[2].status == 203);
}

TEST_CASE("101 Switching Protocols ends the call, what follows is opaque both ways") {
    Conn c;
    c.send(Side::Client, "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    c.send(Side::Server, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x02hi");
    c.send(Side::Client, "GET / HTTP/1.1\r\n\r\n");  // text inside the tunnel, not a request
    c.send(Side::Server, "HTTP/1.1 200 OK\r\n\r\n");
    auto calls = c.calls();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].status == 101);
    CHECK(calls[0].complete);
    CHECK(c.host.warnings.empty());
}

TEST_CASE("client bytes of the new protocol before the 101: no warning, no call") {
    Conn c;
    c.send(Side::Client, "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n");
    c.send(Side::Client, std::string("\x81\x85\x01\x02\x03\x04zzzzz", 11));
    c.send(Side::Server, "HTTP/1.1 101 Switching Protocols\r\n\r\n");
    auto calls = c.calls();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].status == 101);
    CHECK(calls[0].complete);
    CHECK(c.host.warnings.empty());
}

TEST_CASE("CONNECT 2xx tunnels both directions") {
    Conn c;
    c.send(Side::Client, "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n" + std::string("\x16\x03\x01\x00\x05hello", 10));
    c.send(Side::Server, "HTTP/1.1 200 Connection established\r\n\r\n");
    c.send(Side::Server, std::string("\x16\x03\x03\x00\x02hi", 7));
    c.send(Side::Client, "GET / HTTP/1.1\r\n\r\n");
    auto calls = c.calls();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].method == "CONNECT");
    CHECK(calls[0].status == 200);
    CHECK(calls[0].complete);
    CHECK(c.host.warnings.empty());
}

TEST_CASE("missing body bytes: not complete, counted, warned") {
    Conn c;
    c.send(Side::Client, req(1));
    std::string r = resp(1, std::string(3000, 'x'));
    c.send(Side::Server, r.substr(0, 1000));
    c.lose(Side::Server, 1000);
    c.send(Side::Server, r.substr(2000));
    c.send(Side::Client, req(2));
    c.send(Side::Server, resp(2));
    auto calls = c.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].status == 201);
    CHECK_FALSE(calls[0].complete);
    CHECK_FALSE(calls[0].response.complete);
    CHECK(calls[0].response.missing_bytes == 1000);
    CHECK(calls[0].response_last_frame == 0);
    CHECK(calls[1].complete);
    CHECK(calls[1].response.missing_bytes == 0);
    CHECK(c.host.warned("1000 bytes never captured"));
}

TEST_CASE("pending-request cap: the oldest waiting requests are given up, later pairs stay right") {
    Conn c;
    c.opt.max_pending_requests = 4;
    std::string all;
    for (int i = 1; i <= 6; ++i) all += req(i);
    c.send(Side::Client, all);
    for (int i = 1; i <= 6; ++i) c.send(Side::Server, resp(i));
    auto calls = c.calls();
    REQUIRE(calls.size() == 6);
    CHECK(calls[0].status == 0);  // given up at the cap; its response is not timed
    CHECK(calls[1].status == 0);
    CHECK(calls[2].status == 203);
    CHECK(calls[5].status == 206);
    CHECK(c.host.warned("pending-request cap (4) hit"));
}

TEST_CASE("choose_request: ACKs narrow the choice, a hole says a response may be missing") {
    // Three waiting requests, heads ending at 100, 200, 300 of the client stream.
    std::vector<WaitingRequest> w = {{100, 1}, {200, 1}, {300, 1}};
    ResponseStart r;
    r.offset = 500;
    r.ack = 301;
    CHECK(choose_request(w, r).index == 0);            // no hole: the oldest
    r.ack = 101;
    CHECK(choose_request(w, r).may_answer == 1);       // the server had only request 1
    r.ack = 50;
    CHECK_FALSE(choose_request(w, r).answers_one);     // not even request 1
    r.ack = 301;
    r.hole = true;
    r.hole_from = 0;
    CHECK(choose_request(w, r).index == 1);            // pipelined: one missing
    r.hole_explained = true;
    CHECK(choose_request(w, r).index == 0);            // a dropped response already accounts for it
    // A sequential client: request 3 was sent after it received hole bytes
    // (its ACK moved into the hole), so responses 1 and 2 are in the hole.
    std::vector<WaitingRequest> seq = {{100, 1}, {200, 1}, {300, 401}};
    r.hole_explained = false;
    CHECK(choose_request(seq, r).index == 2);
    // ... but never a request sent after the response arrived.
    std::vector<WaitingRequest> late = {{100, 1}, {200, 601}};
    CHECK(choose_request(late, r).may_answer == 1);
}

// Bodies reference the bytes they are fed where they lie (issue 26) and must
// copy them before on_data returns: here each segment's buffer is
// overwritten as soon as it was given, and the envelope still decodes.
TEST_CASE("a body fed in segments whose buffers are overwritten after each on_data decodes whole") {
    std::string items;
    for (int i = 0; i < 200; ++i) items += "<item>" + std::to_string(i) + "</item>";
    const std::string xml = "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                            "<soap:Body><m:echo xmlns:m=\"urn:t\">" + items + "</m:echo></soap:Body></soap:Envelope>";
    const std::string request = "POST /svc HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"echo\"\r\n"
                                "Content-Length: " + std::to_string(xml.size()) + "\r\n\r\n" + xml;
    for (size_t piece : {size_t(7), size_t(500), size_t(1400), request.size()}) {
        INFO("segments of " << piece << " bytes");
        Conn c;
        std::string buf;
        for (size_t at = 0; at < request.size(); at += piece) {
            buf = request.substr(at, piece);
            c.send(Side::Client, buf);
            std::fill(buf.begin(), buf.end(), 'z');
        }
        buf = resp(0, "done");
        c.send(Side::Server, buf);
        std::fill(buf.begin(), buf.end(), 'z');
        auto calls = c.calls();
        REQUIRE(calls.size() == 1);
        CHECK(calls[0].soap.error.empty());
        CHECK(calls[0].soap.operation == "echo");
        CHECK(calls[0].soap.element_count == 203);  // Envelope, Body, echo, 200 items
        CHECK(calls[0].request.content_bytes == xml.size());
    }
}
