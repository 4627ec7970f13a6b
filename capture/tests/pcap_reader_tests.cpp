// Classic pcap through libpcap, and the open() errors common to all files.
#include "capture/packet_decoder.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/read_all.h"
#include "capture/tests/resident_memory.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <span>
#include <vector>

using namespace stallscope;
using namespace stallscope::test;

namespace {

Bytes tcp_frame(uint8_t tag) {
    TcpSpec t;
    t.payload = {'d', 'a', 't', 'a', tag};
    return ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(t)));
}

std::vector<Record> three_records() {
    return {
        {1700000000LL * 1000000000 + 123456789, tcp_frame(1)},
        {1700000000LL * 1000000000 + 999999999, tcp_frame(2), 1514},
        {1700000001LL * 1000000000 + 1, tcp_frame(3)},
    };
}


std::unique_ptr<PcapFileReader> open_bytes(const TempDir& dir, const std::string& name, const Bytes& b,
                                           std::string& error) {
    const std::string path = dir.file(name);
    write_file(path, b);
    return PcapFileReader::open(path, error);
}

} // namespace

TEST_CASE("pcap in us and ns, both byte orders: exact timestamps and bytes") {
    const auto recs = three_records();
    for (bool nano : {false, true}) {
        for (bool be : {false, true}) {
            INFO("nano " << nano << " big-endian " << be);
            TempDir dir;
            std::string err;
            auto r = open_bytes(dir, "t.pcap", pcap_bytes(nano, be, 1, recs), err);
            REQUIRE(r);
            CHECK(err.empty());
            CHECK(r->format() == (nano ? "pcap-ns" : "pcap"));
            auto all = read_all(*r);
            CHECK(all.last == PcapFileReader::Status::End);
            REQUIRE(all.frames.size() == 3);
            for (size_t i = 0; i < 3; ++i) {
                const Frame& f = all.frames[i];
                CHECK(f.number == i + 1);
                const int64_t want = nano ? recs[i].ts_ns : recs[i].ts_ns / 1000 * 1000;
                CHECK(f.ts_ns == want);
                CHECK(f.linktype == linktype::kEthernet);
                CHECK(f.interface_id == 0);
                CHECK(f.file_offset == pcap_record_offset(recs, i));
                CHECK(all.data[i] == recs[i].data);
                CHECK(f.origlen == (recs[i].origlen ? recs[i].origlen : recs[i].data.size()));
                auto d = decode_packet(f.linktype, all.data[i]);
                REQUIRE(d.status == DecodeStatus::Tcp);
                CHECK(d.tcp.payload.back() == uint8_t(i + 1));
            }
            CHECK(r->position() == r->file_size());
            // End is sticky
            Frame f;
            CHECK(r->next(f) == PcapFileReader::Status::End);
        }
    }
}

TEST_CASE("pcap with LINKTYPE_RAW reports 101, not libpcap's DLT_RAW") {
    TempDir dir;
    std::string err;
    Bytes raw = ipv4_packet(Ipv4Spec{}, tcp_segment(TcpSpec{}));
    auto r = open_bytes(dir, "raw.pcap", pcap_bytes(false, false, 101, {{5, raw}}), err);
    REQUIRE(r);
    Frame f;
    REQUIRE(r->next(f) == PcapFileReader::Status::Ok);
    CHECK(f.linktype == linktype::kRaw);
    CHECK(decode_packet(f.linktype, f.data).status == DecodeStatus::Tcp);
}

TEST_CASE("truncated pcap: frames before the damage, then an error naming the offset") {
    const auto recs = three_records();
    const Bytes full = pcap_bytes(true, false, 1, recs);
    const uint64_t third = pcap_record_offset(recs, 2);

    SECTION("cut inside the third record's body") {
        TempDir dir;
        std::string err;
        const std::string path = dir.file("cut.pcap");
        write_file(path, Bytes(full.begin(), full.begin() + long(third + 16 + 10)));
        auto r = PcapFileReader::open(path, err);
        REQUIRE(r);
        auto all = read_all(*r);
        CHECK(all.frames.size() == 2);
        CHECK(all.data[1] == recs[1].data);
        REQUIRE(all.last == PcapFileReader::Status::Error);
        CHECK(r->error_offset() == third);
        CHECK(r->error().rfind(path + ": ", 0) == 0);
        CHECK(r->error().find("truncated record body") != std::string::npos);
        CHECK(r->error().find("(offset " + std::to_string(third) + ")") != std::string::npos);
        Frame f;
        CHECK(r->next(f) == PcapFileReader::Status::Error);  // sticky
    }
    SECTION("cut inside the third record's header") {
        TempDir dir;
        std::string err;
        auto r = open_bytes(dir, "cut.pcap", Bytes(full.begin(), full.begin() + long(third + 7)), err);
        REQUIRE(r);
        auto all = read_all(*r);
        CHECK(all.frames.size() == 2);
        REQUIRE(all.last == PcapFileReader::Status::Error);
        CHECK(r->error_offset() == third);
        CHECK(r->error().find("truncated record header") != std::string::npos);
    }
    SECTION("cut inside the file header") {
        TempDir dir;
        std::string err;
        auto r = open_bytes(dir, "cut.pcap", Bytes(full.begin(), full.begin() + 10), err);
        CHECK_FALSE(r);
        CHECK(err.find("truncated") != std::string::npos);
        CHECK(err.find("(offset 0)") != std::string::npos);
    }
}

TEST_CASE("pcap record with an absurd length is an error at that record") {
    auto recs = three_records();
    Bytes b = pcap_bytes(false, false, 1, recs);
    const uint64_t second = pcap_record_offset(recs, 1);
    // caplen field of record 2 (little-endian) := 0x7fffffff
    b[second + 8] = 0xff;
    b[second + 9] = 0xff;
    b[second + 10] = 0xff;
    b[second + 11] = 0x7f;
    TempDir dir;
    std::string err;
    auto r = open_bytes(dir, "absurd.pcap", b, err);
    REQUIRE(r);
    auto all = read_all(*r);
    CHECK(all.frames.size() == 1);
    REQUIRE(all.last == PcapFileReader::Status::Error);
    CHECK(r->error_offset() == second);
    CHECK(r->error().find("absurd record length") != std::string::npos);
}

TEST_CASE("timestamps going backwards: reading goes on, each frame keeps its own time") {
    std::vector<Record> recs = {
        {3000000000, tcp_frame(1)},
        {4000000000, tcp_frame(2)},
        {3500000000, tcp_frame(3)},  // 0.5 s before frame 2: the analysis decides what that means
        {5000000000, tcp_frame(4)},
    };
    TempDir dir;
    std::string err;
    auto r = open_bytes(dir, "back.pcap", pcap_bytes(true, true, 1, recs), err);
    REQUIRE(r);
    auto all = read_all(*r);
    CHECK(all.last == PcapFileReader::Status::End);
    REQUIRE(all.frames.size() == 4);
    CHECK(all.frames[2].number == 3);
    CHECK(all.frames[2].ts_ns == 3500000000);
    CHECK(all.frames[3].ts_ns == 5000000000);
}

TEST_CASE("open errors: wrong magic, empty, too short, directory, missing") {
    TempDir dir;
    std::string err;
    SECTION("wrong magic") {
        Bytes b = {'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P'};
        auto r = open_bytes(dir, "x.txt", b, err);
        CHECK_FALSE(r);
        CHECK(err.rfind(dir.file("x.txt") + ": ", 0) == 0);
        CHECK(err.find("not a capture file") != std::string::npos);
        CHECK(err.find("0x47455420") != std::string::npos);
        CHECK(err.find("(offset 0)") != std::string::npos);
    }
    SECTION("empty") {
        CHECK_FALSE(open_bytes(dir, "empty.pcap", {}, err));
        CHECK(err.find("empty file") != std::string::npos);
    }
    SECTION("too short for a magic") {
        CHECK_FALSE(open_bytes(dir, "short.pcap", {0xd4, 0xc3}, err));
        CHECK(err.find("too short") != std::string::npos);
    }
    SECTION("directory") {
        CHECK_FALSE(PcapFileReader::open(dir.path(), err));
        CHECK(err.find("directory") != std::string::npos);
    }
    SECTION("missing") {
        CHECK_FALSE(PcapFileReader::open(dir.file("nope.pcap"), err));
        CHECK(err.find("No such file") != std::string::npos);
    }
}

// The threaded analysis keeps a classic pcap's frames after the next read
// (a worker reads a segment's payload where it lies in the map, a few MB
// behind the reader). Pages the reader gave back and such a reader touched
// again are given back at the reader's next drop, so resident memory stays a
// window of the file, not the file; the bytes stay the file's.
TEST_CASE("mapped pcap: frames outlive the next read, and pages touched again behind the reader are given back") {
    TempDir dir;
    std::vector<Record> recs;
    constexpr size_t kFrame = 60000, kFrames = 800;  // 48 MB
    for (size_t i = 0; i < kFrames; ++i) {
        Bytes b(kFrame, uint8_t(i));
        recs.push_back({1700000000LL * 1000000000 + int64_t(i) * 1000, b});
    }
    const std::string path = dir.file("big.pcap");
    write_file(path, pcap_bytes(false, false, 1, recs));
    std::string error;
    auto r = PcapFileReader::open(path, error);
    REQUIRE(r);
    REQUIRE(r->frames_outlive_next());
    std::vector<std::span<const uint8_t>> lent;
    Frame f;
    unsigned long sum = 0;
    constexpr size_t kLag = (4u << 20) / kFrame;  // the "worker" reads 4 MB behind
    while (r->next(f) == PcapFileReader::Status::Ok) {
        lent.push_back(f.data);
        if (lent.size() > kLag)
            for (size_t at = 0; at < kFrame; at += 4096) sum += lent[lent.size() - 1 - kLag][at];
    }
    REQUIRE(lent.size() == kFrames);
    CHECK(sum > 0);
    const long kb = resident_kb_of(path);
    INFO("resident " << kb << " KB of a " << kFrame * kFrames / 1024 << " KB file");
    CHECK(kb < 16 * 1024);  // about 10 MB; 26 MB without the second drop
    for (size_t i : {size_t(0), kFrames / 2, kFrames - 1}) {
        CHECK(lent[i].size() == kFrame);
        CHECK(std::all_of(lent[i].begin(), lent[i].end(), [&](uint8_t b) { return b == uint8_t(i); }));
    }
}

TEST_CASE("pcapng frames do not outlive the next read") {
    TempDir dir;
    PcapngWriter w;
    w.shb();
    w.idb(1);
    w.epb(0, 1700000000LL * 1000000, tcp_frame(1));
    std::string error;
    const std::string path = dir.file("one.pcapng");
    write_file(path, w.bytes());
    auto r = PcapFileReader::open(path, error);
    REQUIRE(r);
    CHECK_FALSE(r->frames_outlive_next());
}
