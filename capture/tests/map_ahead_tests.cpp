// A mapped capture's work ahead (PcapFileReader::ahead_work): where it maps
// next, that it maps the pages the reader reads next, and that those pages
// stay inside the reader's window (given back behind it).
#include "capture/pcap/map_ahead.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/resident_memory.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // as map_ahead.cpp: Linux 5.14
#endif

using namespace stallscope;
using namespace stallscope::capture_detail;
using namespace stallscope::test;

TEST_CASE("map ahead: whole pages, from the reader's page or where the last step ended, at most the limit past the reader") {
    constexpr uint64_t page = 4096, size = 100u << 20;
    SECTION("first step: from the reader's page") {
        const ByteRange r = next_map_ahead(5000, 0, size, page);
        CHECK(r.from == 4096);
        CHECK(r.to == 4096 + kMapAheadStep);
    }
    SECTION("from where the last step ended") {
        const ByteRange r = next_map_ahead(5000, 64u << 10, size, page);
        CHECK(r.from == 64u << 10);
        CHECK(r.to == (64u << 10) + kMapAheadStep);
    }
    SECTION("never behind the reader") {
        const ByteRange r = next_map_ahead((20u << 20) + 100, 3u << 20, size, page);
        CHECK(r.from == 20u << 20);
    }
    SECTION("never past the limit, in whole pages") {
        const uint64_t reader = (10u << 20) + 100;
        const ByteRange r = next_map_ahead(reader, reader + kMapAheadLimit - 8192, size, page);
        CHECK(r.to == (reader + kMapAheadLimit) / page * page);
        CHECK(r.to % page == 0);
        CHECK(next_map_ahead(reader, r.to, size, page).empty());
    }
    SECTION("never past the file's last page") {
        const ByteRange r = next_map_ahead(size - 10000, size - 8192, size + 100, page);
        CHECK(r.to == size + page);
        CHECK(next_map_ahead(size, r.to, size + 100, page).empty());
    }
}

namespace {
constexpr size_t kFrame = 60000;

std::string big_capture(const TempDir& dir, size_t frames) {
    std::vector<Record> recs;
    for (size_t i = 0; i < frames; ++i) recs.push_back({1700000000LL * 1000000000 + int64_t(i) * 1000, Bytes(kFrame, uint8_t(i))});
    const std::string path = dir.file("big.pcap");
    write_file(path, pcap_bytes(false, false, 1, recs));
    return path;
}

std::unique_ptr<PcapFileReader> open_capture(const std::string& path) {
    std::string error;
    auto r = PcapFileReader::open(path, error);
    INFO(error);
    REQUIRE(r);
    return r;
}
constexpr size_t kBigFrames = 1200;  // 72 MB

// Whether this kernel maps a file's pages on request (MADV_POPULATE_READ,
// Linux 5.14). Older ones refuse it, and the work ahead then does nothing
// (the reader faults its pages in itself): the tests of what it maps say so
// (a warning, here) and stop there.
bool kernel_maps_ahead(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    void* p = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    REQUIRE(p != MAP_FAILED);
    const bool ok = ::madvise(p, 4096, MADV_POPULATE_READ) == 0;
    ::munmap(p, 4096);
    if (!ok) WARN("this kernel refuses MADV_POPULATE_READ: nothing is mapped ahead here");
    return ok;
}
} // namespace

TEST_CASE("map ahead: a mapped capture maps the pages ahead of its reader, and no further") {
    TempDir dir;
    const std::string path = big_capture(dir, 400);  // 24 MB
    auto r = open_capture(path);
    PcapFileReader::AheadWork work = r->ahead_work();
    REQUIRE(work);
    if (!kernel_maps_ahead(path)) return;
    CHECK(resident_kb_of(path) < 1024);  // nothing read yet
    int steps = 0;
    while (steps < 100 && work()) ++steps;
    CHECK(steps == int(kMapAheadLimit / kMapAheadStep));
    const long kb = resident_kb_of(path);
    CHECK(kb >= long(kMapAheadLimit / 1024) - 8);
    CHECK(kb <= long(kMapAheadLimit / 1024) + 8);
    Frame f;
    REQUIRE(r->next(f) == PcapFileReader::Status::Ok);
    CHECK(f.data[0] == 0);
    CHECK_FALSE(work());  // the reader has not moved a step on
}

// Mapped ahead by a "worker" at every record and read 4 MB behind by
// another, the 72 MB file stays a window of resident pages: the reader
// gives back what was mapped ahead once it is behind it, and the bytes stay
// the file's.
TEST_CASE("map ahead: pages mapped ahead are given back behind the reader") {
    TempDir dir;
    constexpr size_t kFrames = kBigFrames;
    const std::string path = big_capture(dir, kFrames);
    auto r = open_capture(path);
    PcapFileReader::AheadWork work = r->ahead_work();
    REQUIRE(work);
    if (!kernel_maps_ahead(path)) return;
    std::vector<std::span<const uint8_t>> lent;
    Frame f;
    unsigned long sum = 0;
    long peak_kb = 0;
    int steps = 0;
    constexpr size_t kLag = (4u << 20) / kFrame;
    while (r->next(f) == PcapFileReader::Status::Ok) {
        lent.push_back(f.data);
        while (work()) ++steps;
        if (lent.size() > kLag)
            for (size_t at = 0; at < kFrame; at += 4096) sum += lent[lent.size() - 1 - kLag][at];
        if (lent.size() % 50 == 0) peak_kb = std::max(peak_kb, resident_kb_of(path));
    }
    REQUIRE(lent.size() == kFrames);
    CHECK(sum > 0);
    CHECK(steps >= int(kFrames * kFrame / kMapAheadStep) - 1);  // every MB mapped ahead
    INFO("peak resident " << peak_kb << " KB of a " << kFrame * kFrames / 1024 << " KB file");
    CHECK(peak_kb < 28 * 1024);  // two drop windows behind the reader and the limit ahead of it
    for (size_t i : {size_t(0), kFrames / 2, kFrames - 1})
        CHECK(std::all_of(lent[i].begin(), lent[i].end(), [&](uint8_t b) { return b == uint8_t(i); }));
}

TEST_CASE("map ahead: readers that copy their frames have no work ahead") {
    TempDir dir;
    PcapngWriter w;
    w.shb();
    w.idb(1);
    w.epb(0, 1700000000LL * 1000000, Bytes(60, 1));
    const std::string path = dir.file("one.pcapng");
    write_file(path, w.bytes());
    CHECK_FALSE(open_capture(path)->ahead_work());
}

// Once helped, the reader leaves each drop to a helper; a drop none took is
// done by the reader at its next drop, so pages are given back without one.
TEST_CASE("map ahead: a drop no helper takes is done by the reader at its next") {
    TempDir dir;
    constexpr size_t kFrames = kBigFrames;
    const std::string path = big_capture(dir, kFrames);
    auto r = open_capture(path);
    PcapFileReader::AheadWork work = r->ahead_work();  // helped, but never called
    REQUIRE(work);
    Frame f;
    long peak_kb = 0;
    size_t n = 0;
    unsigned long sum = 0;
    while (r->next(f) == PcapFileReader::Status::Ok) {
        for (size_t at = 0; at < f.data.size(); at += 4096) sum += f.data[at];
        if (++n % 50 == 0) peak_kb = std::max(peak_kb, resident_kb_of(path));
    }
    REQUIRE(n == kFrames);
    CHECK(sum > 0);
    INFO("peak resident " << peak_kb << " KB of a " << kFrame * kFrames / 1024 << " KB file");
    CHECK(peak_kb < 28 * 1024);  // the drops' window and one drop waiting
    CHECK(work());  // the last drop, left waiting, is a helper's step
}
