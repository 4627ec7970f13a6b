// Several capture files read as one (issue 24): order, numbering, location,
// overlap, missing and damaged members, and finding a ring's files by name.
#include "capture/pcap/file_set_reader.h"
#include "capture/tests/capture_writers.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {
// A pcap whose frames carry one byte each: the tag, to see which frame came out.
void write_tagged(const std::string& path, std::initializer_list<std::pair<int64_t, uint8_t>> frames) {
    std::vector<Record> recs;
    for (auto [ts, tag] : frames) recs.push_back({ts, Bytes{tag}, 0});
    write_file(path, pcap_bytes(false, false, 1, recs));
}

struct Out { std::vector<uint8_t> tags; std::vector<uint64_t> numbers; };
Out read_all(FileSetReader& r) {
    Out o;
    Frame f;
    while (r.next(f) == PcapFileReader::Status::Ok) { o.tags.push_back(f.data[0]); o.numbers.push_back(f.number); }
    return o;
}
} // namespace

TEST_CASE("file set: files read in time order, frames numbered across the set, each located as file + frame") {
    TempDir d;
    write_tagged(d.file("b.pcap"), {{3000, 3}, {4000, 4}});
    write_tagged(d.file("a.pcap"), {{1000, 1}, {2000, 2}});
    std::string err;
    auto r = FileSetReader::open({d.file("b.pcap"), d.file("a.pcap")}, err);  // given out of order
    REQUIRE(r);
    Out o = read_all(*r);
    CHECK(o.tags == std::vector<uint8_t>{1, 2, 3, 4});
    CHECK(o.numbers == std::vector<uint64_t>{1, 2, 3, 4});
    uint32_t file = 9;
    uint64_t frame = 0;
    REQUIRE(r->locate(3, file, frame));
    CHECK(r->files()[file] == d.file("b.pcap"));
    CHECK(frame == 1);
    REQUIRE(r->locate(2, file, frame));
    CHECK(r->files()[file] == d.file("a.pcap"));
    CHECK(frame == 2);
    CHECK_FALSE(r->locate(5, file, frame));
    CHECK(r->notes().empty());
}

TEST_CASE("file set: files that overlap in time are merged by timestamp") {
    TempDir d;
    write_tagged(d.file("x.pcap"), {{1000, 1}, {3000, 3}, {5000, 5}});
    write_tagged(d.file("y.pcap"), {{2000, 2}, {4000, 4}, {6000, 6}});
    std::string err;
    auto r = FileSetReader::open({d.file("x.pcap"), d.file("y.pcap")}, err);
    REQUIRE(r);
    CHECK(read_all(*r).tags == std::vector<uint8_t>{1, 2, 3, 4, 5, 6});
    CHECK(r->runs().size() == 6);
    uint32_t file = 0;
    uint64_t frame = 0;
    REQUIRE(r->locate(6, file, frame));
    CHECK(file == 1);
    CHECK(frame == 3);
}

TEST_CASE("file set: a missing or damaged member is a note and a gap, not an error") {
    TempDir d;
    write_tagged(d.file("1.pcap"), {{1000, 1}});
    write_file(d.file("2.pcap"), Bytes{'n', 'o', 'p', 'e'});
    write_tagged(d.file("4.pcap"), {{4000, 4}});
    std::string err;
    auto r = FileSetReader::open({d.file("1.pcap"), d.file("2.pcap"), d.file("3.pcap"), d.file("4.pcap")}, err);
    REQUIRE(r);
    CHECK(read_all(*r).tags == std::vector<uint8_t>{1, 4});
    REQUIRE(r->notes().size() == 2);
    CHECK(r->notes()[0].message.find("2.pcap") != std::string::npos);
    CHECK(r->notes()[1].message.find("3.pcap") != std::string::npos);
    CHECK(r->notes()[1].message.find("gap in the file set") != std::string::npos);

    std::string err2;
    CHECK_FALSE(FileSetReader::open({d.file("3.pcap")}, err2));
    CHECK(err2.find("3.pcap") != std::string::npos);
}

TEST_CASE("file set: a dumpcap ring and tcpdump -C files are found from the first one, holes named") {
    TempDir d;
    for (const char* n : {"run_00001_20261126093000.pcapng", "run_00002_20261126093100.pcapng",
                          "run_00004_20261126093300.pcapng", "other_00003_20261126093200.pcapng"})
        write_tagged(d.file(n), {{1000, 1}});
    std::vector<std::string> missing;
    auto set = expand_file_set(d.file("run_00001_20261126093000.pcapng"), missing);
    REQUIRE(set.size() == 3);
    CHECK(set[0] == d.file("run_00001_20261126093000.pcapng"));
    CHECK(set[2] == d.file("run_00004_20261126093300.pcapng"));
    REQUIRE(missing.size() == 1);
    CHECK(missing[0] == d.file("run_00003_*.pcapng"));

    for (const char* n : {"dump", "dump1", "dump2", "dump10x"}) write_tagged(d.file(n), {{1000, 1}});
    missing.clear();
    set = expand_file_set(d.file("dump"), missing);
    CHECK(set == std::vector<std::string>{d.file("dump"), d.file("dump1"), d.file("dump2")});
    CHECK(missing.empty());

    missing.clear();
    CHECK(expand_file_set(d.file("other_00003_20261126093200.pcapng"), missing).size() == 1);
}

TEST_CASE("file set: a member of no bytes (a ring's newest, killed before its header) is empty, not a gap") {
    TempDir d;
    write_tagged(d.file("1.pcap"), {{1000, 1}, {2000, 2}});
    write_file(d.file("2.pcap"), Bytes{});
    std::string err;
    auto r = FileSetReader::open({d.file("1.pcap"), d.file("2.pcap")}, err);
    REQUIRE(r);
    CHECK(read_all(*r).tags == std::vector<uint8_t>{1, 2});
    CHECK(r->notes().empty());

    std::string err2;   // a set of only such files has nothing to read
    CHECK_FALSE(FileSetReader::open({d.file("2.pcap")}, err2));
    CHECK(err2.find("2.pcap") != std::string::npos);
}
