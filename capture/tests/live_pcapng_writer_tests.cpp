// The streaming pcapng writer, read back by our own pcapng reader: blocks,
// nanosecond timestamps, offsets, flushing, and files cut by a kill.
#include "capture/pcap/pcap_file_reader.h"
#include "capture/pcap/pcapng_writer.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/pcapng_test_frames.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace stallscope;
using stallscope::test::Bytes;
using stallscope::test::TempDir;
using stallscope::test::frame_of;
using stallscope::test::lo_iface;
using stallscope::test::payload;

namespace {

struct ReadBack {
    std::vector<Frame> frames;  // data cleared; copies in data
    std::vector<Bytes> data;
    PcapFileReader::Status last = PcapFileReader::Status::Ok;
    std::string error;
    uint64_t error_offset = 0;
    std::string open_error;
};

ReadBack read_back(const std::string& path) {
    ReadBack out;
    auto r = PcapFileReader::open(path, out.open_error);
    if (!r) return out;
    Frame f;
    for (int guard = 0; guard < 2000000; ++guard) {
        out.last = r->next(f);
        if (out.last != PcapFileReader::Status::Ok) break;
        out.data.emplace_back(f.data.begin(), f.data.end());
        out.frames.push_back(f);
        out.frames.back().data = {};
    }
    out.error = r->error();
    out.error_offset = r->error_offset();
    return out;
}


uint64_t file_size(const std::string& p) {
    std::error_code ec;
    auto s = std::filesystem::file_size(p, ec);
    return ec ? 0 : uint64_t(s);
}


} // namespace

TEST_CASE("pcapng writer: frames read back with nanosecond timestamps, lengths and offsets", "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("w.pcapng");
    std::string err;
    auto w = PcapngStreamWriter::create(path, lo_iface(), "capture_tests", err);
    REQUIRE(w);
    const int64_t base = 1700000000123456789LL;
    std::vector<Bytes> sent;
    std::vector<uint64_t> offsets;
    for (uint64_t i = 0; i < 10; ++i) {
        sent.push_back(payload(i));
        uint64_t off = 0;
        // origlen larger than caplen for one frame: a snaplen-cut packet
        REQUIRE(w->write(frame_of(sent.back(), base + int64_t(i) * 1001, i == 3 ? 9000 : 0), 0, &off));
        offsets.push_back(off);
    }
    const uint64_t recv = 10, drop = 2;
    REQUIRE(w->close(&recv, &drop, base, base + 20000));

    ReadBack rb = read_back(path);
    REQUIRE(rb.open_error.empty());
    CHECK(rb.last == PcapFileReader::Status::End);  // the trailing statistics block is skipped
    REQUIRE(rb.frames.size() == sent.size());
    for (size_t i = 0; i < sent.size(); ++i) {
        CHECK(rb.frames[i].number == i + 1);
        CHECK(rb.frames[i].ts_ns == base + int64_t(i) * 1001);
        CHECK(rb.frames[i].linktype == 1);
        CHECK(rb.frames[i].origlen == (i == 3 ? 9000u : sent[i].size()));
        CHECK(rb.frames[i].file_offset == offsets[i]);
        CHECK(rb.data[i] == sent[i]);
    }
    CHECK(w->bytes_written() == file_size(path));
}

TEST_CASE("pcapng writer: a decryption secrets block is on disk at once and read before the packets after it",
          "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("dsb.pcapng");
    std::string err;
    auto w = PcapngStreamWriter::create(path, lo_iface(), "", err);
    REQUIRE(w);
    const Bytes first = payload(1), second = payload(2);
    REQUIRE(w->write(frame_of(first, 1000), 0));
    const std::string keys = "CLIENT_RANDOM 00 11\n";  // 19 bytes: the block pads to 4
    const uint64_t before = w->bytes_written();
    REQUIRE(w->write_secrets(0x544c534b, keys.data(), keys.size()));
    // Not closed, not ticked: the block (and the packet before it) is in the file already.
    CHECK(file_size(path) == w->bytes_written());
    CHECK(w->bytes_written() == before + 12 + 8 + 20);
    REQUIRE(w->write(frame_of(second, 2000), 0));
    REQUIRE(w->close());

    auto r = PcapFileReader::open(path, err);
    REQUIRE(r);
    std::vector<std::string> order;  // what the reader hands over, in order
    r->set_secrets_sink([&](uint32_t type, std::span<const uint8_t> data, uint64_t offset) {
        CHECK(type == 0x544c534bu);
        CHECK(offset == before);
        order.push_back("secrets:" + std::string(data.begin(), data.end()));
    });
    Frame f;
    for (int guard = 0; guard < 10 && r->next(f) == PcapFileReader::Status::Ok; ++guard)
        order.push_back("frame " + std::to_string(f.number));
    CHECK(order == std::vector<std::string>{"frame 1", "secrets:" + keys, "frame 2"});
}

TEST_CASE("pcapng writer: the file is a valid empty capture right after create", "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("empty.pcapng");
    std::string err;
    auto w = PcapngStreamWriter::create(path, lo_iface(), "", err);
    REQUIRE(w);
    // Not closed: a reader must already accept it (SHB + IDB are on disk).
    ReadBack rb = read_back(path);
    REQUIRE(rb.open_error.empty());
    CHECK(rb.last == PcapFileReader::Status::End);
    CHECK(rb.frames.empty());
}

TEST_CASE("pcapng writer: packets reach the file by count and by time without close", "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("flush.pcapng");
    std::string err;
    PcapngFlushPolicy pol;
    pol.flush_packets = 4;
    pol.flush_interval_ns = 1000;
    pol.flush_bytes = 1 << 30;
    auto w = PcapngStreamWriter::create(path, lo_iface(), "", err, pol);
    REQUIRE(w);
    std::vector<Bytes> sent;
    for (uint64_t i = 0; i < 3; ++i) {
        sent.push_back(payload(i));
        REQUIRE(w->write(frame_of(sent.back(), 1000 + int64_t(i)), 0));  // now = 0: time flush not due
    }
    CHECK(read_back(path).frames.empty());  // still buffered
    sent.push_back(payload(3));
    REQUIRE(w->write(frame_of(sent.back(), 1003), 0));  // 4th packet: flushed by count
    CHECK(read_back(path).frames.size() == 4);
    sent.push_back(payload(4));
    REQUIRE(w->write(frame_of(sent.back(), 1004), 0));
    CHECK(read_back(path).frames.size() == 4);
    REQUIRE(w->tick(5000));  // the interval has passed: flushed by time
    ReadBack rb = read_back(path);
    CHECK(rb.frames.size() == 5);
    CHECK(rb.last == PcapFileReader::Status::End);
}

TEST_CASE("pcapng writer: a file cut anywhere inside the last block reads up to the block before", "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("full.pcapng");
    std::string err;
    auto w = PcapngStreamWriter::create(path, lo_iface(), "", err);
    REQUIRE(w);
    std::vector<uint64_t> offsets;
    std::vector<Bytes> sent;
    for (uint64_t i = 0; i < 5; ++i) {
        sent.push_back(payload(i + 40));
        uint64_t off = 0;
        REQUIRE(w->write(frame_of(sent.back(), 5000 + int64_t(i)), 0, &off));
        offsets.push_back(off);
    }
    REQUIRE(w->close());  // no statistics: the file ends with the 5th packet block
    std::FILE* f = std::fopen(path.c_str(), "rb");
    REQUIRE(f);
    Bytes all(file_size(path));
    REQUIRE(std::fread(all.data(), 1, all.size(), f) == all.size());
    std::fclose(f);

    const uint64_t last = offsets.back();
    for (uint64_t cut = last; cut < all.size(); ++cut) {
        const std::string p = dir.file("cut.pcapng");
        test::write_file(p, Bytes(all.begin(), all.begin() + std::ptrdiff_t(cut)));
        ReadBack rb = read_back(p);
        INFO("cut at " << cut << " of " << all.size());
        REQUIRE(rb.frames.size() == 4);
        for (size_t i = 0; i < 4; ++i) CHECK(rb.data[i] == sent[i]);
        if (cut == last) {
            CHECK(rb.last == PcapFileReader::Status::End);
        } else {
            CHECK(rb.last == PcapFileReader::Status::Error);
            CHECK(rb.error_offset == last);
            CHECK(rb.error.find("truncated") != std::string::npos);
        }
    }
}

TEST_CASE("pcapng writer: a writer killed with SIGKILL leaves a readable file", "[live][writer]") {
    TempDir dir;
    const std::string path = dir.file("killed.pcapng");
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // Child: write packets as fast as possible until killed (bounded anyway).
        std::string e;
        PcapngFlushPolicy pol;
        pol.flush_packets = 7;  // flushes land at arbitrary points of the stream
        auto w = PcapngStreamWriter::create(path, lo_iface(), "", e, pol);
        if (!w) _exit(3);
        for (uint64_t i = 0; i < 20000000; ++i) {
            Bytes b = payload(i);
            if (!w->write(frame_of(b, int64_t(i) * 1000), int64_t(i))) _exit(4);
        }
        _exit(5);
    }
    // Parent: let it write a good amount, then kill it mid-stream.
    for (int i = 0; i < 1000 && file_size(path) < (256u << 10); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);

    ReadBack rb = read_back(path);
    REQUIRE(rb.open_error.empty());
    REQUIRE(rb.frames.size() > 100);
    // Every frame read is intact and in order; reading ends at the end of
    // the last whole block or at the torn block after it.
    for (size_t i = 0; i < rb.frames.size(); ++i) {
        REQUIRE(rb.data[i] == payload(i));
        REQUIRE(rb.frames[i].ts_ns == int64_t(i) * 1000);
    }
    if (rb.last == PcapFileReader::Status::Error) {
        CHECK(rb.error.find("truncated") != std::string::npos);
    } else {
        CHECK(rb.last == PcapFileReader::Status::End);
    }
}

TEST_CASE("pcapng writer: cannot create a file in a missing directory", "[live][writer]") {
    TempDir dir;
    std::string err;
    auto w = PcapngStreamWriter::create(dir.file("no/such/dir/x.pcapng"), lo_iface(), "", err);
    CHECK_FALSE(w);
    CHECK(err.find("cannot create") != std::string::npos);
}
