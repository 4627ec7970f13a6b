// The live capture's ring of files (dumpcap -b filesize: -b files:): files
// switch at their size, the oldest go when there are too many, the names are
// a file set `analyze` finds from any of them, and a writer killed with
// SIGKILL leaves every kept file readable with no frame missing between them.
#include "capture/pcap/file_set_reader.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/pcap/pcapng_ring_writer.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/pcapng_test_frames.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <regex>
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

// The files in `dir`, by name (the ring's names sort by number).
std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

struct SetRead {
    std::vector<uint64_t> index;   // payload index of each frame read, in order
    bool intact = true;            // every frame is payload(index) with its timestamp
    std::vector<std::string> notes;
};

// Reads `files` as one capture and identifies each frame by its payload.
SetRead read_set(const std::vector<std::string>& files) {
    SetRead out;
    std::string err;
    auto r = FileSetReader::open(files, err);
    if (!r) {
        out.notes.push_back(err);
        out.intact = false;
        return out;
    }
    Frame f;
    for (int guard = 0; guard < 5000000 && r->next(f) == PcapFileReader::Status::Ok; ++guard) {
        const uint64_t i = uint64_t(f.ts_ns / 1000);
        out.index.push_back(i);
        if (Bytes(f.data.begin(), f.data.end()) != payload(i) || f.ts_ns != int64_t(i) * 1000) out.intact = false;
    }
    for (const auto& n : r->notes()) out.notes.push_back(n.message);
    return out;
}

bool consecutive(const std::vector<uint64_t>& v) {
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] != v[i - 1] + 1) return false;
    return true;
}

} // namespace

TEST_CASE("pcapng ring: files switch at their size and are a file set analyze finds", "[live][writer][ring]") {
    TempDir dir;
    const std::string out = dir.file("run.pcapng");
    std::string err;
    RingOptions ring;
    ring.file_bytes = 8000;
    auto w = PcapngRingWriter::create(out, lo_iface(), "capture_tests", ring, err);
    REQUIRE(w);
    for (uint64_t i = 0; i < 1000; ++i) {
        Bytes b = payload(i);
        REQUIRE(w->write(frame_of(b, int64_t(i) * 1000), int64_t(i)));
    }
    REQUIRE(w->close());
    const std::vector<std::string> files = w->files();
    REQUIRE(files.size() > 5);
    CHECK(w->files_deleted() == 0);
    CHECK(files == files_in(dir.path()));
    CHECK_FALSE(std::filesystem::exists(out));   // a ring writes only the numbered files
    const std::regex name(R"(run_(\d{5})_\d{14}\.pcapng)");
    for (size_t i = 0; i < files.size(); ++i) {
        std::smatch m;
        const std::string base = std::filesystem::path(files[i]).filename().string();
        REQUIRE(std::regex_match(base, m, name));
        CHECK(std::stoul(m[1].str()) == i + 1);
        // Each file but the last has at least file_bytes, and only one packet past them.
        if (i + 1 < files.size()) CHECK(std::filesystem::file_size(files[i]) >= ring.file_bytes);
        if (i + 1 < files.size()) CHECK(std::filesystem::file_size(files[i]) < ring.file_bytes + 200);
    }
    std::vector<std::string> missing;
    CHECK(expand_file_set(files.back(), missing) == files);   // any file brings the set
    CHECK(missing.empty());
    const SetRead r = read_set(files);
    CHECK(r.intact);
    CHECK(r.index.size() == 1000);
    CHECK(consecutive(r.index));
    CHECK(r.index.front() == 0);
}

TEST_CASE("pcapng ring: -b files:N keeps the newest N files, and they hold the newest frames without a hole",
          "[live][writer][ring]") {
    TempDir dir;
    std::string err;
    RingOptions ring;
    ring.file_bytes = 4000;
    ring.files = 3;
    auto w = PcapngRingWriter::create(dir.file("keep.pcapng"), lo_iface(), "", ring, err);
    REQUIRE(w);
    for (uint64_t i = 0; i < 2000; ++i) {
        Bytes b = payload(i);
        REQUIRE(w->write(frame_of(b, int64_t(i) * 1000), int64_t(i)));
    }
    REQUIRE(w->close());
    CHECK(w->files().size() == 3);
    CHECK(w->files() == files_in(dir.path()));
    CHECK(w->files_deleted() > 5);
    CHECK(w->bytes_written() > 2 * ring.file_bytes);
    const SetRead r = read_set(w->files());
    CHECK(r.intact);
    CHECK(consecutive(r.index));
    REQUIRE_FALSE(r.index.empty());
    CHECK(r.index.back() == 1999);
}

TEST_CASE("pcapng ring: a writer killed with SIGKILL leaves every kept file readable, no frame missing between them",
          "[live][writer][ring]") {
    TempDir dir;
    const std::string out = dir.file("killed.pcapng");
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::string e;
        PcapngFlushPolicy pol;
        pol.flush_packets = 7;   // flushes land at arbitrary points of the stream
        RingOptions ring;
        ring.file_bytes = 64000;
        ring.files = 4;
        auto w = PcapngRingWriter::create(out, lo_iface(), "", ring, e, pol);
        if (!w) _exit(3);
        for (uint64_t i = 0; i < 20000000; ++i) {
            Bytes b = payload(i);
            if (!w->write(frame_of(b, int64_t(i) * 1000), int64_t(i))) _exit(4);
        }
        _exit(5);
    }
    // Let it go round the ring (file 7 and later exist: older ones were deleted), then kill it.
    const std::regex late(R"(killed_(\d{5})_\d{14}\.pcapng)");
    auto highest = [&] {
        unsigned long n = 0;
        for (const std::string& f : files_in(dir.path())) {
            std::smatch m;
            const std::string base = std::filesystem::path(f).filename().string();
            if (std::regex_match(base, m, late)) n = std::max(n, std::stoul(m[1].str()));
        }
        return n;
    };
    for (int i = 0; i < 1000 && highest() < 7; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));

    const std::vector<std::string> kept = files_in(dir.path());
    INFO(kept.size() << " files kept");
    REQUIRE(kept.size() >= 2);
    CHECK(kept.size() <= 4);
    // Every file but the newest reads to its end; the newest may end in a torn block.
    for (size_t i = 0; i + 1 < kept.size(); ++i) {
        std::string e;
        auto r = PcapFileReader::open(kept[i], e);
        REQUIRE(r);
        Frame f;
        PcapFileReader::Status st;
        for (int guard = 0; guard < 5000000 && (st = r->next(f)) == PcapFileReader::Status::Ok; ++guard) {}
        CHECK(st == PcapFileReader::Status::End);
    }
    const SetRead r = read_set(kept);
    CHECK(r.intact);
    CHECK(consecutive(r.index));   // no frame lost between the kept files
    CHECK(r.index.size() > 1000);
    for (const std::string& n : r.notes) CHECK(n.find("truncated") != std::string::npos);
}
