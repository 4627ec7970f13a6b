// HTTP/1.x stream parser: framing, splitting, gaps, limits.
#include "dissectors/http/ascii_case.h"
#include "dissectors/http/http_sniffer.h"
#include "dissectors/http/http_stream_parser.h"
#include "dissectors/http/start_line.h"

#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace stallscope;
using Role = HttpStreamParser::Role;

namespace {

std::span<const uint8_t> bytes(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Records events as comparable strings; adjacent contiguous body pieces are
// merged so that the same body split differently records the same events.
struct Recorder : HttpStreamListener {
    std::vector<std::string> events;
    std::vector<HttpMessageHead> heads;
    std::vector<std::string> bodies;  // one per message that had headers_complete
    uint64_t next_body_pos = UINT64_MAX;
    int fatal_errors = 0;
    int warnings = 0;

    // Every begin ends exactly once: complete, or an error that drops or rejects it.
    bool open = false, contract_ok = true;
    void on_message_begin(uint64_t offset) override {
        contract_ok &= !open;
        open = true;
        events.push_back("begin@" + std::to_string(offset));
    }
    void on_headers_complete(const HttpMessageHead& h, uint64_t end) override {
        heads.push_back(h);
        bodies.emplace_back();
        std::string s = "head@" + std::to_string(end) + " ";
        s += h.is_request ? h.method + " " + h.uri : std::to_string(h.status) + " " + h.reason;
        s += " " + h.version + " hb=" + std::to_string(h.header_bytes);
        if (h.content_length) s += " cl=" + std::to_string(*h.content_length);
        if (h.chunked) s += " chunked";
        if (h.connection_close) s += " close";
        if (h.expect_continue) s += " expect";
        s += " n=" + std::to_string(h.headers.size());
        events.push_back(s);
        next_body_pos = UINT64_MAX;
    }
    void on_body(std::span<const uint8_t> d, uint64_t pos) override {
        std::string piece(reinterpret_cast<const char*>(d.data()), d.size());
        if (!bodies.empty()) bodies.back() += piece;
        if (pos == next_body_pos && !events.empty() && events.back().rfind("body@", 0) == 0) {
            events.back() += piece;
        } else {
            events.push_back("body@" + std::to_string(pos) + ":" + piece);
        }
        next_body_pos = pos + d.size();
    }
    void on_message_complete(uint64_t end) override {
        contract_ok &= open;
        open = false;
        events.push_back("complete@" + std::to_string(end));
        next_body_pos = UINT64_MAX;
    }
    std::vector<HttpError> codes;
    void on_error(const HttpParseError& e) override {
        static constexpr const char* kTag[] = {"warn@", "drop@", "reject@", "skip@"};
        (e.effect == HttpErrorEffect::Warning ? warnings : fatal_errors)++;
        bool ends = e.effect == HttpErrorEffect::Dropped || e.effect == HttpErrorEffect::Rejected;
        if (e.effect != HttpErrorEffect::Warning) contract_ok &= ends == open;
        if (ends) open = false;
        codes.push_back(e.code);
        events.push_back(kTag[int(e.effect)] + std::to_string(e.offset) + ":" + e.message);
    }
};

std::vector<std::string> run_whole(Role role, std::string_view s, std::vector<std::string> methods = {},
                                   bool eos = true, HttpParserLimits limits = {}) {
    Recorder r;
    HttpStreamParser p(role, r, limits);
    for (auto& m : methods) p.push_request_method(m);
    p.feed(bytes(s));
    if (eos) p.end_of_stream();
    return r.events;
}

// Feeds `s` cut at the given positions (sorted).
std::vector<std::string> run_cut(Role role, std::string_view s, const std::vector<size_t>& cuts,
                                 std::vector<std::string> methods = {}, bool eos = true, HttpParserLimits limits = {}) {
    Recorder r;
    HttpStreamParser p(role, r, limits);
    for (auto& m : methods) p.push_request_method(m);
    size_t prev = 0;
    for (size_t c : cuts) {
        p.feed(bytes(s.substr(prev, c - prev)));
        prev = c;
    }
    p.feed(bytes(s.substr(prev)));
    if (eos) p.end_of_stream();
    REQUIRE(p.offset() == s.size());
    return r.events;
}

// Events up to the first error that loses framing: after it the parser also
// resynchronises at chunk starts, which depend on the split by design.
std::vector<std::string> framed(std::vector<std::string> ev) {
    for (size_t i = 0; i < ev.size(); ++i)
        for (const char* tag : {"drop@", "reject@", "skip@"})
            if (ev[i].rfind(tag, 0) == 0) {
                ev.resize(i + 1);
                return ev;
            }
    return ev;
}

// Every single cut, every pair of cuts, and byte-at-a-time must match one feed.
void check_split_invariance(Role role, std::string_view s, std::vector<std::string> methods = {},
                            HttpParserLimits limits = {}) {
    const auto whole = framed(run_whole(role, s, methods, true, limits));
    for (size_t i = 0; i <= s.size(); ++i) {
        INFO("cut at " << i);
        REQUIRE(framed(run_cut(role, s, {i}, methods, true, limits)) == whole);
    }
    for (size_t i = 0; i <= s.size(); ++i)
        for (size_t j = i; j <= s.size(); ++j) {
            INFO("cuts at " << i << "," << j);
            REQUIRE(framed(run_cut(role, s, {i, j}, methods, true, limits)) == whole);
        }
    std::vector<size_t> every;
    for (size_t i = 1; i < s.size(); ++i) every.push_back(i);
    REQUIRE(framed(run_cut(role, s, every, methods, true, limits)) == whole);
}

} // namespace

TEST_CASE("request without body and with Content-Length body") {
    std::string s = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                    "POST /svc HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
    auto ev = run_whole(Role::Request, s);
    const std::string get_len = std::to_string(s.find("POST"));
    const std::string post_head_len = std::to_string(s.find("hello") - s.find("POST"));
    std::vector<std::string> want = {
        "begin@0",
        "head@" + get_len + " GET /a HTTP/1.1 hb=" + get_len + " n=1",
        "complete@" + get_len,
        "begin@" + get_len,
        "head@" + std::to_string(s.find("hello")) + " POST /svc HTTP/1.1 hb=" + post_head_len + " cl=5 n=2",
        "body@0:hello",
        "complete@" + std::to_string(s.size()),
    };
    CHECK(ev == want);
}

TEST_CASE("header lookup is case-insensitive and returns the first occurrence") {
    Recorder r;
    HttpStreamParser p(Role::Request, r);
    p.feed(bytes("GET / HTTP/1.1\r\nX-A:  one \r\nx-a: two\r\nSOAPAction: \"urn:op\"\r\n\r\n"));
    REQUIRE(r.heads.size() == 1);
    const auto& h = r.heads[0];
    REQUIRE(h.header("x-A") != nullptr);
    CHECK(*h.header("x-A") == "one");
    CHECK(*h.header("soapaction") == "\"urn:op\"");
    CHECK(h.header("missing") == nullptr);
    CHECK(h.headers[0].name == "X-A");
}

TEST_CASE("chunked response with extensions and trailers, split at every byte boundary") {
    std::string s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5;name=val\r\nhello\r\n"
                    "7\r\n, world\r\n"
                    "0\r\nX-Trailer: t\r\n\r\n"
                    "HTTP/1.1 204 No Content\r\n\r\n";
    auto ev = run_whole(Role::Response, s);
    REQUIRE(ev.size() == 7);
    CHECK(ev[1].find(" chunked") != std::string::npos);
    CHECK(ev[2] == "body@0:hello, world");
    CHECK(ev[3] == "complete@" + std::to_string(s.size() - 27));
    CHECK(ev[6] == "complete@" + std::to_string(s.size()));
    check_split_invariance(Role::Response, s);
}

TEST_CASE("Content-Length request split at every byte boundary") {
    std::string s = "POST /x HTTP/1.1\r\nContent-Length: 4\r\nFolded: a\r\n  b\r\n\r\nabcd"
                    "GET / HTTP/1.0\r\n\r\n";
    auto ev = run_whole(Role::Request, s);
    REQUIRE(ev.size() == 7);
    CHECK(ev[3] == "complete@" + std::to_string(s.size() - 18));
    check_split_invariance(Role::Request, s);
}

TEST_CASE("obs-fold continues the previous header value") {
    Recorder r;
    HttpStreamParser p(Role::Request, r);
    p.feed(bytes("GET / HTTP/1.1\r\nX-Long: part1\r\n\tpart2\r\n   part3\r\n\r\n"));
    REQUIRE(r.heads.size() == 1);
    CHECK(*r.heads[0].header("x-long") == "part1 part2 part3");
    CHECK(r.fatal_errors == 0);
}

TEST_CASE("100 Continue is its own message and does not consume the pushed method") {
    SECTION("request side flags Expect") {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes("POST /s HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok"));
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].expect_continue);
        CHECK(r.bodies[0] == "ok");
    }
    SECTION("response side: 100 then the final response to a HEAD") {
        std::string s = "HTTP/1.1 100 Continue\r\n\r\n"
                        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
        Recorder r;
        HttpStreamParser p(Role::Response, r);
        p.push_request_method("HEAD");
        p.push_request_method("GET");
        p.feed(bytes(s));
        REQUIRE(r.heads.size() == 3);
        CHECK(r.heads[0].status == 100);
        CHECK(r.heads[1].status == 200);
        CHECK(r.bodies[1].empty());  // HEAD: Content-Length is not a body
        CHECK(r.bodies[2] == "abc");
        CHECK(r.events[2] == "complete@25");
        CHECK(r.events.back() == "complete@" + std::to_string(s.size()));
        CHECK(r.fatal_errors == 0);
        check_split_invariance(Role::Response, s, {"HEAD", "GET"});
    }
}

TEST_CASE("pipelined requests and responses in one feed") {
    std::string reqs = "GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz"
                       "HEAD /3 HTTP/1.1\r\n\r\n";
    Recorder rq;
    HttpStreamParser pq(Role::Request, rq);
    pq.feed(bytes(reqs));
    REQUIRE(rq.heads.size() == 3);
    CHECK(rq.heads[1].method == "POST");
    CHECK(rq.bodies[1] == "xyz");
    CHECK(rq.heads[2].method == "HEAD");
    CHECK(rq.events.back() == "complete@" + std::to_string(reqs.size()));

    std::string resps = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nAB"
                        "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nC"
                        "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
                        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nD";
    Recorder rs;
    HttpStreamParser ps(Role::Response, rs);
    for (const char* m : {"GET", "POST", "HEAD", "GET"}) ps.push_request_method(m);
    ps.feed(bytes(resps));
    REQUIRE(rs.heads.size() == 4);
    CHECK(rs.bodies == std::vector<std::string>{"AB", "C", "", "D"});
    CHECK(rs.events.back() == "complete@" + std::to_string(resps.size()));
    CHECK(rs.fatal_errors == 0);
}

TEST_CASE("70,000 pipelined HEADs: every response is bodiless, none of the methods is forgotten") {
    // More waiting methods than the 65,536 the parser used to keep: the
    // oldest HEADs were dropped, their responses' Content-Length read as a
    // body, and every later response misread (issue 22).
    const size_t n = 70000;
    std::string one = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", resps;
    for (size_t i = 0; i < n; ++i) resps += one;
    Recorder rs;
    HttpStreamParser ps(Role::Response, rs);
    for (size_t i = 0; i < n; ++i) ps.push_request_method(i + 1 == n ? "GET" : "HEAD");
    ps.feed(bytes(resps + "X"));  // the last request was a GET: its response has a 1-byte body... of 1234
    REQUIRE(rs.heads.size() == n);
    CHECK(rs.fatal_errors == 0);
    size_t bodiless = 0;
    for (size_t i = 0; i + 1 < n; ++i) bodiless += rs.bodies[i].empty();
    CHECK(bodiless == n - 1);
    CHECK(rs.bodies.back() == "X");  // the GET's body begins: its method was kept in order
}

TEST_CASE("204 and 304 have no body even with Content-Length") {
    std::string s = "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"
                    "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
                    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.feed(bytes(s));
    REQUIRE(r.heads.size() == 3);
    CHECK(r.bodies == std::vector<std::string>{"", "", "ok"});
    CHECK(r.fatal_errors == 0);
}

TEST_CASE("close-delimited response body ends at end_of_stream") {
    std::string s = "HTTP/1.0 200 OK\r\nContent-Type: text/xml\r\n\r\n<a>body";
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.feed(bytes(s));
    p.feed(bytes(" more"));
    REQUIRE(r.heads.size() == 1);
    CHECK(r.heads[0].connection_close);
    CHECK_FALSE(r.heads[0].content_length.has_value());
    CHECK(r.events.back().rfind("body@", 0) == 0);  // not complete yet
    p.end_of_stream();
    CHECK(r.events.back() == "complete@" + std::to_string(s.size() + 5));
    CHECK(r.bodies[0] == "<a>body more");
    check_split_invariance(Role::Response, s);
}

TEST_CASE("connection_close from version and Connection header") {
    auto head_of = [](std::string s) {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes(s));
        REQUIRE(r.heads.size() == 1);
        return r.heads[0];
    };
    CHECK(head_of("GET / HTTP/1.0\r\n\r\n").connection_close);
    CHECK_FALSE(head_of("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").connection_close);
    CHECK_FALSE(head_of("GET / HTTP/1.1\r\n\r\n").connection_close);
    CHECK(head_of("GET / HTTP/1.1\r\nConnection: foo, close\r\n\r\n").connection_close);
    CHECK(head_of("GET / HTTP/1.0\r\n\r\n").version == "HTTP/1.0");
}

TEST_CASE("gap inside a body of known length is skipped") {
    Recorder r;
    HttpStreamParser p(Role::Request, r);
    p.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"));
    p.gap(4);
    p.feed(bytes("hij"));
    p.feed(bytes("GET /next HTTP/1.1\r\n\r\n"));
    CHECK(r.fatal_errors == 0);
    CHECK(r.warnings == 0);
    REQUIRE(r.heads.size() == 2);
    CHECK(r.bodies[0] == "abchij");
    const size_t head_len = std::string_view("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n").size();
    std::vector<std::string> want = {"body@0:abc", "body@7:hij", "complete@" + std::to_string(head_len + 10),
                                     "begin@" + std::to_string(head_len + 10)};
    CHECK(std::vector<std::string>(r.events.begin() + 2, r.events.begin() + 6) == want);
    CHECK(p.offset() == head_len + 10 + 22);
}

TEST_CASE("gap inside a chunk is skipped, gap over the chunk framing resyncs") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.feed(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n01"));
    p.gap(3);
    p.feed(bytes("56789\r\n0\r\n\r\n"));
    REQUIRE(r.events.back().rfind("complete@", 0) == 0);
    CHECK(r.bodies[0] == "0156789");
    CHECK(r.warnings == 0);
}

TEST_CASE("gap in headers reports an error and resyncs at the next message start") {
    Recorder r;
    HttpStreamParser p(Role::Request, r);
    p.feed(bytes("POST /svc HTTP/1.1\r\nHo"));
    p.gap(100);
    p.feed(bytes("st: x\r\nContent-Length: 3\r\n\r\nabc"));  // tail of the lost message: skipped
    uint64_t resync_at = p.offset();
    p.feed(bytes("GET /after HTTP/1.1\r\n\r\n"));
    CHECK(r.fatal_errors == 1);  // the POST is dropped
    CHECK(r.warnings == 0);
    REQUIRE(r.heads.size() == 1);
    CHECK(r.heads[0].method == "GET");
    CHECK(r.heads[0].uri == "/after");
    std::vector<std::string> want = {"begin@0", "drop@22:gap of 100 bytes outside a body of known length; resynchronising",
                                     "begin@" + std::to_string(resync_at)};
    CHECK(std::vector<std::string>(r.events.begin(), r.events.begin() + 3) == want);
    CHECK(r.events.back() == "complete@" + std::to_string(resync_at + 23));
}

TEST_CASE("gap past the end of a known-length body completes it, then resyncs") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.push_request_method("POST");
    p.push_request_method("POST");
    p.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab"));
    p.gap(10);
    CHECK(r.events.back().rfind("skip@", 0) == 0);
    CHECK(r.events[r.events.size() - 2] == "complete@42");
    p.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz"));
    CHECK(r.heads.size() == 2);
    CHECK(r.bodies[1] == "z");
}

TEST_CASE("header bomb: header count and size caps drop the message, with offset, and parsing resumes") {
    SECTION("too many header fields") {
        std::string s = "GET / HTTP/1.1\r\n";
        for (int i = 0; i < 300; ++i) s += "X-" + std::to_string(i) + ": v\r\n";
        s += "\r\n";
        Recorder r;
        HttpStreamParser p(Role::Request, r, HttpParserLimits{64 * 1024, 100});
        p.feed(bytes(s));
        p.feed(bytes("GET /next HTTP/1.1\r\n\r\n"));
        REQUIRE(r.fatal_errors == 1);
        REQUIRE(r.codes.size() == 1);
        CHECK(r.codes[0] == HttpError::TooManyHeaders);
        // Offset is the start of header line 101.
        size_t line101 = s.find("X-100:");
        CHECK(r.events.at(1) == "drop@" + std::to_string(line101) + ":more than 100 header fields");
        // The next request (in its own chunk) is found.
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].uri == "/next");
    }
    SECTION("header section too large, fed in pieces") {
        Recorder r;
        HttpStreamParser p(Role::Request, r, HttpParserLimits{1024, 200});
        p.feed(bytes("GET / HTTP/1.1\r\nX-Big: "));
        std::string filler(100, 'a');
        for (int i = 0; i < 50; ++i) p.feed(bytes(filler));
        CHECK(r.heads.empty());
        REQUIRE(r.fatal_errors == 1);
        CHECK(r.events.back() == "drop@1024:header section exceeds 1024 bytes");
        CHECK(p.offset() == 23 + 5000);
    }
}

TEST_CASE("Content-Length validation") {
    SECTION("conflicting duplicates are fatal") {
        auto ev = run_whole(Role::Request, "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!");
        REQUIRE(ev.size() == 2);
        CHECK(ev[1] == "drop@0:conflicting Content-Length values");
    }
    SECTION("identical duplicates are accepted") {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc"));
        CHECK(r.fatal_errors == 0);
        CHECK(r.bodies.at(0) == "abc");
    }
    SECTION("invalid values are fatal") {
        for (const char* v : {"abc", "-1", "", "1 2", "99999999999999999999999"}) {
            INFO(v);
            auto ev = run_whole(Role::Request, std::string("POST / HTTP/1.1\r\nContent-Length: ") + v + "\r\n\r\n");
            REQUIRE(ev.size() == 2);
            CHECK(ev[1] == "drop@0:invalid Content-Length");
        }
    }
    SECTION("values read at once (1-19 digits) or as a list give the list's reading") {
        // Each value: the length it gives, or none (invalid; "7,8" conflicting).
        const std::pair<std::string, std::optional<uint64_t>> cases[] = {
            {"0", 0}, {"7", 7}, {"007", 7}, {"1234567890123456789", 1234567890123456789ull},
            {"9999999999999999999", 9999999999999999999ull}, {"18446744073709551609", 18446744073709551609ull},
            {"18446744073709551610", std::nullopt}, {"7,7", 7}, {"7 , 7", 7}, {"7,8", std::nullopt},
            {"12a", std::nullopt}, {"a12", std::nullopt}, {"1.5", std::nullopt}, {"+5", std::nullopt},
            {"5,", 5}, {",5", 5}, {",", std::nullopt}};
        for (const auto& [v, len] : cases) {
            INFO(v);
            Recorder r;
            HttpStreamParser p(Role::Response, r);
            p.feed(bytes("HTTP/1.1 304 Not Modified\r\nContent-Length: " + v + "\r\n\r\n"));  // no body follows
            if (len) {
                REQUIRE(r.heads.size() == 1);
                CHECK(r.heads[0].content_length == len);
            } else {
                REQUIRE(r.heads.empty());
                CHECK(r.events.at(1) == (v == "7,8" ? "drop@0:conflicting Content-Length values"
                                                    : "drop@0:invalid Content-Length"));
            }
        }
        // The same value twice over two fields, one read at once, one as a list.
        auto ev = run_whole(Role::Request, "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3, 4\r\n\r\nabcd");
        CHECK(ev.at(1) == "drop@0:conflicting Content-Length values");
    }
    SECTION("with chunked, chunked wins and a warning is reported") {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
        CHECK(r.fatal_errors == 0);
        CHECK(r.warnings == 1);
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].chunked);
        CHECK_FALSE(r.heads[0].content_length.has_value());
        CHECK(r.bodies[0] == "abc");
        CHECK(r.events.back().rfind("complete@", 0) == 0);
    }
}

TEST_CASE("bogus and overflowing chunk sizes drop the message") {
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const char* body : {"zz\r\n", "\r\n", "-1\r\n", "5x\r\n", "10000000000000000\r\n", "3\r\nabcX"}) {
        INFO(body);
        Recorder r;
        HttpStreamParser p(Role::Response, r);
        p.feed(bytes(head + body));
        CHECK(r.fatal_errors == 1);
        CHECK(r.codes.back() == HttpError::BadChunk);
        CHECK(r.events.back().rfind("drop@", 0) == 0);
    }
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.feed(bytes(head + "fffffffffffffffff\r\n"));
    CHECK(r.events.back() == "drop@" + std::to_string(head.size() + 16) + ":chunk size overflows 64 bits");
}

TEST_CASE("non-HTTP bytes fail early, truncated messages fail at end of stream") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.feed(bytes("SSH-2.0-OpenSSH_9.2\r\n"));
    CHECK(r.events == std::vector<std::string>{"begin@0", "reject@0:not an HTTP status line"});
    CHECK(r.codes == std::vector<HttpError>{HttpError::NotHttp});

    Recorder r2;
    HttpStreamParser p2(Role::Request, r2);
    p2.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"));
    p2.end_of_stream();
    CHECK(r2.events.back() == "drop@42:stream ended inside a message");  // 39 head + 3 body

    Recorder r3;
    HttpStreamParser p3(Role::Request, r3);
    p3.feed(bytes("GET / HTTP/2.0\r\n\r\n"));
    CHECK(r3.fatal_errors == 1);
}

TEST_CASE("101 Switching Protocols turns the rest of the stream into a tunnel") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.push_request_method("GET");
    const std::string head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
    p.feed(bytes(head + "\x81\x05hello"));
    CHECK(r.heads.size() == 1);
    CHECK(r.fatal_errors == 0);
    CHECK(r.events.back() == "complete@" + std::to_string(head.size()));
    CHECK(p.offset() == head.size() + 7);
}

TEST_CASE("error events are the same however the stream is split") {
    const HttpParserLimits small{120, 4};
    const std::pair<Role, std::string> cases[] = {
        {Role::Response, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n"},
        {Role::Response, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n"},
        {Role::Request, "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"},
        {Role::Request, "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n"},
        {Role::Request, "GET / HTTP/1.1\r\nX: " + std::string(150, 'x') + "\r\n\r\n"},
        {Role::Request, "GET\r\n\r\n"},
        {Role::Request, "POST / HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"},
    };
    for (const auto& [role, s] : cases) {
        INFO(s);
        auto whole = run_whole(role, s, {}, true, small);
        bool any_error = false;
        for (auto& e : whole)
            for (const char* tag : {"warn@", "drop@", "reject@", "skip@"}) any_error |= e.rfind(tag, 0) == 0;
        CHECK(any_error);
        check_split_invariance(role, s, {}, small);
    }
}

TEST_CASE("looks_like_request and looks_like_response") {
    CHECK(HttpStreamParser::looks_like_request(bytes("POST /x HTTP/1.1")));
    CHECK(HttpStreamParser::looks_like_request(bytes("GET ")));
    CHECK(HttpStreamParser::looks_like_request(bytes("OPTIONS * HTTP/1.1")));
    CHECK(HttpStreamParser::looks_like_request(bytes("PROPFIND / HTTP/1.1")));
    CHECK(HttpStreamParser::looks_like_request(bytes("M-SEARCH * HTTP/1.1")));  // any RFC 9110 token
    CHECK(HttpStreamParser::looks_like_request(bytes("CCM_POST / HTTP/1.1")));
    CHECK(HttpStreamParser::looks_like_request(bytes("get / HTTP/1.1")));
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes(" GET / HTTP/1.1")));
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("<soap:Envelope")));
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes(std::string(33, 'A') + " / HTTP/1.1")));  // 33-byte method
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("220 mail.example.org ESMTP\r\n")));  // SMTP greeting
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("GET /\r\n")));                    // HTTP/0.9
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("EHLO client.example.org\r\n")));
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("GET")));               // no space yet
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("")));
    CHECK_FALSE(HttpStreamParser::looks_like_request(bytes("HTTP/1.1 200 OK")));
    CHECK(HttpStreamParser::looks_like_response(bytes("HTTP/1.1 200 OK")));
    CHECK(HttpStreamParser::looks_like_response(bytes("HTTP/1.0 500")));
    CHECK(HttpStreamParser::looks_like_response(bytes("http/1.1 200 OK")));
    CHECK_FALSE(HttpStreamParser::looks_like_response(bytes("HTTP/2 200")));
    CHECK_FALSE(HttpStreamParser::looks_like_response(bytes("HTTP/1")));
    CHECK_FALSE(HttpStreamParser::looks_like_response(bytes("POST / HTTP/1.1")));
}

TEST_CASE("random garbage and random splits never break offset accounting") {
    std::mt19937 rng(12345);
    const std::string seeds[] = {
        "POST /s HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x\r\nabcd\r\n0\r\nT: 1\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno",
    };
    for (int iter = 0; iter < 3000; ++iter) {
        std::string s = seeds[iter % 3] + seeds[(iter + 1) % 3];
        int mutations = int(rng() % 4);
        for (int m = 0; m < mutations; ++m) s[rng() % s.size()] = char(rng() % 256);
        Recorder r;
        HttpStreamParser p(iter % 2 ? Role::Response : Role::Request, r, HttpParserLimits{256, 8});
        uint64_t total = 0;
        size_t pos = 0;
        while (pos < s.size()) {
            size_t k = std::min<size_t>(s.size() - pos, 1 + rng() % 20);
            if (rng() % 10 == 0) {
                p.gap(k);
            } else {
                p.feed(bytes(std::string_view(s).substr(pos, k)));
            }
            pos += k;
            total += k;
            REQUIRE(p.offset() == total);
        }
        p.end_of_stream();
        REQUIRE(r.contract_ok);
        REQUIRE(!r.open);  // end_of_stream ends every message
    }
}

// ---- Issue 13: sniffing, extension methods, resync, lenient forms, non-HTTP, tunnels.

namespace {
// Feeds `pieces` in order; a piece "#N" is a gap of N bytes instead.
void play(HttpStreamParser& p, std::initializer_list<std::string_view> pieces) {
    for (std::string_view piece : pieces) {
        if (!piece.empty() && piece[0] == '#') p.gap(std::stoull(std::string(piece.substr(1))));
        else p.feed(bytes(piece));
    }
}

// The events of `s` fed in one piece.
Recorder parsed(Role role, std::string_view s) {
    Recorder r;
    HttpStreamParser p(role, r);
    p.feed(bytes(s));
    return r;
}

// Feeds `s` to a sniffer in chunks of `step` bytes (tag = chunk number).
struct SniffRun {
    HttpSniffer::Verdict verdict = HttpSniffer::Verdict::NeedMore;
    uint64_t at_chunk = 0, last_chunk_offset = 0;
    std::string replay;  // held bytes, then the last chunk from the message on
    std::optional<uint64_t> rejected_first_line;
};
SniffRun sniff(bool request, std::string_view s, size_t step, uint64_t budget = HttpSniffer::kDefaultBudget) {
    HttpSniffer sn(request, budget);
    SniffRun r;
    for (size_t pos = 0, chunk = 0; pos < s.size(); pos += step, ++chunk) {
        std::string_view piece = s.substr(pos, step);
        r.verdict = sn.feed(pos, bytes(piece), chunk);
        if (auto t = sn.take_rejected_first_line()) r.rejected_first_line = t;
        if (r.verdict == HttpSniffer::Verdict::NeedMore) continue;
        r.at_chunk = chunk;
        if (r.verdict == HttpSniffer::Verdict::Http) {
            for (const auto& h : sn.held()) r.replay.append(h.bytes.begin(), h.bytes.end());
            size_t skip = sn.message_offset() > pos ? size_t(sn.message_offset() - pos) : 0;
            r.replay += std::string(piece.substr(skip));
            r.last_chunk_offset = sn.message_offset();
        }
        break;
    }
    return r;
}
} // namespace

TEST_CASE("sniffer finds a request however it is split into segments") {
    const std::string req = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
    for (size_t step = 1; step <= req.size(); ++step) {
        INFO("step " << step);
        SniffRun r = sniff(true, req, step);
        REQUIRE(r.verdict == HttpSniffer::Verdict::Http);
        CHECK(r.last_chunk_offset == 0);
        // Held bytes plus the rest of the deciding chunk are the stream from the message on.
        CHECK(req.rfind(r.replay, 0) == 0);
        CHECK(r.replay.size() >= std::string_view("GET /a HTTP/1.1\r\n").size());
        CHECK_FALSE(r.rejected_first_line);
    }
    // A capture that begins mid-body: the request at the next segment start is found.
    const std::string tail = "...</soap:Envelope>";
    HttpSniffer sn(true);
    CHECK(sn.feed(100, bytes(tail), 7) == HttpSniffer::Verdict::NeedMore);
    CHECK(sn.feed(100 + tail.size(), bytes("PO"), 8) == HttpSniffer::Verdict::NeedMore);
    CHECK(sn.feed(100 + tail.size() + 2, bytes("ST /svc HTTP/1.1\r\n"), 9) == HttpSniffer::Verdict::Http);
    CHECK(sn.message_offset() == 100 + tail.size());
    REQUIRE(sn.held().size() == 1);
    CHECK(sn.held()[0].tag == 8);
    // Status lines too, lower-case version included.
    CHECK(sniff(false, "http/1.1 200 OK\r\n\r\n", 1).verdict == HttpSniffer::Verdict::Http);
}

TEST_CASE("sniffer: a stream opening with a whole start line gets the verdict its bytes pushed one by one get") {
    const std::string lines[] = {
        "GET /a HTTP/1.1\r\n", "POST /soap HTTP/1.0\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n",
        "HTTP/1.0 204\r\n", "HTTP/1.1 500  Oops \r\n", "GET  / HTTP/1.1\r\n", "GET / http/1.1\r\n",
        "GET / HTTP/1.1\n", "GET /\r\n", "GET / HTTP/2.0\r\n", "OPTIONS HTTP/1.1\r\n", "EHLO x\r\nGET / HTTP/1.1\r\n",
        "HTTP/1.1 200 OK\rX\n", "HI\n", std::string(40, 'A') + " / HTTP/1.1\r\n", "GET /" + std::string(80, 'a') + " HTTP/1.1\r\n"};
    for (const std::string& line : lines)
        for (bool request : {true, false})
            for (uint64_t budget : {uint64_t(16), uint64_t(64), HttpSniffer::kDefaultBudget})
                for (size_t max_line : {size_t(16), size_t(64 * 1024)}) {
                    INFO(line << " request=" << request << " budget=" << budget << " max_line=" << max_line);
                    // The sniffer's loop over one chunk at offset 0, byte by byte.
                    StartLineScanner sc(request, max_line);
                    sc.restart(true);
                    sc.chunk_start();
                    auto want = HttpSniffer::Verdict::NeedMore;
                    uint64_t want_off = 0;
                    for (size_t i = 0; i < line.size(); ++i) {
                        if (sc.push(uint8_t(line[i]), i)) {
                            want = HttpSniffer::Verdict::Http;
                            want_off = sc.candidate_offset();
                            break;
                        }
                        if (!sc.in_candidate() && i + 1 >= budget) {
                            want = HttpSniffer::Verdict::NotHttp;
                            break;
                        }
                    }
                    HttpSniffer sn(request, budget, max_line);
                    CHECK(sn.feed(0, bytes(line), 0) == want);
                    if (want == HttpSniffer::Verdict::Http) CHECK(sn.message_offset() == want_off);
                }
}

TEST_CASE("sniffer: SMTP, speed tests and HTTP/0.9 are not HTTP") {
    for (const char* s : {"EHLO mail.example.org\r\nMAIL FROM:<a@b>\r\n", "HI\n", "PING 12345\r\n", "GET /\r\n"}) {
        INFO(s);
        SniffRun r = sniff(true, std::string(s) + std::string(40, '\n'), 1, 40);  // past the budget
        CHECK(r.verdict == HttpSniffer::Verdict::NotHttp);
    }
    // Only attempts at HTTP are worth a warning.
    CHECK(sniff(true, "GET /\r\nxxxxxxxxxxxxxxxxxxxx", 3, 16).rejected_first_line.has_value());
    CHECK(sniff(true, "GET /HTTP/1.1\r\nxxxxxxxxxxxxxxxxxxxxx", 3, 16).rejected_first_line.has_value());
    CHECK(sniff(true, "OPTIONS HTTP/1.1\r\nxxxxxxxxxxxxxxxxxxxx", 3, 16).rejected_first_line.has_value());
    CHECK_FALSE(sniff(true, "EHLO mail.example.org\r\nxxxxxxxxxxxxxxx", 3, 16).rejected_first_line.has_value());
    CHECK_FALSE(sniff(true, "HI\nxxxxxxxxxxxxxxxxxxxxxxx", 3, 16).rejected_first_line.has_value());
    // Within the budget a later request line still counts.
    CHECK(sniff(true, "EHLO x\r\nGET / HTTP/1.1\r\n\r\n", 4).verdict == HttpSniffer::Verdict::Http);
}

TEST_CASE("extension methods are any RFC 9110 token") {
    std::string s = "CCM_POST /cgi HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"
                    "M-SEARCH * HTTP/1.1\r\nMAN: \"ssdp:discover\"\r\n\r\n"
                    "get /lower HTTP/1.1\r\n\r\n";
    Recorder r = parsed(Role::Request, s);
    REQUIRE(r.heads.size() == 3);
    CHECK(r.heads[0].method == "CCM_POST");
    CHECK(r.heads[1].method == "M-SEARCH");
    CHECK(r.heads[2].method == "get");
    CHECK(r.fatal_errors == 0);
    check_split_invariance(Role::Request, s);
}

TEST_CASE("a malformed request line is skipped and parsing resumes at the next request line in the same data") {
    std::string s = "GET /HTTP/1.1\r\nHost: x\r\n\r\n"          // no version: not HTTP/1.x
                    "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"
                    "GET /a b HTTP/1.1\r\n\r\n"                 // space in the target
                    "POST /2 HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
    for (size_t step : {s.size(), size_t(1), size_t(5)}) {
        INFO("step " << step);
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        for (size_t pos = 0; pos < s.size(); pos += step) p.feed(bytes(std::string_view(s).substr(pos, step)));
        p.end_of_stream();
        REQUIRE(r.heads.size() == 2);
        CHECK(r.heads[0].uri == "/ok");
        CHECK(r.heads[1].uri == "/2");
        CHECK(r.bodies[1] == "hi");
        CHECK(r.codes == std::vector<HttpError>{HttpError::NotHttp, HttpError::MalformedStartLine});
        CHECK(r.events[1] == "reject@0:request line without an HTTP/1.x version (HTTP/0.9 or not HTTP)");
        CHECK(r.events[2] == "begin@" + std::to_string(s.find("GET /ok")));
        CHECK(r.contract_ok);
    }
}

TEST_CASE("after a gap the parser resynchronises inside a chunk") {
    SECTION("status line after a line end in the middle of a chunk") {
        Recorder r;
        HttpStreamParser p(Role::Response, r);
        p.push_request_method("GET");
        p.push_request_method("GET");
        // 50 bytes lost: the rest of this chunked body and more.
        play(p, {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123", "#50",
                 "tail of something\r\nHTTP/1.1 204 No Content\r\n\r\n"});
        REQUIRE(r.heads.size() == 2);
        CHECK(r.heads[1].status == 204);
        CHECK(r.events.back().rfind("complete@", 0) == 0);
        CHECK(r.codes == std::vector<HttpError>{HttpError::Gap});
    }
    SECTION("a request glued to the end of a body, at the start of the next segment") {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        play(p, {"POST /1 HTTP/1.1\r\nHost", "#10", "<x>no line end here</x>",
                 "POST /2 HTTP/1.1\r\nContent-Length: 0\r\n\r\n"});
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].method == "POST");  // not "</x>POST": the segment start wins
        CHECK(r.heads[0].uri == "/2");
    }
    SECTION("a request typed one byte per segment after a gap keeps its method") {
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.gap(5);
        for (char c : std::string("xx\r\nGET /t HTTP/1.1\r\n\r\n")) p.feed(bytes(std::string(1, c)));
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].method == "GET");
        CHECK(r.heads[0].uri == "/t");
    }
}

TEST_CASE("abandon() drops the message in progress and resynchronises") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    for (int i = 0; i < 2; ++i) p.push_request_method("GET");
    p.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nabc"));
    p.abandon();
    p.feed(bytes("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"));
    CHECK(r.codes == std::vector<HttpError>{HttpError::Abandoned});
    CHECK(r.events[3].rfind("drop@", 0) == 0);
    REQUIRE(r.heads.size() == 2);
    CHECK(r.heads[1].status == 404);
    CHECK(r.events.back().rfind("complete@", 0) == 0);
    p.abandon();  // between messages: nothing to drop
    CHECK(r.codes.size() == 1);
    CHECK(r.contract_ok);
}

TEST_CASE("lenient forms are accepted with one warning each") {
    std::string s = "GET   /x   HTTP/1.1\r\nHost: a\r\n\r\n"
                    "POST /y http/1.0\nContent-Length: 2\n\nok";
    Recorder r = parsed(Role::Request, s);
    REQUIRE(r.heads.size() == 2);
    CHECK(r.heads[0].uri == "/x");
    CHECK(r.heads[1].version == "HTTP/1.0");
    CHECK(r.heads[1].connection_close);
    CHECK(r.bodies[1] == "ok");
    CHECK(r.fatal_errors == 0);
    CHECK(r.codes == std::vector<HttpError>{HttpError::ExtraWhitespace, HttpError::LowerCaseVersion,
                                            HttpError::BareLineFeed});
    check_split_invariance(Role::Request, s);

    Recorder rs;
    HttpStreamParser ps(Role::Response, rs);
    ps.push_request_method("GET");
    ps.feed(bytes("http/1.1  200  OK\r\nContent-Length: 0\r\n\r\n"));
    REQUIRE(rs.heads.size() == 1);
    CHECK(rs.heads[0].status == 200);
    CHECK(rs.heads[0].reason == "OK");
    CHECK(rs.heads[0].version == "HTTP/1.1");
    CHECK(rs.codes == std::vector<HttpError>{HttpError::ExtraWhitespace, HttpError::LowerCaseVersion});
}

TEST_CASE("non-HTTP bytes at a message boundary are rejected before any start line") {
    for (const char* s : {"EHLO mail.example.org\r\n", "HI\n", "GET /\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}) {
        INFO(s);
        struct StartLines : Recorder {
            int start_lines = 0;
            void on_start_line(const HttpMessageHead&, uint64_t) override { ++start_lines; }
        } r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes(s));
        p.end_of_stream();
        CHECK(r.start_lines == 0);
        CHECK(r.heads.empty());
        REQUIRE(!r.codes.empty());
        CHECK((r.codes[0] == HttpError::NotHttp || r.codes[0] == HttpError::UnsupportedVersion));
        CHECK(r.events[1].rfind("reject@", 0) == 0);
        CHECK(r.contract_ok);
    }
}

TEST_CASE("tunnel mode: CONNECT 2xx and enter_tunnel()") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.push_request_method("CONNECT");
    p.feed(bytes("HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01\x02\x00"));
    CHECK(p.in_tunnel());
    CHECK(r.heads.size() == 1);
    CHECK(r.codes.empty());

    Recorder rq;
    HttpStreamParser q(Role::Request, rq);
    q.feed(bytes("GET /chat HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"));
    q.enter_tunnel();
    q.feed(bytes("\x81\x85garbage that is not HTTP\r\nGET / HTTP/1.1\r\n\r\n"));
    q.gap(10);
    q.end_of_stream();
    CHECK(q.in_tunnel() == false);  // closed after end_of_stream
    CHECK(rq.heads.size() == 1);
    CHECK(rq.codes.empty());        // no warnings in a tunnel

    Recorder rm;
    HttpStreamParser m(Role::Request, rm);
    m.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nab"));
    m.enter_tunnel();
    CHECK(rm.codes == std::vector<HttpError>{HttpError::TunnelEntered});
    CHECK(rm.contract_ok);
    CHECK_FALSE(rm.open);
}

TEST_CASE("a final response dropped inside its head still consumes its request's method") {
    Recorder r;
    HttpStreamParser p(Role::Response, r);
    p.push_request_method("GET");
    p.push_request_method("HEAD");
    play(p, {"HTTP/1.1 200 OK\r\nContent-Le", "#40", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
             "HTTP/1.1 200 OK\r\n\r\n"});
    REQUIRE(r.heads.size() == 2);
    CHECK(r.bodies[0].empty());  // the HEAD response: Content-Length is no body
    CHECK(r.events[r.events.size() - 3].rfind("complete@", 0) == 0);
}

TEST_CASE("start line: taking runs or whole lines at once judges every line as pushing byte by byte does") {
    // Lines near the method cap, the line cap, with lenient and broken forms;
    // each judged byte by byte and with take_run() wherever it takes bytes.
    std::vector<std::string> lines = {
        "POST /soap/ep?wsdl HTTP/1.1\r\n", "GET  /x  http/1.0 \n", "M-SEARCH * HTTP/1.1\r\n",
        std::string(32, 'A') + " / HTTP/1.1\r\n", std::string(33, 'A') + " / HTTP/1.1\r\n",
        "GET /" + std::string(60, 'a') + " HTTP/1.1\r\n", "GET /a\x01 HTTP/1.1\r\n", "GET / HTTP/2.0\r\n",
        "HTTP/1.1 200 OK\r\n", "HTTP/1.1 500  Internal Server Error  \r\n", "HTTP/1.0 404\r\n",
        "HTTP/1.1 200 OK\rX\n", "HTTP/1.1 20 OK\r\n", "GET / HTTP/1.1 extra\r\n", "\r\n", "GET\r\n",
        "HTtP/1.1 200 OK\r\n", "GET / HTTP/1.x\r\n", "GET / HTTP/1.10\r\n", "GET / HTTP/1.\r\n", "GET / HTT\r\n",
        "HTTP/1.1\r\n", "HTTP/1.1  200 OK\r\n", "GET / Http/1.1\r\n", "HTTP/11 200 OK\r\n",
        // Near the canonical form take_line() judges at once.
        "HTTP/1.1 200 OK \t\r\n", "HTTP/1.1 200 \r\n", "HTTP/1.1 200\r\n", "HTTP/1.1 099 x\r\n",
        "HTTP/1.1 200 a\rb\r\n", "HTTP/1.1 200\tOK\r\n", "HTTP/1.1\t200 OK\r\n", "HTTP/1.1 2000 OK\r\n",
        "HTTP/1.1 200 \tOK\r\n", "GET / HTTP/1.1\r\r\n", "GET\t/ HTTP/1.1\r\n", "GET /\x80\xff HTTP/1.1\r\n",
        std::string("GET /\0 HTTP/1.1\r\n", 17), std::string("HTTP/1.1 200 O\0K\r\n", 18), "GET / HTTP/1.1 \r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n", "HTTP/1.0 204 No Content\r\nX: y\r\n", "GET / HTTP/1.1\n", "\nGET / HTTP/1.1\r\n",
        " GET / HTTP/1.1\r\n", "GET / HTTP/1.1", "HTTP/1.1 200 OK\r"};
    std::mt19937 rng(7);
    const char alphabet[] = "GETPOST /?=&aZ09-._~\t\r\nHTP1./htp\x01\x7f";
    for (int i = 0; i < 3000; ++i) {
        std::string l;
        const size_t len = rng() % 40;
        for (size_t k = 0; k < len; ++k) l += alphabet[rng() % (sizeof alphabet - 1)];
        lines.push_back(i % 2 ? l : "GET " + l);
        lines.push_back("HTTP/1.1 200 " + l);
        lines.push_back("GET / " + l);  // versions right, wrong, cut and in lower case
        lines.push_back(i % 3 ? "HTTP/" + l : l);
        // Canonical lines of random parts (often valid), cut at random.
        std::string m = l.substr(0, rng() % (l.size() + 1)), t = l.substr(rng() % (l.size() + 1));
        std::string whole = i % 2 ? m + " " + t + " HTTP/1." + char('0' + rng() % 10) + "\r\n"
                                  : "HTTP/1.1 " + std::to_string(rng() % 1000) + " " + t + "\r\n";
        lines.push_back(whole);
        lines.push_back(whole.substr(0, rng() % (whole.size() + 1)));
    }
    size_t whole_lines = 0;  // judged by take_line() at once
    for (const std::string& line : lines)
        for (bool request : {true, false})
            for (size_t cap : {size_t(20), size_t(36), size_t(64 * 1024)}) {
                StartLineMatcher a(request, cap), b(request, cap), c(request, cap);
                a.reset();
                b.reset();
                c.reset();
                auto data = bytes(line);
                StartLineMatcher::Result ra = StartLineMatcher::Result::More, rb = ra, rc = ra;
                size_t ka = 0;
                for (; ka < data.size() && ra == StartLineMatcher::Result::More; ++ka) ra = a.push(data[ka]);
                for (size_t k = 0; k < data.size() && rb == StartLineMatcher::Result::More;) {
                    if (size_t run = b.take_run(data.data() + k, data.size() - k)) k += run;
                    else rb = b.push(data[k++]);
                }
                // take_line() as the parser uses it: whole line at once, else byte by byte.
                const size_t took = c.take_line(data.data(), data.size());
                size_t kc = took;
                if (kc) rc = StartLineMatcher::Result::Accepted, ++whole_lines;
                // match_line() as the stream parser uses it: take_line()'s
                // verdict and parts, viewed in place, the matcher untouched.
                StartLineMatcher::LineParts parts;
                StartLineMatcher d(request, cap);
                d.reset();
                const size_t kd = d.match_line(data.data(), data.size(), parts);
                CHECK(kd == took);
                CHECK(!d.started());
                if (kd) {
                    CHECK(parts.method == c.method);
                    CHECK(parts.target == c.target);
                    CHECK(parts.version == c.version);
                    CHECK(parts.reason == c.reason);
                    CHECK(parts.status == c.status);
                    CHECK((parts.version.data() >= line.data() && parts.version.data() < line.data() + line.size()));
                }
                for (; kc < data.size() && rc == StartLineMatcher::Result::More; ++kc) rc = c.push(data[kc]);
                INFO(line << " request=" << request << " cap=" << cap);
                REQUIRE(ra == rb);
                REQUIRE(ra == rc);
                CHECK(ka == kc);
                for (const StartLineMatcher* o : {&b, &c}) {
                    CHECK(a.length() == o->length());
                    CHECK(a.method == o->method);
                    CHECK(a.target == o->target);
                    CHECK(a.version == o->version);
                    CHECK(a.reason == o->reason);
                    CHECK(a.status == o->status);
                    CHECK(a.lenient() == o->lenient());
                    CHECK(a.reject_code == o->reject_code);
                    CHECK(a.reject_reason == o->reject_reason);
                }
            }
    CHECK(whole_lines > 1000);
}

TEST_CASE("token characters are RFC 9110's tchar") {
    const std::string_view specials = "!#$%&'*+-.^_`|~";
    for (int c = 0; c < 256; ++c) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool special = c != 0 && specials.find(char(c)) != std::string_view::npos;
        CHECK(is_http_tchar(uint8_t(c)) == (alnum || special));
    }
}

TEST_CASE("known field names: any case matches, every other byte does not") {
    const std::pair<std::string, HttpField> known[] = {
        {"Content-Length", HttpField::ContentLength}, {"Transfer-Encoding", HttpField::TransferEncoding},
        {"Connection", HttpField::Connection},         {"Expect", HttpField::Expect},
        {"Content-Type", HttpField::ContentType},      {"SOAPAction", HttpField::SoapAction},
        {"User-Agent", HttpField::UserAgent},          {"Server", HttpField::Server},
        {"Content-Encoding", HttpField::ContentEncoding}, {"Upgrade", HttpField::Upgrade},
    };
    std::mt19937 rng(26);
    for (const auto& [name, kind] : known) {
        INFO(name);
        CHECK(http_field_of(name) == kind);
        std::string mixed = name;
        for (int round = 0; round < 20; ++round) {
            for (char& c : mixed)
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) c = (rng() & 1) ? char(c | 0x20) : char(c & ~0x20);
            CHECK(http_field_of(mixed) == kind);
        }
        // Any one byte changed (to its case partner's neighbours, to a byte
        // that equals it OR 0x20, to CR) is another name.
        for (size_t i = 0; i < name.size(); ++i)
            for (int v : {name[i] ^ 0x01, name[i] & ~0x20 & 0xff, int('\r'), int('_'), int('m')}) {
                std::string other = name;
                other[i] = char(v);
                bool same_letter = ascii_lower(other[i]) == ascii_lower(name[i]);
                CHECK((http_field_of(other) == kind) == same_letter);
            }
        CHECK(http_field_of(name.substr(1)) != kind);
        CHECK(http_field_of(name + "s") != kind);
    }
    CHECK(http_field_of("Host") == HttpField::Other);
    CHECK(http_field_of("") == HttpField::Other);
}

TEST_CASE("a copied or moved head views its own field bytes") {
    Recorder r;
    {
        HttpStreamParser p(Role::Request, r);
        // A short head (its bytes fit a string's inline buffer) and a long one.
        p.feed(bytes("GET / HTTP/1.1\r\nA: b\r\n\r\n"
                     "POST /x HTTP/1.1\r\nContent-Type: text/xml; charset=utf-8\r\nX-Fold: one\r\n two\r\n"
                     "SOAPAction: \"urn:op\"\r\nContent-Length: 0\r\nX-Empty:\r\n\r\n"));
        // The parser (and its buffers) are gone after this scope.
    }
    REQUIRE(r.heads.size() == 2);
    std::vector<HttpMessageHead> moved;
    for (auto& h : r.heads) moved.push_back(std::move(h));
    HttpMessageHead copy;
    copy = moved[1];
    moved[1].field_bytes.assign(moved[1].field_bytes.size(), '#');  // the copy must not see this
    for (const HttpMessageHead* h : {&moved[1], &copy}) {
        INFO((h == &copy ? "copy" : "moved"));
        const bool overwritten = h != &copy;
        CHECK((*h->field(HttpField::ContentType) == "text/xml; charset=utf-8") != overwritten);
        if (!overwritten) {
            CHECK(*h->header("x-fold") == "one two");
            CHECK(*h->field(HttpField::SoapAction) == "\"urn:op\"");
            CHECK(h->headers[3].name == "Content-Length");
            CHECK(h->field(HttpField::UserAgent) == nullptr);
            // Every view, the empty one at the end included, is into its own bytes.
            const char* own = h->field_bytes.data();
            for (const HttpHeader& f : h->headers)
                for (std::string_view v : {f.name, f.value})
                    CHECK((v.data() >= own && v.data() + v.size() <= own + h->field_bytes.size()));
            CHECK(h->headers.at(4).value.empty());
        }
    }
    CHECK(moved[0].headers.size() == 1);
    CHECK(moved[0].headers[0].name == "A");
    CHECK(moved[0].headers[0].value == "b");
    HttpMessageHead again(std::move(moved[0]));
    CHECK(again.headers[0].value == "b");
    CHECK(*again.header("a") == "b");
}

TEST_CASE("a bad header field name or line is dropped with the reason, and parsing resumes") {
    const std::pair<std::string, std::string> cases[] = {
        {"X-A b: v", "invalid header field name"},    // space in the name
        {"\"X\": v", "invalid header field name"},    // first byte not a token byte
        {"X\x01Y: v", "invalid header field name"},
        {"X-A\rY: v", "invalid header field name"},   // a bare CR inside the name
        {": v", "malformed header field line"},
        {"no colon here", "malformed header field line"},
        {"\"quoted\"", "malformed header field line"},
        {std::string("X\0Y: v", 6), "invalid header field name"},  // NUL
    };
    for (const auto& [line, why] : cases) {
        INFO(line);
        std::string s = "GET / HTTP/1.1\r\nHost: h\r\n" + line + "\r\n\r\n";
        Recorder r;
        HttpStreamParser p(Role::Request, r);
        p.feed(bytes(s));
        p.feed(bytes("GET /next HTTP/1.1\r\n\r\n"));
        REQUIRE(r.codes.size() == 1);
        CHECK(r.codes[0] == HttpError::MalformedHeader);
        CHECK(r.events.at(1) == "drop@" + std::to_string(s.find(line)) + ":" + why);
        REQUIRE(r.heads.size() == 1);
        CHECK(r.heads[0].uri == "/next");
        check_split_invariance(Role::Request, s);
    }
}

// The parser skips the byte-by-byte token test for names http_field_of()
// knows: every one-byte change of every known name (and of names of their
// lengths that are not known) is judged as a byte scan up to the colon judges it.
TEST_CASE("header field names: every byte in every position is judged as the token scan judges it") {
    // The scan the parser made before: token bytes up to the colon.
    auto expected = [](std::string_view l) -> std::string {
        size_t colon = 0;
        while (colon < l.size() && is_http_tchar(uint8_t(l[colon]))) ++colon;
        if (colon == l.size() || l[colon] != ':')
            return l.find(':', colon) != std::string_view::npos ? "invalid header field name"
                                                                : "malformed header field line";
        return colon == 0 ? "malformed header field line" : "";
    };
    const std::string names[] = {"Expect", "Server", "Upgrade", "Connection", "User-Agent", "SOAPAction",
                                 "Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding",
                                 "X-Abcd", "X-Abcdefghi", "X-Abcdefghijklmno"};
    size_t dropped = 0, kept = 0;
    for (const std::string& name : names)
        for (size_t i = 0; i < name.size(); ++i)
            for (int v = 0; v < 256; ++v) {
                if (v == '\n' || (i == 0 && (v == ' ' || v == '\t'))) continue;  // a line end, an obs-fold
                std::string line = name + ": 0";
                line[i] = char(v);
                const std::string why = expected(line);
                // A response: "Transfer-Encoding: 0" is no error there.
                const std::string s = "HTTP/1.1 200 OK\r\nHost: h\r\n" + line + "\r\n\r\n";
                Recorder r;
                HttpStreamParser p(Role::Response, r);
                p.feed(bytes(s));
                INFO(name << " byte " << i << " = " << v);
                if (why.empty()) {
                    REQUIRE(r.heads.size() == 1);
                    REQUIRE(r.heads[0].headers.size() == 2);
                    CHECK(r.heads[0].headers[1].name == line.substr(0, line.find(':')));
                    ++kept;
                } else {
                    REQUIRE(r.codes.size() == 1);
                    CHECK(r.events.at(1) == "drop@" + std::to_string(s.find(line)) + ":" + why);
                    ++dropped;
                }
            }
    CHECK(dropped > 10000);
    CHECK(kept > 10000);
}

// Header lines are read in one step while the head lasts, the start line's
// step goes on into them: the same events as any split, with errors and the
// head's end in the middle of the fed bytes.
TEST_CASE("a head read whole in one feed gives the events of every split") {
    const std::string soap_req =
        "POST /svc HTTP/1.1\r\nHost: 10.0.0.1:8080\r\nContent-Type: text/xml; charset=utf-8\r\n"
        "SOAPAction: \"urn:op\"\r\nContent-Length: 5\r\n\r\nhello";
    const std::string soap_resp =
        "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc";
    check_split_invariance(Role::Request, soap_req + soap_req);
    check_split_invariance(Role::Response, soap_resp + "HTTP/1.1 100 Continue\r\n\r\n" + soap_resp);
    // A bare LF, an obs-fold, a bad line in the middle, then the next message.
    check_split_invariance(Role::Request, "GET /a HTTP/1.1\nX: 1\n  two\r\nY: 2\r\n\r\n"
                                          "GET /b HTTP/1.1\r\nBad line\r\nZ: 3\r\n\r\nGET /c HTTP/1.1\r\n\r\n");
    const auto ev = run_whole(Role::Request, soap_req + "GET /x HTTP/1.1\r\nHost: h\r\n");
    CHECK(ev == std::vector<std::string>{"begin@0", "head@123 POST /svc HTTP/1.1 hb=123 cl=5 n=4",
                                         "body@0:hello", "complete@128", "begin@128",
                                         "drop@154:stream ended inside a message"});
}
