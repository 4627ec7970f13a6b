// The streaming report mode: the spill file, the order items come back in,
// and reports of every bundled capture identical whether the calls stayed
// in memory or went through the spill file.
#include "analyzers/analyze.h"
#include "analyzers/report.h"
#include "analyzers/result_spill.h"
#include "analyzers/spill_file.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> bundled_captures() {
    std::vector<std::string> v;
    for (auto& e : fs::directory_iterator(STALLSCOPE_TESTDATA_DIR)) {
        auto ext = e.path().extension();
        if (ext == ".pcap" || ext == ".pcapng") v.push_back(e.path().string());
    }
    std::sort(v.begin(), v.end());
    return v;
}

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
        f.explanation = "final";
    });
    CHECK(seen_costs == std::vector<double>{0, 3, 2, 1, 4});

    std::vector<uint64_t> ids;
    s.each_call([&](const Call& c) { ids.push_back(c.id); CHECK(c.uri == "/call/" + std::to_string(c.id)); return true; });
    CHECK(ids == std::vector<uint64_t>{1, 2, 5, 9});
    ids.clear();
    s.each_connection([&](const Connection& c) { ids.push_back(c.id); return true; });
    CHECK(ids == std::vector<uint64_t>{1, 5, 8, 9});
    std::vector<double> costs;
    s.each_finding([&](const Finding& f) { costs.push_back(f.cost_ms); CHECK(f.explanation == "final"); return true; });
    CHECK(costs == seen_costs);
    size_t n = 0;
    s.each_call([&](const Call&) { return ++n < 2; });  // false stops
    CHECK(n == 2);
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
