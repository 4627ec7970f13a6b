// Stream reassembly from hand-built segment sequences.
#include "capture/tcp/stream_reassembler.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stallscope;

namespace {
struct Collect : StreamReassembler::Sink {
    std::string bytes;
    std::vector<uint64_t> tags;
    uint64_t gaps = 0;
    void on_stream_data(uint64_t offset, std::span<const uint8_t> d, uint64_t tag) override {
        REQUIRE(offset == bytes.size());  // gaps are filled with _
        bytes.append(reinterpret_cast<const char*>(d.data()), d.size());
        tags.push_back(tag);
    }
    void on_stream_gap(uint64_t, uint64_t len) override { gaps += len; bytes.append(len, '_'); }
};
std::span<const uint8_t> b(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
using K = StreamReassembler::SegmentKind;
}

TEST_CASE("in-order segments are delivered once, attributed to their segment") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(1000);
    CHECK(r.on_segment(1001, b("POST "), 5, 1) == K::InOrder);
    CHECK(r.on_segment(1006, b("/soap"), 5, 2) == K::InOrder);
    CHECK(c.bytes == "POST /soap");
    CHECK(c.tags == std::vector<uint64_t>{1, 2});
}

TEST_CASE("retransmission and overlap: first copy wins, only new bytes pass") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(0);
    r.on_segment(1, b("abcd"), 4, 1);
    CHECK(r.on_segment(1, b("abcd"), 4, 2) == K::Retransmission);
    CHECK(r.on_segment(3, b("XXef"), 4, 3) == K::PartialOverlap);
    CHECK(c.bytes == "abcdef");
}

TEST_CASE("out-of-order segments are held until the hole fills") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(0);
    CHECK(r.on_segment(5, b("efgh"), 4, 2) == K::OutOfOrder);
    CHECK(c.bytes.empty());
    CHECK(r.on_segment(1, b("abcd"), 4, 1) == K::InOrder);
    CHECK(c.bytes == "abcdefgh");
    CHECK(c.tags == std::vector<uint64_t>{1, 2});
}

TEST_CASE("a hole the peer acknowledged past becomes a gap") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(0);
    r.on_segment(1, b("ab"), 2, 1);
    r.on_segment(5, b("ef"), 2, 2);  // bytes 3-4 never captured
    CHECK(c.bytes == "ab");
    r.on_peer_ack(7);
    CHECK(c.bytes == "ab__ef");
    CHECK(r.stats().gap_bytes == 2);
}

TEST_CASE("sequence numbers wrap around 2^32") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(0xFFFFFFFD);
    r.on_segment(0xFFFFFFFE, b("ab"), 2, 1);
    r.on_segment(0x00000000, b("cd"), 2, 2);
    r.on_segment(0x00000002, b("ef"), 2, 3);
    CHECK(c.bytes == "abcdef");
    CHECK(r.offset_of(0x00000004) == 6);
}

TEST_CASE("a capture that begins mid-connection starts at the first byte seen, once the peer ACKs it") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    CHECK(r.on_segment(123456, b("HTTP/1.1 200 OK\r\n"), 17, 1) == K::InOrder);
    CHECK(r.offset_of(123456) == 0);
    CHECK(c.bytes.empty());  // the origin is a guess until the peer ACKs
    r.on_peer_ack(123456);   // the peer expects the first byte: nothing comes before it
    CHECK(c.bytes == "HTTP/1.1 200 OK\r\n");
    CHECK(c.gaps == 0);
    CHECK(r.on_segment(123456 + 17, b("X"), 1, 2) == K::InOrder);  // settled: delivered at once
    CHECK(c.bytes == "HTTP/1.1 200 OK\r\nX");
}

TEST_CASE("mid-connection: an ACK acknowledging past the first byte seen leaves the origin there") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_segment(9000, b("tail of a body"), 14, 1);
    r.on_peer_ack(9014);
    CHECK(r.offset_of(9000) == 0);
    CHECK(c.bytes == "tail of a body");
    CHECK(c.gaps == 0);
}

TEST_CASE("mid-connection: the peer's first ACK before the first byte seen places the origin, the bytes between are a gap") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_segment(5000 + 4320, b("continuation"), 12, 1);  // the first captured server bytes
    r.on_peer_ack(5000);                                   // the client has everything before 5000
    CHECK(r.offset_of(5000) == 0);
    CHECK(r.offset_of(5000 + 4320) == 4320);
    CHECK(c.bytes.empty());                                // 4320 bytes may still be retransmitted
    r.on_peer_ack(5000 + 4332);                            // acknowledged past them: they never come
    CHECK(c.gaps == 4320);
    CHECK(c.bytes == std::string(4320, '_') + "continuation");
    // Settled: a later segment before the ACK is an old one.
    CHECK(r.on_segment(4990, b("0123456789"), 10, 2) == K::Retransmission);
}

TEST_CASE("mid-connection: an ACK captured before any data of the stream places its origin") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_peer_ack(700);
    CHECK(r.has_origin());
    CHECK(r.offset_of(700) == 0);
    CHECK(r.on_segment(700, b("GET / HTTP/1.1\r\n"), 16, 1) == K::InOrder);
    CHECK(c.bytes == "GET / HTTP/1.1\r\n");
    CHECK(r.on_segment(690, b("0123456789"), 10, 2) == K::Retransmission);
}

TEST_CASE("mid-connection: an ACK far before the first byte seen (over a window) is not believed") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_segment(0x80000000u, b("abc"), 3, 1);
    r.on_peer_ack(0x80000000u - (1u << 30) - 1);
    CHECK(r.offset_of(0x80000000u) == 0);
    r.flush();
    CHECK(c.bytes == "abc");
}

TEST_CASE("mid-connection: a segment captured later with earlier bytes moves the origin back") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_segment(5005, b("/soap HTTP/1.1"), 14, 2);   // captured first
    int64_t before = r.origin();
    CHECK(r.on_segment(5000, b("POST "), 5, 1) == K::OutOfOrder);
    CHECK(before - r.origin() == 5);
    CHECK(r.offset_of(5000) == 0);
    CHECK(r.offset_of(5005) == 5);
    r.flush();
    CHECK(c.bytes == "POST /soap HTTP/1.1");
    CHECK(c.tags == std::vector<uint64_t>{1, 2});
    CHECK(c.gaps == 0);
    // Once delivered, the origin stays: earlier bytes are old ones.
    CHECK(r.on_segment(4990, b("0123456789"), 10, 3) == K::Retransmission);
}

TEST_CASE("mid-connection: a SYN captured after data, before any delivery, fixes the origin") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_segment(1006, b("/soap"), 5, 2);
    r.on_syn(1000);
    CHECK(r.offset_of(1001) == 0);
    CHECK(c.bytes.empty());                 // bytes 0..4 still missing
    r.on_segment(1001, b("POST "), 5, 1);
    CHECK(c.bytes == "POST /soap");
}

TEST_CASE("a snaplen-truncated payload gives a gap for the missing tail") {
    Collect c;
    StreamReassembler r(c, 1 << 20);
    r.on_syn(0);
    r.on_segment(1, b("abc"), 6, 1);
    r.on_segment(7, b("gh"), 2, 2);
    CHECK(c.bytes == "abc___gh");
}

TEST_CASE("the out-of-order buffer is capped: the oldest hole is given up") {
    Collect c;
    StreamReassembler r(c, 8);
    r.on_syn(0);
    r.on_segment(11, b("12345678"), 8, 1);   // hole at 1..10
    r.on_segment(31, b("abcdefgh"), 8, 2);   // over the cap: hole 1..10 released
    CHECK(r.stats().cap_hit);
    CHECK(c.bytes == std::string(10, '_') + "12345678");
    r.flush();
    CHECK(c.bytes.size() == 38);
}
