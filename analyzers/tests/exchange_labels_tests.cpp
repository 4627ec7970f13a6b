// What each segment is labelled as carrying, driven straight through the
// ExchangeTracker (no capture needed).
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/tests/counting_host.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stallscope;

namespace {
using Host = testing::CountingHost;

struct Conn {
    SegmentStore segs{1000};
    Host host;
    AnalysisOptions opt;
    ExchangeTracker t{1, segs, host, opt};
    PerSide<uint64_t> off = {0, 0};
    uint64_t frame = 0;
    // One segment of `dir` carrying `s`; returns its store index.
    uint64_t send(Side dir, const std::string& s) {
        SegmentInfo si;
        si.frame = ++frame;
        si.from = dir;
        si.len = uint32_t(s.size());
        const uint64_t idx = segs.push(si);
        t.on_data(dir, off[dir], {reinterpret_cast<const uint8_t*>(s.data()), s.size()}, idx);
        off[dir] += s.size();
        return idx;
    }
    std::string label(uint64_t idx) { return carries_label(segs.at(idx)->carries); }
};
} // namespace

TEST_CASE("a 100 Continue whose status line and CRLF are written apart is labelled 100 Continue") {
    Conn c;
    c.send(Side::Client, "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    const uint64_t status = c.send(Side::Server, "HTTP/1.1 100 Continue\r\n");   // 23 bytes
    const uint64_t crlf = c.send(Side::Server, "\r\n");
    c.send(Side::Client, "abcd");
    const uint64_t final_head = c.send(Side::Server, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    CHECK(c.label(status) == "100 Continue");
    CHECK(c.label(crlf) == "100 Continue");
    CHECK(c.label(final_head) == "response headers+body");
}

TEST_CASE("a final response written in pieces stays response headers") {
    Conn c;
    c.send(Side::Client, "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    const uint64_t a = c.send(Side::Server, "HTTP/1.1 200 OK\r\n");
    const uint64_t b = c.send(Side::Server, "Content-Length: 0\r\n\r\n");
    CHECK(c.label(a) == "response headers");
    CHECK(c.label(b) == "response headers");
}
