// The streaming report mode: the spill file, the order items come back in,
// and reports of every bundled capture identical whether the calls stayed
// in memory or went through the spill file.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/streaming_analysis.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/spill/spill_file.h"
#include "analyzers/spill/spill_scan.h"
#include "analyzers/tests/capture_files.h"
#include "capture/pcap/pcap_file_reader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> bundled_captures() { return test::bundled_captures(STALLSCOPE_TESTDATA_DIR); }

std::unique_ptr<SpillFile> temp_spill() {
    std::string error;
    auto f = SpillFile::create("", error);
    REQUIRE(f);
    return f;
}

} // namespace

TEST_CASE("spill file: records read back exactly, before and after they leave the write buffer", "[spill-mode]") {
    auto f = temp_spill();
    std::vector<std::pair<uint64_t, std::string>> recs;
    std::string out;
    for (int i = 0; i < 3000; ++i) {  // about 3 MB: several buffer flushes
        std::string r(size_t(1 + (i * 7919) % 2000), char('a' + i % 26));
        r += std::to_string(i);
        recs.push_back({f->append(r), r});
        // A record still in the buffer reads back too.
        f->read(recs.back().first, uint32_t(r.size()), out);
        REQUIRE(out == r);
    }
    for (size_t i = 0; i < recs.size(); i += 97) {
        f->read(recs[i].first, uint32_t(recs[i].second.size()), out);
        CHECK(out == recs[i].second);
    }
    CHECK_THROWS_AS(f->read(f->size() + 10, 5, out), SpillError);
}

TEST_CASE("spill scan: records through its windows read as written, in any order, long ones declined", "[spill-mode]") {
    auto f = temp_spill();
    std::vector<std::pair<uint64_t, std::string>> recs;  // offset of the length, the bytes
    uint64_t x = 99;
    auto rnd = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
    for (int i = 0; i < 4000; ++i) {
        // Mostly short, some about a block, a few longer than one (declined).
        size_t n = rnd() % 50 == 0 ? SpillScan::kWindowBytes - 8 + rnd() % 16 : rnd() % 3000;
        if (i % 997 == 5) n = SpillScan::kWindowBytes * 2;
        std::string r(n, char('a' + i % 26));
        if (n) r[n / 2] = char(rnd());
        const uint32_t len = uint32_t(n);
        const uint64_t at = f->append(std::string_view(reinterpret_cast<const char*>(&len), 4));
        f->append(r);
        recs.push_back({at, r});
    }
    f->flush();  // the scan maps the written part only (the rest it declines: see below)
    auto check_order = [&](const std::vector<size_t>& order) {
        SpillScan scan(*f);
        size_t declined = 0;
        for (size_t i : order) {
            auto got = scan.record(recs[i].first);
            if (!got) {
                ++declined;
                REQUIRE(recs[i].second.size() + 4 > SpillScan::kWindowBytes);  // only records longer than a block
                continue;
            }
            REQUIRE(*got == recs[i].second);
        }
        return declined;
    };
    std::vector<size_t> order(recs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const size_t long_ones = size_t(std::count_if(recs.begin(), recs.end(), [](auto& r) { return r.second.size() + 4 > SpillScan::kWindowBytes; }));
    CHECK(check_order(order) == long_ones);
    std::reverse(order.begin(), order.end());
    CHECK(check_order(order) == long_ones);
    for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rnd() % (i + 1)]);
    CHECK(check_order(order) == long_ones);
    std::vector<size_t> two_streams;  // how calls come back in id order: two places in the file in turn
    for (size_t i = 0; i < recs.size() / 2; ++i) {
        two_streams.push_back(i);
        two_streams.push_back(recs.size() / 2 + i);
    }
    CHECK(check_order(two_streams) == long_ones);
    SpillScan scan(*f);
    CHECK_FALSE(scan.record(f->size()));
    CHECK_FALSE(scan.record(f->size() - 2));  // no room for a length
}

TEST_CASE("spill scan: windows on a fixed grid, each mapped once by a walk that stays within them", "[spill-mode]") {
    auto f = temp_spill();
    std::vector<std::pair<uint64_t, std::string>> recs;
    uint64_t x = 7;
    auto rnd = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
    while (f->size() < 6 * uint64_t(SpillScan::kWindowBytes)) {  // many records straddle two windows; all kept at once
        std::string r(size_t(1 + rnd() % 3000), char('a' + recs.size() % 26));
        r[r.size() / 2] = char(rnd());
        const uint32_t len = uint32_t(r.size());
        recs.push_back({f->append(std::string_view(reinterpret_cast<const char*>(&len), 4)), r});
        f->append(r);
    }
    f->flush();
    const uint64_t windows = (f->size() + SpillScan::kWindowBytes - 1) / SpillScan::kWindowBytes;
    auto walk = [&](const std::vector<size_t>& order) {
        SpillScan scan(*f);
        for (size_t i : order) {
            auto got = scan.record(recs[i].first);
            REQUIRE(got);
            REQUIRE(*got == recs[i].second);
        }
        return scan.windows_mapped();
    };
    std::vector<size_t> order(recs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    CHECK(walk(order) == windows);  // windows starting at each record would overlap: more maps
    std::reverse(order.begin(), order.end());
    CHECK(walk(order) == windows);
    std::vector<size_t> two_streams;  // two places in the file in turn, as calls in id order
    for (size_t i = 0; i < recs.size() / 2; ++i) {
        two_streams.push_back(i);
        two_streams.push_back(recs.size() / 2 + i);
    }
    CHECK(walk(two_streams) == windows);
}

TEST_CASE("spill scan: the append buffer declined, a window mapped again once the file grew", "[spill-mode]") {
    auto f = temp_spill();
    auto put = [&](const std::string& r) {
        const uint32_t len = uint32_t(r.size());
        const uint64_t at = f->append(std::string_view(reinterpret_cast<const char*>(&len), 4));
        f->append(r);
        return at;
    };
    const uint64_t a = put("first");
    f->flush();
    SpillScan scan(*f);
    REQUIRE(scan.record(a) == std::optional<std::string_view>("first"));
    const uint64_t b = put("second, still in the append buffer");
    CHECK_FALSE(scan.record(b));  // the caller reads it the slow way (which writes the buffer out)
    f->flush();
    REQUIRE(scan.record(b) == std::optional<std::string_view>("second, still in the append buffer"));
    CHECK(scan.windows_mapped() == 2);
    CHECK(scan.record(a) == std::optional<std::string_view>("first"));
    CHECK(scan.windows_mapped() == 2);
    // A length that runs past the end is declined (the caller's slow read names the error).
    const uint32_t huge = 1000;
    const uint64_t c = f->append(std::string_view(reinterpret_cast<const char*>(&huge), 4));
    f->append("short");
    f->flush();
    CHECK_FALSE(scan.record(c));
    CHECK_FALSE(scan.record(f->size() - 2));  // no room for a length
}

TEST_CASE("spill file: a read past the end names the spill directory and the offset", "[spill-mode]") {
    std::string error;
    auto f = SpillFile::create("/tmp", error);
    REQUIRE(f);
    f->append("abc");
    std::string out;
    try {
        f->read(12345, 5, out);
        FAIL("no error");
    } catch (const SpillError& e) {
        const std::string what = e.what();
        CHECK(what.find("/tmp") != std::string::npos);
        CHECK(what.find("12345") != std::string::npos);
    }
}

TEST_CASE("spill file: an unusable directory is refused with its name", "[spill-mode]") {
    std::string error;
    auto f = SpillFile::create("/nonexistent-stallscope-dir", error);
    CHECK_FALSE(f);
    CHECK(error.find("/nonexistent-stallscope-dir") != std::string::npos);
}

TEST_CASE("spill: items come back in report order whatever order they went in", "[spill-mode]") {
    ResultSpill s(temp_spill());
    for (uint64_t id : {5, 2, 9, 1}) {
        Call c;
        c.id = id;
        c.uri = "/call/" + std::to_string(id);
        s.add(c);
        Connection k;
        k.id = 10 - id;
        s.add(k);
    }
    auto finding = [](const char* kind, std::vector<uint64_t> calls, double cost) {
        Finding f;
        f.kind = kind;
        f.calls = std::move(calls);
        f.cost_ms = cost;
        f.explanation = "why " + std::to_string(cost);
        f.frames = {uint64_t(cost) + 10, 3};
        return f;
    };
    s.add(finding("split_write", {5}, 1));
    s.add(finding("nagle_delayed_ack", {5}, 2));
    s.add(finding("split_write", {2}, 3));
    s.add(finding("split_write", {5}, 4));  // same call and kind as the first: arrival order
    s.add(finding("message_size", {1, 2, 5}, 0));
    std::vector<double> seen_costs;
    s.seal([&](Finding& f) {
        seen_costs.push_back(f.cost_ms);
        CHECK(f.explanation.empty());  // brief: the text stays on file as it was
        f.counted_ms = f.cost_ms / 2;
        f.details.push_back({"final", std::to_string(f.cost_ms)});
    });
    CHECK(seen_costs == std::vector<double>{0, 3, 2, 1, 4});

    std::vector<uint64_t> ids;
    s.each_call([&](const Call& c) { ids.push_back(c.id); CHECK(c.uri == "/call/" + std::to_string(c.id)); return true; });
    CHECK(ids == std::vector<uint64_t>{1, 2, 5, 9});
    ids.clear();
    s.each_connection([&](const Connection& c) { ids.push_back(c.id); return true; });
    CHECK(ids == std::vector<uint64_t>{1, 5, 8, 9});
    std::vector<double> costs;
    s.each_finding([&](const Finding& f) {
        costs.push_back(f.cost_ms);
        CHECK(f.counted_ms == f.cost_ms / 2);  // what seal changed is kept
        CHECK(f.details == std::vector<std::pair<std::string, std::string>>{{"final", std::to_string(f.cost_ms)}});
        CHECK(f.explanation == "why " + std::to_string(f.cost_ms));  // and what it did not see, as it was
        CHECK(f.frames == std::vector<uint64_t>{uint64_t(f.cost_ms) + 10, 3});
        return true;
    });
    CHECK(costs == seen_costs);
    // By id: the ids with no item (3, 4, ...) are not found, the others are.
    Call c;
    CHECK(s.call_count() == 4);
    for (uint64_t id : {0, 3, 4, 6, 10})
        CHECK_FALSE(s.find_call(id, c));
    REQUIRE(s.find_call(9, c));
    CHECK(c.uri == "/call/9");
    s.call_at(2, c);
    CHECK(c.id == 5);
    Connection k;
    CHECK_FALSE(s.find_connection(2, k));
    REQUIRE(s.find_connection(8, k));
    CHECK(k.id == 8);
    size_t n = 0;
    s.each_call([&](const Call&) { return ++n < 2; });  // false stops
    CHECK(n == 2);
}

// seal() and each_finding() decode into one reused finding per kind (the
// kinds alternate in report order, each with its own details): every finding
// must still come back as it went in, whatever kind came before it, also a
// kind too long for the one-byte length each_finding reads the kind by.
TEST_CASE("spill: findings of alternating kinds come back whole through the per-kind buffers", "[spill-mode]") {
    ResultSpill s(temp_spill());
    const std::string long_kind(200, 'k');
    const std::vector<std::string> kinds = {"connection_setup", "nagle_delayed_ack", long_kind, "split_write"};
    std::vector<Finding> in;
    for (uint64_t call = 1; call <= 12; ++call) {
        Finding f;
        f.kind = kinds[call % kinds.size()];
        f.calls = {call};
        f.cost_ms = double(call);
        f.explanation = "finding of call " + std::to_string(call) + std::string(call * 5, '.');
        f.frames = {call, call + 100};
        for (uint64_t d = 0; d < call % 5; ++d)  // 0..4 details, of lengths that change from call to call
            f.details.push_back({"detail_key_longer_than_fifteen_" + std::to_string(d), std::string(call + d * 20, 'v')});
        s.add(f);
        in.push_back(f);
    }
    s.seal([](Finding& f) { f.counted_ms = f.cost_ms + 0.5; });
    for (Finding& f : in) f.counted_ms = f.cost_ms + 0.5;
    // Report order: by first call (one finding a call here).
    for (bool brief : {false, true}) {
        size_t i = 0;
        s.each_finding([&](const Finding& f) {
            REQUIRE(i < in.size());
            const Finding& want = in[i++];
            CHECK(f.kind == want.kind);
            CHECK(f.calls == want.calls);
            CHECK(f.counted_ms == want.counted_ms);
            CHECK(f.details == want.details);
            CHECK(f.explanation == (brief ? "" : want.explanation));
            CHECK(f.frames == (brief ? std::vector<uint64_t>{} : want.frames));
            return true;
        }, brief);
        CHECK(i == in.size());
    }
}

// A kind whose final touch changes counted_ms only (changes_more says no)
// is read lean and its record copied with counted_ms set; the others go the
// brief round trip. Both must come back as the finding with its changes, in
// any mix, and a lean finding given details is refused (they would be lost).
TEST_CASE("spill: findings the seal copies with counted_ms set come back as if encoded again", "[spill-mode]") {
    const std::vector<std::string> kinds = {"connection_setup", "nagle_delayed_ack", "split_write", "retransmission"};
    auto changes_more = [](const std::string& kind) { return kind == "connection_setup"; };
    uint64_t x = 12345;
    auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return x >> 33; };
    for (int round = 0; round < 20; ++round) {
        ResultSpill s(temp_spill());
        std::vector<Finding> in;
        const size_t n = 1 + next() % 60;
        for (size_t i = 0; i < n; ++i) {
            Finding f;
            f.kind = kinds[next() % kinds.size()];
            f.side = next() % 2 ? Side::Client : Side::Server;
            f.calls = {1 + next() % 30};
            if (next() % 3 == 0) f.calls.push_back(f.calls[0] + 1 + next() % 5);
            f.cost_ms = double(next() % 100000) / 7.0;
            f.counted_ms = double(next() % 1000);
            f.explanation = std::string(next() % 400, 'e');
            f.fix = "fix " + std::to_string(i);
            f.frames = {next() % 1000, next() % 100000};
            f.start_ns = int64_t(next());
            f.end_ns = f.start_ns + int64_t(next() % 1000000);
            for (uint64_t d = next() % 6; d > 0; --d)
                f.details.push_back({"key_" + std::to_string(d), std::string(next() % 40, 'v')});
            if (next() % 2) f.intervals.push_back({f.start_ns, f.end_ns});
            s.add(f);
            in.push_back(f);
        }
        size_t lean_seen = 0;
        s.seal([&](Finding& f) {
            if (!changes_more(f.kind)) {
                ++lean_seen;
                CHECK(f.details.empty());  // read lean
            } else {
                f.details.push_back({"calls_on_own_connection", "3 of 40"});
            }
            f.counted_ms = f.cost_ms * 0.5 + double(f.calls.size());
        }, changes_more);
        std::stable_sort(in.begin(), in.end(), [](const Finding& a, const Finding& b) {
            return a.calls[0] != b.calls[0] ? a.calls[0] < b.calls[0] : a.kind < b.kind;
        });
        size_t lean_want = 0;
        for (Finding& f : in) {
            if (changes_more(f.kind)) f.details.push_back({"calls_on_own_connection", "3 of 40"});
            else ++lean_want;
            f.counted_ms = f.cost_ms * 0.5 + double(f.calls.size());
        }
        CHECK(lean_seen == lean_want);
        size_t i = 0;
        s.each_finding([&](const Finding& f) {
            REQUIRE(i < in.size());
            const Finding& want = in[i++];
            CHECK(f.kind == want.kind);
            CHECK(f.side == want.side);
            CHECK(f.calls == want.calls);
            CHECK(f.frames == want.frames);
            CHECK(f.cost_ms == want.cost_ms);
            CHECK(f.explanation == want.explanation);
            CHECK(f.fix == want.fix);
            CHECK(f.start_ns == want.start_ns);
            CHECK(f.end_ns == want.end_ns);
            CHECK(f.details == want.details);
            CHECK(f.intervals.size() == want.intervals.size());
            CHECK(f.counted_ms == want.counted_ms);
            return true;
        });
        CHECK(i == in.size());
    }
    ResultSpill s(temp_spill());
    Finding f;
    f.kind = "split_write";
    f.calls = {1};
    s.add(f);
    CHECK_THROWS_AS(s.seal([](Finding& g) { g.details.push_back({"a", "b"}); }, changes_more), std::logic_error);
}

TEST_CASE("spill: every bundled capture reports the same through the spill file", "[spill-mode]") {
    auto captures = bundled_captures();
    REQUIRE(captures.size() >= 20);
    for (const std::string& path : captures) {
        INFO(path);
        AnalyzeOutcome mem = analyze_file(path);
        AnalysisOptions opt;
        opt.spill_after_calls = 0;
        AnalyzeOutcome spilled = analyze_file(path, opt);
        REQUIRE(mem.ok);
        REQUIRE(spilled.ok);
        CHECK_FALSE(mem.result.spill);
        if (mem.result.calls.empty()) continue;
        REQUIRE(spilled.result.spill);
        CHECK(spilled.result.calls.empty());
        CHECK(spilled.result.findings.empty());
        CHECK(call_count(spilled.result) == mem.result.calls.size());
        CHECK(finding_count(spilled.result) == mem.result.findings.size());
        CHECK(report_json(spilled.result) == report_json(mem.result));
        CHECK(report_csv(spilled.result) == report_csv(mem.result));
        CHECK(report_text(spilled.result) == report_text(mem.result));
    }
}

TEST_CASE("spill: with no usable spill directory the analysis keeps calls in memory and says so", "[spill-mode]") {
    std::string path = std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-apache-soap.pcap";
    AnalysisOptions opt;
    opt.spill_after_calls = 0;
    opt.spill_dir = "/nonexistent-stallscope-dir";
    AnalyzeOutcome o = analyze_file(path, opt);
    REQUIRE(o.ok);
    CHECK_FALSE(o.result.spill);
    CHECK_FALSE(o.result.calls.empty());
    bool warned = false;
    for (auto& w : o.result.capture.warnings)
        warned = warned || (w.message.find("/nonexistent-stallscope-dir") != std::string::npos &&
                            w.message.find("keeping every call in memory") != std::string::npos);
    CHECK(warned);
    CHECK(report_json(o.result).find("keeping every call in memory") != std::string::npos);
}

TEST_CASE("live snapshots of a spilling analysis stay bounded: a soak of many calls", "[spill-mode]") {
    // A bundled capture (6 HTTP/1.0 calls, one connection each) replayed
    // 3000 times, each replay 2 s after the previous one (its connections
    // closed and swept by then): 18,000 calls, as a capture left running.
    std::string error;
    auto reader = PcapFileReader::open(std::string(STALLSCOPE_TESTDATA_DIR) + "/toolkit-zeep-spyne.pcap", error);
    REQUIRE(reader);
    struct Stored { Frame frame; std::vector<uint8_t> bytes; };
    std::vector<Stored> frames;
    Frame f;
    while (reader->next(f) == PcapFileReader::Status::Ok) {
        frames.push_back({f, std::vector<uint8_t>(f.data.begin(), f.data.end())});
    }
    REQUIRE(frames.size() == 118);
    AnalysisOptions o;
    o.keep_segments = true;            // as the GUI's live view
    o.spill_after_calls = 50;
    o.snapshot_recent_calls = 100;
    Analyzer a(o, "soak");
    constexpr int kReplays = 3000;
    constexpr int64_t kGapNs = 2'000'000'000;
    uint64_t number = 0;
    size_t max_calls = 0, max_findings = 0, max_connections = 0, snapshots = 0;
    auto rss_mb = [] {
        long pages = 0, resident = 0;
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
            std::fclose(f);
        }
        return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1048576.0;
    };
    double rss_warm = 0;
    for (int rep = 0; rep < kReplays; ++rep) {
        if (rep == 300) rss_warm = rss_mb();
        for (const Stored& s : frames) {
            Frame g = s.frame;
            g.number = ++number;
            g.ts_ns = s.frame.ts_ns + int64_t(rep) * kGapNs;
            g.data = std::span<const uint8_t>(s.bytes);
            a.on_frame(g);
        }
        if (rep % 50 == 49) {
            const AnalysisResult snap = a.snapshot();
            ++snapshots;
            max_calls = std::max(max_calls, snap.calls.size());
            max_findings = std::max(max_findings, snap.findings.size());
            max_connections = std::max(max_connections, snap.connections.size());
            REQUIRE(!snap.calls.empty());
            CHECK(snap.calls.back().id == uint64_t(rep + 1) * 6);   // the latest calls
            for (size_t i = 1; i < snap.calls.size(); ++i) CHECK(snap.calls[i - 1].id < snap.calls[i].id);
        }
    }
    CHECK(snapshots == kReplays / 50);
    CHECK(max_calls <= 100 + 6);        // the recent calls and the open ones
    CHECK(max_calls >= 100);
    CHECK(max_findings <= 4 * 100 + 64);
    CHECK(max_connections <= 64);       // open flows only (closed ones are on disk)
    // 16,200 more calls after the warm-up: memory grows only by the spill
    // index and the summary's inputs (5.8 MB here, about 360 bytes a call),
    // not by the calls and their segments.
    INFO("RSS " << rss_warm << " MB after 1,800 calls, " << rss_mb() << " MB after 18,000");
#if defined(__SANITIZE_ADDRESS__)
    // ASan quarantines freed memory, so RSS says nothing about what we keep.
    WARN("RSS growth not checked under AddressSanitizer");
#else
    CHECK(rss_mb() - rss_warm < 16);
#endif
    const AnalysisResult r = a.finish();
    REQUIRE(r.spill);
    CHECK(call_count(r) == size_t(kReplays) * 6);   // nothing lost: the final result has every call
}

TEST_CASE("spill: odd ids (0, repeated, far apart) still come back in id order", "[spill-mode]") {
    ResultSpill s(temp_spill());
    for (uint64_t id : {4ull, 2ull, 0ull, 2ull, 1ull << 40}) {
        Call c;
        c.id = id;
        c.uri = "/x" + std::to_string(id);
        s.add(c);
    }
    s.seal([](Finding&) {});
    std::vector<uint64_t> ids;
    s.each_call([&](const Call& c) { ids.push_back(c.id); return true; });
    CHECK(ids == std::vector<uint64_t>{0, 2, 2, 4, 1ull << 40});
    Call c;
    REQUIRE(s.find_call(1ull << 40, c));
    CHECK(c.uri == "/x" + std::to_string(1ull << 40));
    CHECK_FALSE(s.find_call(3, c));
}

TEST_CASE("spill: many items out of order, index on disk and findings merged from several sorted runs", "[spill-mode]") {
    // Ids far behind the index cache, some ids never used, and more findings
    // than one in-memory run (16,384): the order must be the one a stable
    // sort by (first call, kind name) gives.
    ResultSpill s(temp_spill());
    const uint64_t n = 60000;
    std::vector<uint64_t> ids;
    for (uint64_t id = 1; id <= n; ++id)
        if (id % 7 != 3) ids.push_back(id);  // every 7th id has no call
    uint64_t x = 12345;
    auto rnd = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
    for (size_t i = ids.size() - 1; i > 0; --i)  // local shuffles and some far jumps
        if (rnd() % 3 == 0) std::swap(ids[i], ids[rnd() % 50 == 0 ? rnd() % ids.size() : i - 1 - rnd() % std::min<size_t>(i, 40)]);
    const char* kinds[] = {"split_write", "nagle_delayed_ack", "server_time", "message_size"};
    struct Ref { uint64_t first; std::string kind; size_t arrival; };
    std::vector<Ref> ref;
    for (uint64_t id : ids) {
        Call c;
        c.id = id;
        c.uri = "/c" + std::to_string(id);
        s.add(c);
        for (uint64_t k = 0; k < id % 3; ++k) {
            Finding f;
            f.kind = kinds[rnd() % 4];
            f.calls = {id - rnd() % std::min<uint64_t>(id, 3) };
            f.cost_ms = double(ref.size());
            ref.push_back({f.calls.front(), f.kind, ref.size()});
            s.add(f);
        }
    }
    REQUIRE(ref.size() > 2 * 16384);
    std::stable_sort(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) {
        return a.first != b.first ? a.first < b.first : a.kind < b.kind;
    });
    std::vector<double> order;
    s.seal([&](Finding& f) { order.push_back(f.cost_ms); });
    REQUIRE(order.size() == ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
        if (order[i] != double(ref[i].arrival)) FAIL("finding " << i << " out of order");
    std::vector<uint64_t> sorted_ids = ids;
    std::sort(sorted_ids.begin(), sorted_ids.end());
    std::vector<uint64_t> got;
    s.each_call([&](const Call& c) { got.push_back(c.id); return true; });
    CHECK(got == sorted_ids);
    Call c;
    for (size_t i = 0; i < sorted_ids.size(); i += 997) {
        s.call_at(i, c);
        CHECK(c.id == sorted_ids[i]);
        CHECK(c.uri == "/c" + std::to_string(c.id));
    }
    s.call_at(sorted_ids.size() - 1, c);
    CHECK(c.id == sorted_ids.back());
    CHECK_THROWS(s.call_at(sorted_ids.size(), c));
    for (uint64_t id : {uint64_t(3), uint64_t(10), n + 1, uint64_t(0)}) CHECK_FALSE(s.find_call(id, c));
    REQUIRE(s.find_call(n - 1, c));  // n itself is one of the missing (n % 7 == 3)
    CHECK(c.uri == "/c" + std::to_string(n - 1));
    Finding f;
    for (size_t i = 0; i < ref.size(); i += 1013) {
        s.finding_at(i, f);
        CHECK(f.cost_ms == double(ref[i].arrival));
    }
    size_t k = 0;
    s.each_finding([&](const Finding& g) { CHECK(g.cost_ms == order[k++]); return true; });
    CHECK(k == ref.size());
}
