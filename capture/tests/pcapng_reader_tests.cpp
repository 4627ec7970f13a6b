// pcapng through our own block reader (via PcapFileReader::open).
#include "capture/packet_decoder.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/read_all.h"

#include <catch2/catch.hpp>

#include <random>

using namespace stallscope;
using namespace stallscope::test;

namespace {

Bytes v4_tcp(uint8_t tag) {
    TcpSpec t;
    t.payload = {'n', 'g', tag};
    return ipv4_packet(Ipv4Spec{}, tcp_segment(t));
}


std::unique_ptr<PcapFileReader> open_bytes(const TempDir& dir, const Bytes& b, std::string& err,
                                           const std::string& name = "t.pcapng") {
    write_file(dir.file(name), b);
    return PcapFileReader::open(dir.file(name), err);
}

constexpr int64_t kBase = 1700000000LL * 1000000000;

} // namespace

TEST_CASE("pcapng: several interfaces with different link types and timestamp resolutions") {
    for (bool be : {false, true}) {
        INFO("big-endian " << be);
        PcapngWriter w(be);
        w.shb();
        w.idb(linktype::kEthernet);                          // if 0: default µs
        w.idb(linktype::kLinuxSll2, 262144, uint8_t(9));     // if 1: ns
        w.block(4, Bytes{0, 0, 0, 0});                       // name resolution block: skipped
        std::vector<uint64_t> offsets;
        offsets.push_back(w.size());
        w.epb(0, 1700000000123456ULL, ethernet(0x0800, v4_tcp(1)));
        offsets.push_back(w.size());
        w.epb(1, 1700000000123456789ULL, sll2(0x0800, v4_tcp(2)), 9000);
        w.block(0x40000BAD, Bytes{1, 2, 3, 4, 5, 6, 7, 8});  // custom block: skipped
        w.idb(linktype::kRaw, 262144, uint8_t(0x94));        // if 2: 2^-20 s
        offsets.push_back(w.size());
        w.epb(2, (1700000000ULL << 20) | (1u << 19), v4_tcp(3));  // x.5 s exactly
        offsets.push_back(w.size());
        w.spb(ethernet(0x0800, v4_tcp(4)));                  // simple packet: interface 0
        offsets.push_back(w.size());
        w.pb(1, 1700000000600000000ULL, sll2(0x0800, v4_tcp(5)));  // obsolete packet block

        // A second section in the other byte order; its interface 0 is global 3.
        PcapngWriter w2(!be);
        w2.shb();
        w2.idb(linktype::kNull, 262144, uint8_t(3), int64_t(1700000001));  // ms + offset
        const uint64_t second_start = w.size();
        offsets.push_back(second_start + w2.size());
        w2.epb(0, 5, null_header(2, !be, v4_tcp(6)));
        Bytes file = w.bytes();
        append(file, w2.bytes());

        TempDir dir;
        std::string err;
        auto r = open_bytes(dir, file, err);
        REQUIRE(r);
        CHECK(r->format() == "pcapng");
        auto got = read_all(*r);
        CHECK(got.last == PcapFileReader::Status::End);
        REQUIRE(got.frames.size() == 6);

        const int want_lt[] = {1, 276, 101, 1, 276, 0};
        const uint32_t want_if[] = {0, 1, 2, 0, 1, 3};
        const int64_t want_ts[] = {kBase + 123456000, kBase + 123456789, kBase + 500000000,
                                   kBase + 500000000,  // SPB: previous timestamp
                                   kBase + 600000000, kBase + 1000000000 + 5000000};
        for (size_t i = 0; i < 6; ++i) {
            INFO("frame " << i + 1);
            const Frame& f = got.frames[i];
            CHECK(f.number == i + 1);
            CHECK(f.linktype == want_lt[i]);
            CHECK(f.interface_id == want_if[i]);
            CHECK(f.ts_ns == want_ts[i]);
            CHECK(f.file_offset == offsets[i]);
            auto d = decode_packet(f.linktype, got.data[i]);
            REQUIRE(d.status == DecodeStatus::Tcp);
            CHECK(d.tcp.payload.back() == uint8_t(i + 1));
        }
        CHECK(got.frames[1].origlen == 9000);
        CHECK(r->position() == file.size());
    }
}

TEST_CASE("pcapng: timestamps going backwards are kept and reading goes on") {
    PcapngWriter w;
    w.shb();
    w.idb(1);
    w.epb(0, 2000000, ethernet(0x0800, v4_tcp(1)));
    w.epb(0, 1000000, ethernet(0x0800, v4_tcp(2)));
    w.epb(0, 3000000, ethernet(0x0800, v4_tcp(3)));
    TempDir dir;
    std::string err;
    auto r = open_bytes(dir, w.bytes(), err);
    REQUIRE(r);
    auto got = read_all(*r);
    CHECK(got.last == PcapFileReader::Status::End);
    CHECK(got.frames.size() == 3);
    REQUIRE(got.frames.size() == 3);
    CHECK(got.frames[1].ts_ns < got.frames[0].ts_ns);  // kept as written: the analysis decides
}

TEST_CASE("pcapng: damaged blocks stop reading with the block's offset") {
    PcapngWriter w;
    w.shb();
    w.idb(1);
    w.epb(0, 1, ethernet(0x0800, v4_tcp(1)));
    const uint64_t bad = w.size();
    TempDir dir;
    std::string err;

    auto expect_error_after_one = [&](const Bytes& file, const std::string& reason) {
        INFO(reason);
        auto r = open_bytes(dir, file, err);
        REQUIRE(r);
        auto got = read_all(*r);
        CHECK(got.frames.size() == 1);
        REQUIRE(got.last == PcapFileReader::Status::Error);
        CHECK(r->error_offset() == bad);
        CHECK(r->error().rfind(dir.file("t.pcapng") + ": ", 0) == 0);
        CHECK(r->error().find(reason) != std::string::npos);
        CHECK(r->error().find("(offset " + std::to_string(bad) + ")") != std::string::npos);
        Frame f;
        CHECK(r->next(f) == PcapFileReader::Status::Error);
    };

    SECTION("zero-length block") {
        PcapngWriter x = w;
        x.raw32(6);
        x.raw32(0);
        x.raw(Bytes(32, 0));
        expect_error_after_one(x.bytes(), "zero-length block");
    }
    SECTION("truncated block at the end of the file") {
        PcapngWriter x = w;
        x.epb(0, 2, ethernet(0x0800, v4_tcp(2)));
        Bytes b = x.bytes();
        b.resize(b.size() - 10);
        expect_error_after_one(b, "truncated block");
    }
    SECTION("truncated block header") {
        PcapngWriter x = w;
        x.raw(Bytes{6, 0, 0});
        expect_error_after_one(x.bytes(), "truncated block header");
    }
    SECTION("length not a multiple of 4") {
        PcapngWriter x = w;
        x.raw32(6);
        x.raw32(30);
        x.raw(Bytes(40, 0));
        expect_error_after_one(x.bytes(), "not a multiple of 4");
    }
    SECTION("length below 12") {
        PcapngWriter x = w;
        x.raw32(6);
        x.raw32(8);
        x.raw(Bytes(40, 0));
        expect_error_after_one(x.bytes(), "too small");
    }
    SECTION("absurd length") {
        PcapngWriter x = w;
        x.raw32(6);
        x.raw32(0x7ffffffc);
        x.raw(Bytes(40, 0));
        expect_error_after_one(x.bytes(), "absurd block length");
    }
    SECTION("trailing length differs") {
        PcapngWriter x = w;
        x.raw32(0x1234);
        x.raw32(16);
        x.raw32(0);
        x.raw32(20);
        expect_error_after_one(x.bytes(), "trailing block length 20");
    }
    SECTION("packet for an undefined interface") {
        PcapngWriter x = w;
        x.epb(5, 2, Bytes(20, 0));
        expect_error_after_one(x.bytes(), "undefined interface 5");
    }
    SECTION("captured length beyond the block") {
        PcapngWriter x = w;
        Bytes body;
        for (uint32_t v : {0u, 0u, 2u, 5000u, 5000u}) put32le(body, v);
        append(body, Bytes(8, 0));
        x.block(6, body);
        expect_error_after_one(x.bytes(), "exceeds the block");
    }
}

TEST_CASE("pcapng: bad section header and empty section") {
    TempDir dir;
    std::string err;
    SECTION("bad byte-order magic") {
        PcapngWriter w;
        w.shb();
        Bytes b = w.bytes();
        b[8] = 0x99;
        CHECK_FALSE(open_bytes(dir, b, err));
        CHECK(err.find("byte-order magic") != std::string::npos);
        CHECK(err.find("(offset 0)") != std::string::npos);
    }
    SECTION("unsupported major version") {
        PcapngWriter w;
        w.shb();
        Bytes b = w.bytes();
        b[12] = 2;  // little-endian major version
        CHECK_FALSE(open_bytes(dir, b, err));
        CHECK(err.find("version 2.0") != std::string::npos);
    }
    SECTION("zero-length section header") {
        Bytes b = {0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a};
        CHECK_FALSE(open_bytes(dir, b, err));
        CHECK(err.find("zero-length block") != std::string::npos);
    }
    SECTION("only a section header: no frames, clean end") {
        PcapngWriter w;
        w.shb();
        w.idb(1);
        auto r = open_bytes(dir, w.bytes(), err);
        REQUIRE(r);
        Frame f;
        CHECK(r->next(f) == PcapFileReader::Status::End);
    }
}

TEST_CASE("pcapng: randomly damaged files end in End or Error within bounds") {
    PcapngWriter w;
    w.shb();
    w.idb(1, 262144, uint8_t(0x8a));
    w.epb(0, 10, ethernet(0x0800, v4_tcp(1)));
    w.spb(ethernet(0x0800, v4_tcp(2)));
    w.idb(276);
    w.pb(1, 20, sll2(0x0800, v4_tcp(3)));
    const Bytes good = w.bytes();
    std::mt19937 rng(777);
    TempDir dir;
    size_t errors = 0;
    for (int i = 0; i < 400; ++i) {
        Bytes b = good;
        const int flips = 1 + int(rng() % 4);
        for (int k = 0; k < flips; ++k) b[rng() % b.size()] = uint8_t(rng());
        std::string err;
        auto r = open_bytes(dir, b, err);
        if (!r) {
            CHECK_FALSE(err.empty());
            continue;
        }
        auto got = read_all(*r);
        CHECK(got.frames.size() <= 3);  // a flip cannot create packets out of nothing
        for (const Frame& f : got.frames) CHECK(f.file_offset < b.size());
        if (got.last == PcapFileReader::Status::Error) {
            ++errors;
            CHECK(r->error_offset() < b.size());
        } else {
            CHECK(got.last == PcapFileReader::Status::End);
        }
    }
    CHECK(errors > 0);
}

TEST_CASE("pcapng: every truncation of a good file ends in End or Error, never a crash") {
    PcapngWriter w;
    w.shb();
    w.idb(1, 262144, uint8_t(9));
    w.epb(0, 10, ethernet(0x0800, v4_tcp(1)));
    w.idb(113);
    w.epb(1, 20, sll(0x0800, v4_tcp(2)));
    const Bytes full = w.bytes();
    TempDir dir;
    size_t opened = 0;
    for (size_t n = 0; n <= full.size(); ++n) {
        INFO("prefix " << n);
        std::string err;
        auto r = open_bytes(dir, Bytes(full.begin(), full.begin() + long(n)), err);
        if (!r) {
            CHECK_FALSE(err.empty());
            continue;
        }
        ++opened;
        auto got = read_all(*r);
        if (n == full.size()) {
            CHECK(got.last == PcapFileReader::Status::End);
            CHECK(got.frames.size() == 2);
        } else if (got.last == PcapFileReader::Status::Error) {
            CHECK(r->error_offset() <= n);
        } else {
            // ended exactly on a block boundary
            CHECK(got.last == PcapFileReader::Status::End);
        }
    }
    CHECK(opened > 0);
}
