// TLS record layer: framing across segments, several records per segment,
// hostile lengths, gaps and resynchronisation.
#include "dissectors/tests/tls_builders.h"
#include "dissectors/tls/tls_record.h"

#include <catch2/catch.hpp>

#include <random>

using namespace stallscope;
using namespace tlstest;

namespace {

struct Rec {
    uint8_t type;
    uint16_t length;
    Bytes body;
    uint64_t first, last, first_tag, last_tag;
};

struct Sink : TlsRecordListener {
    std::vector<Rec> recs;
    std::vector<std::pair<TlsError, uint64_t>> errors;
    void on_record(const TlsRecord& r) override {
        recs.push_back({r.type, r.length, Bytes(r.body.begin(), r.body.end()), r.first_offset, r.last_offset,
                        r.first_tag, r.last_tag});
    }
    void on_record_error(TlsError code, uint64_t offset, uint64_t) override { errors.push_back({code, offset}); }
};

Bytes body_of(size_t n, uint8_t seed) {
    Bytes b(n);
    for (size_t i = 0; i < n; ++i) b[i] = uint8_t(seed + i * 7);
    return b;
}

} // namespace

TEST_CASE("TLS sniffing by the record header, never by port") {
    auto ch = record(22, client_hello({}, {}), 0x0301);
    CHECK(sniff_tls_record(ch) == TlsSniff::Yes);
    CHECK(sniff_tls_record(std::span<const uint8_t>(ch).first(2)) == TlsSniff::NeedMore);
    CHECK(sniff_tls_record(str("GET / HTTP/1.1\r\n")) == TlsSniff::No);
    CHECK(sniff_tls_record(str("POST /x HTTP/1.1\r\n")) == TlsSniff::No);
    CHECK(sniff_tls_record(Bytes{0x16, 0x03, 0x01, 0x48, 0x01}) == TlsSniff::No);  // length past 2^14+2048
    CHECK(sniff_tls_record(Bytes{0x16, 0x02, 0x01, 0x00, 0x10}) == TlsSniff::No);
    CHECK(sniff_tls_record(Bytes{0x17, 0x03, 0x03, 0x40, 0x11}) == TlsSniff::Yes);  // mid-stream application data
}

TEST_CASE("records framed the same however the stream is cut into segments") {
    Bytes stream;
    std::vector<size_t> sizes = {0, 1, 200, 16384, 5, 16384 + 2048};
    for (size_t i = 0; i < sizes.size(); ++i) append(stream, record(uint8_t(21 + i % 3), body_of(sizes[i], uint8_t(i))));
    std::mt19937 rng(7);
    for (int round = 0; round < 50; ++round) {
        Sink s;
        TlsRecordReader r(s);
        size_t pos = 0;
        uint64_t tag = 100;
        while (pos < stream.size()) {
            size_t n = std::min<size_t>(stream.size() - pos, 1 + rng() % (round < 10 ? 7 : 3000));
            r.feed(pos, std::span<const uint8_t>(stream).subspan(pos, n), tag++);
            pos += n;
        }
        REQUIRE(s.errors.empty());
        REQUIRE(s.recs.size() == sizes.size());
        uint64_t off = 0;
        for (size_t i = 0; i < sizes.size(); ++i) {
            CHECK(s.recs[i].length == sizes[i]);
            CHECK(s.recs[i].body == body_of(sizes[i], uint8_t(i)));
            CHECK(s.recs[i].first == off);
            CHECK(s.recs[i].last == off + 5 + sizes[i] - 1);
            CHECK(s.recs[i].first_tag <= s.recs[i].last_tag);
            off += 5 + sizes[i];
        }
    }
}

TEST_CASE("an empty record ends with its header, wherever the segment ends") {
    // Found by fuzz_tls_records: an empty record whose header completed at
    // the end of a segment waited for body bytes that never come.
    Bytes stream = record(23, {});
    for (size_t cut = 0; cut <= stream.size(); ++cut) {
        Sink s;
        TlsRecordReader r(s);
        r.feed(0, std::span<const uint8_t>(stream).first(cut), 1);
        r.feed(cut, std::span<const uint8_t>(stream).subspan(cut), 2);
        r.end(3);
        INFO("cut at " << cut);
        CHECK(s.errors.empty());
        REQUIRE(s.recs.size() == 1);
        CHECK(s.recs[0].length == 0);
        CHECK(s.recs[0].last == 4);
    }
}

TEST_CASE("a record is complete in the chunk holding its last byte") {
    Bytes a = record(23, body_of(10, 1)), b = record(23, body_of(20, 2));
    Bytes stream = a;
    append(stream, b);
    Sink s;
    TlsRecordReader r(s);
    // Chunk 1: all of a and 3 bytes of b; chunk 2: the rest of b.
    r.feed(0, std::span<const uint8_t>(stream).first(a.size() + 3), 1);
    r.feed(a.size() + 3, std::span<const uint8_t>(stream).subspan(a.size() + 3), 2);
    REQUIRE(s.recs.size() == 2);
    CHECK(s.recs[0].first_tag == 1);
    CHECK(s.recs[0].last_tag == 1);
    CHECK(s.recs[1].first_tag == 1);
    CHECK(s.recs[1].last_tag == 2);
    CHECK(s.recs[1].first == a.size());
}

TEST_CASE("a record length past 2^14+2048 desynchronises with an error code") {
    Sink s;
    TlsRecordReader r(s);
    Bytes bad{23, 3, 3, 0x48, 0x01};
    bad.resize(100, 0);
    r.feed(0, bad, 1);
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].first == TlsError::RecordTooLong);
    CHECK(s.errors[0].second == 0);
    CHECK_FALSE(r.in_sync());
    CHECK(s.recs.empty());
}

TEST_CASE("bad content type and bad version are named") {
    for (auto [hdr, code] : {std::pair{Bytes{99, 3, 3, 0, 1, 0}, TlsError::BadContentType},
                             std::pair{Bytes{23, 4, 3, 0, 1, 0}, TlsError::BadVersion}}) {
        Sink s;
        TlsRecordReader r(s);
        r.feed(0, hdr, 1);
        REQUIRE_FALSE(s.errors.empty());
        CHECK(s.errors[0].first == code);
    }
}

TEST_CASE("after a gap the reader resynchronises on a confirmed run of headers") {
    Bytes r1 = record(23, body_of(300, 1)), r2 = record(23, body_of(40, 2)), r3 = record(23, body_of(50, 3));
    Sink s;
    TlsRecordReader r(s);
    r.feed(0, r1, 1);
    // The next 100 bytes (the middle of some record) are lost, then its tail and two records.
    Bytes lost_tail = body_of(77, 9);
    Bytes after = lost_tail;
    append(after, r2);
    append(after, r3);
    uint64_t at = r1.size() + 100;
    r.feed(at, after, 2);
    REQUIRE(s.errors.size() == 2);
    CHECK(s.errors[0].first == TlsError::Gap);
    CHECK(s.errors[0].second == r1.size());
    CHECK(s.errors[1].first == TlsError::Resynchronised);
    CHECK(s.errors[1].second == at + lost_tail.size());
    REQUIRE(s.recs.size() == 3);
    CHECK(s.recs[1].body == body_of(40, 2));
    CHECK(s.recs[1].first == at + lost_tail.size());
    CHECK(s.recs[2].body == body_of(50, 3));
    CHECK(r.in_sync());
}

TEST_CASE("a truncated record at the end of the stream is reported") {
    Sink s;
    TlsRecordReader r(s);
    Bytes a = record(23, body_of(100, 1));
    r.feed(0, std::span<const uint8_t>(a).first(50), 1);
    r.end(2);
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].first == TlsError::Truncated);
    CHECK(s.recs.empty());
}

TEST_CASE("garbage never makes records out of nothing and never grows memory past the window") {
    std::mt19937 rng(3);
    Sink s;
    TlsRecordReader r(s);
    Bytes junk(4096);
    uint64_t off = 0;
    for (int i = 0; i < 200; ++i) {
        for (auto& b : junk) b = uint8_t(rng() % 256 < 250 ? 0x41 : rng());
        r.feed(off, junk, uint64_t(i));
        off += junk.size();
    }
    r.end(999);
    CHECK(r.offset() == off);
    CHECK(r.skipped_bytes() > 0);
}
