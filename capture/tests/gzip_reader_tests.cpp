// gzip-compressed captures: the same frames as the plain file, progress in
// compressed bytes, and a cut .gz reported as damage, never as a clean end.
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/read_all.h"

#include <catch2/catch.hpp>

#include <zlib.h>

#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;

namespace {

Bytes gzip_bytes(const Bytes& in) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);  // +16: gzip wrapper
    Bytes out(deflateBound(&z, uLong(in.size())) + 32);
    z.next_in = const_cast<Bytef*>(in.data());
    z.avail_in = uInt(in.size());
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// Records whose payloads do not compress to nothing, so a cut lands inside them.
std::vector<Record> many_records(size_t n) {
    std::vector<Record> recs;
    uint32_t x = 12345;
    for (size_t i = 0; i < n; ++i) {
        TcpSpec t;
        for (int k = 0; k < 200; ++k) t.payload.push_back(uint8_t((x = x * 1103515245 + 12345) >> 16));
        recs.push_back({1700000000LL * 1000000000 + int64_t(i) * 1000000, ethernet(0x0800, ipv4_packet(Ipv4Spec{}, tcp_segment(t)))});
    }
    return recs;
}


} // namespace

TEST_CASE("gzip-compressed pcap and pcapng: the plain file's frames, found by magic not name") {
    const auto recs = many_records(40);
    PcapngWriter ng;
    ng.shb();
    ng.idb(1, 262144, 9);
    for (const auto& r : recs) ng.epb(0, uint64_t(r.ts_ns), r.data);
    ng.block(0x0000000A, [] {  // a Decryption Secrets Block: TLSK, 4 bytes of key log
        Bytes b;
        put32le(b, 0x544c534b);
        put32le(b, 4);
        append(b, Bytes{'a', 'b', 'c', '\n'});
        return b;
    }());
    for (bool pcapng : {false, true}) {
        INFO("pcapng " << pcapng);
        const Bytes plain = pcapng ? ng.bytes() : pcap_bytes(true, false, 1, recs);
        TempDir dir;
        write_file(dir.file("plain"), plain);
        const Bytes gz = gzip_bytes(plain);
        const std::string path = dir.file("capture.bin");  // no .gz in the name
        write_file(path, gz);
        std::string err;
        auto p = PcapFileReader::open(dir.file("plain"), err);
        auto z = PcapFileReader::open(path, err);
        REQUIRE(p);
        REQUIRE(z);
        CHECK(z->format() == p->format() + " (gzip)");
        CHECK(z->file_size() == gz.size());
        int secrets = 0;
        z->set_secrets_sink([&](uint32_t type, std::span<const uint8_t> d, uint64_t) {
            secrets += type == 0x544c534b && d.size() == 4;
        });
        const auto a = read_all(*p), b = read_all(*z);
        CHECK(b.last == PcapFileReader::Status::End);
        REQUIRE(b.frames.size() == recs.size());
        REQUIRE(a.frames.size() == b.frames.size());
        for (size_t i = 0; i < a.frames.size(); ++i) {
            CHECK(b.frames[i].ts_ns == a.frames[i].ts_ns);
            CHECK(b.frames[i].file_offset == a.frames[i].file_offset);  // offsets in the decompressed capture
            CHECK(b.data[i] == a.data[i]);
        }
        CHECK(z->position() == z->file_size());
        CHECK(secrets == (pcapng ? 1 : 0));
    }
}

TEST_CASE("a cut .gz: the frames before the cut, then an error naming the file and the offset") {
    const auto recs = many_records(60);
    const Bytes gz = gzip_bytes(pcap_bytes(false, false, 1, recs));
    TempDir dir;
    SECTION("cut in the middle of the compressed data") {
        const std::string path = dir.file("cut.pcap.gz");
        write_file(path, Bytes(gz.begin(), gz.begin() + long(gz.size() / 2)));
        std::string err;
        auto r = PcapFileReader::open(path, err);
        REQUIRE(r);
        const auto all = read_all(*r);
        CHECK(all.frames.size() > 0);
        CHECK(all.frames.size() < recs.size());
        REQUIRE(all.last == PcapFileReader::Status::Error);
        CHECK(r->error().rfind(path + ": ", 0) == 0);
        CHECK(r->error().find("truncated gzip file") != std::string::npos);
        CHECK(r->error_offset() == pcap_record_offset(recs, all.frames.size()));  // the first record not read
        CHECK(r->error().find("(offset " + std::to_string(r->error_offset()) + ")") != std::string::npos);
        Frame f;
        CHECK(r->next(f) == PcapFileReader::Status::Error);  // sticky
    }
    SECTION("only the gzip trailer missing: every frame, then still an error, not a clean end") {
        const std::string path = dir.file("trailer.pcap.gz");
        write_file(path, Bytes(gz.begin(), gz.end() - 8));
        std::string err;
        auto r = PcapFileReader::open(path, err);
        REQUIRE(r);
        const auto all = read_all(*r);
        CHECK(all.frames.size() == recs.size());
        REQUIRE(all.last == PcapFileReader::Status::Error);
        CHECK(r->error().find("truncated gzip file") != std::string::npos);
    }
    SECTION("gzip of something that is not a capture") {
        const std::string path = dir.file("text.gz");
        write_file(path, gzip_bytes(Bytes(100, 'x')));
        std::string err;
        CHECK_FALSE(PcapFileReader::open(path, err));
        CHECK(err.rfind(path + ": gzip-compressed, but not a capture file inside", 0) == 0);
    }
    SECTION("gzip magic and nothing usable after it") {
        const std::string path = dir.file("broken.gz");
        write_file(path, Bytes{0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad});
        std::string err;
        CHECK_FALSE(PcapFileReader::open(path, err));
        CHECK(err.rfind(path + ": ", 0) == 0);
        CHECK(err.find("(offset 0)") != std::string::npos);
    }
}
