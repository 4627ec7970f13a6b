// The summary's per-call records: on file they read back as written, and a
// summary built from records on file equals the one built in memory, over
// more calls than the cached blocks hold and with calls of many fixes.
#include "analyzers/spill/external_sort.h"
#include "analyzers/spill/spill_file.h"
#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/summary_records.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <vector>

using namespace stallscope;

namespace {

std::unique_ptr<SpillFile> temp_file() {
    std::string error;
    auto f = SpillFile::create("", error);
    REQUIRE(f);
    return f;
}

void check_same(const LatencyStats& a, const LatencyStats& b) {
    CHECK(a.calls == b.calls);
    CHECK(a.median_ms == b.median_ms);
    CHECK(a.p90_ms == b.p90_ms);
    CHECK(a.max_ms == b.max_ms);
    CHECK(a.total_ms == b.total_ms);
}

void check_same(const SummaryGroup& a, const SummaryGroup& b) {
    CHECK(a.operation == b.operation);
    check_same(a.latency, b.latency);
    check_same(a.client_latency, b.client_latency);
    CHECK(a.predicted_median_ms == b.predicted_median_ms);
    CHECK(a.predicted_total_ms == b.predicted_total_ms);
    REQUIRE(a.losses.size() == b.losses.size());
    for (size_t i = 0; i < a.losses.size(); ++i) {
        CHECK(a.losses[i].kind == b.losses[i].kind);
        CHECK(a.losses[i].calls == b.losses[i].calls);
        CHECK(a.losses[i].findings == b.losses[i].findings);
        CHECK(a.losses[i].lost_ms == b.losses[i].lost_ms);
    }
    REQUIRE(a.what_if.size() == b.what_if.size());
    for (size_t i = 0; i < a.what_if.size(); ++i) {
        CHECK(a.what_if[i].kind == b.what_if[i].kind);
        CHECK(a.what_if[i].predicted_median_ms == b.what_if[i].predicted_median_ms);
        CHECK(a.what_if[i].predicted_p90_ms == b.what_if[i].predicted_p90_ms);
        CHECK(a.what_if[i].calls == b.what_if[i].calls);
    }
}

} // namespace

TEST_CASE("summary records: written out of order past the cache, read back as written", "[summary]") {
    SummaryRecords on_file;
    on_file.to_file(temp_file());
    const uint64_t n = SummaryRecords::kBlock * (SummaryRecords::kCachedBlocks * 3) + 17;
    std::vector<uint64_t> ids(n);
    for (uint64_t i = 0; i < n; ++i) ids[i] = i + 1;
    std::mt19937 rng(7);
    std::shuffle(ids.begin(), ids.end(), rng);
    for (uint64_t id : ids) {
        if (id % 5 == 0) continue;  // gaps: no complete call
        SummaryRecords::Rec& r = on_file.at(id);
        r.complete = 1;
        r.latency_ms = double(id) / 3;
        for (uint32_t k = 0; k < id % 7; ++k) on_file.add_saving(id, r, {k, 0, double(id + k)});
    }
    uint64_t seen = 0, last = 0;
    on_file.each([&](uint64_t id, const SummaryRecords::Rec& r) {
        CHECK(id > last);
        last = id;
        CHECK(id % 5 != 0);
        CHECK(r.latency_ms == double(id) / 3);
        std::vector<double> s;
        on_file.each_saving(id, r, [&](const SummaryRecords::Saving& x) { s.push_back(x.ms); });
        REQUIRE(s.size() == id % 7);
        for (uint32_t k = 0; k < s.size(); ++k) CHECK(s[k] == double(id + k));
        ++seen;
    });
    CHECK(seen == n - n / 5);
}

TEST_CASE("summary: built from records on file equals the one built in memory", "[summary]") {
    SummaryBuilder in_memory, on_file;
    on_file.spill_to(temp_file());
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> ms(0, 50);
    const char* kinds[] = {"nagle_delayed_ack", "split_write", "expect_100_wait", "slow_start", "connection_setup",
                           "server_time"};
    const uint64_t n = SummaryRecords::kBlock * (SummaryRecords::kCachedBlocks + 4);
    std::vector<Call> calls;
    for (uint64_t id = 1; id <= n; ++id) {
        Call c;
        c.id = id;
        c.complete = id % 13 != 0;
        c.method = "POST";
        c.soap.operation = "op" + std::to_string(id % 4);
        c.latency_ms = ms(rng);
        c.setup_ms = id % 3 == 0 ? ms(rng) / 10 : -1;
        c.attribution.push_back({"nagle_delayed_ack", c.latency_ms / 2});
        c.attribution.push_back({"server", c.latency_ms / 2});
        for (size_t k = 0; k < id % 6; ++k) c.savings.push_back({kinds[k], Side::Client, c.latency_ms / double(k + 2)});
        calls.push_back(std::move(c));
    }
    std::shuffle(calls.begin(), calls.end(), rng);  // calls finish out of order
    for (const Call& c : calls) {
        in_memory.add_call(c);
        on_file.add_call(c);
    }
    for (uint64_t id = 1; id <= n; id += 2) {
        Finding f;
        f.kind = kinds[id % 6];
        f.side = Side::Client;
        f.calls = {id};
        if (id % 10 == 1 && id + 3 <= n) f.calls.push_back(id + 3);
        f.counted_ms = 1.5;
        in_memory.add_finding(f);
        on_file.add_finding(f);
    }
    Summary a = in_memory.build(), b = on_file.build();
    CHECK(a.overall.latency.calls == n - n / 13);
    CHECK_FALSE(a.overall.what_if.empty());
    check_same(a.overall, b.overall);
    REQUIRE(a.per_operation.size() == b.per_operation.size());
    for (size_t i = 0; i < a.per_operation.size(); ++i) check_same(a.per_operation[i], b.per_operation[i]);
}

TEST_CASE("external sort: runs on file merge into the order std::sort gives", "[summary]") {
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<int> small(0, 500);  // many equal values
    std::vector<double> values;
    for (int i = 0; i < 25000; ++i) values.push_back(i % 5 ? small(rng) / 8.0 : std::ldexp(double(rng() % 1000), int(rng() % 40) - 20));
    for (size_t run : {size_t(1), size_t(7), size_t(1000), size_t(100000)}) {
        ExternalSort<double> sorted(run, [] { return temp_file(); });
        for (double v : values) sorted.add(v);
        CHECK(sorted.size() == values.size());
        std::vector<double> got;
        sorted.each([&](double v) { got.push_back(v); });
        std::vector<double> want = values;
        std::sort(want.begin(), want.end());
        CHECK(got == want);
    }
    ExternalSort<double> none(10, nullptr);  // no file: everything stays in memory
    for (int i = 20; i > 0; --i) none.add(i);
    std::vector<double> got;
    none.each([&](double v) { got.push_back(v); });
    CHECK(got.size() == 20);
    CHECK(std::is_sorted(got.begin(), got.end()));
}

TEST_CASE("summary: series longer than one in-memory run are the same sorted on file", "[summary]") {
    // More complete calls than a series sorts in memory (2^18): the spilled
    // builder merges sorted runs from disk, the other sorts one vector.
    SummaryBuilder in_memory, on_file;
    on_file.spill_to(temp_file());
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> us(0, 40000);
    const uint64_t n = (uint64_t(1) << 18) + 40001;
    Call c;
    c.method = "POST";
    c.complete = true;
    for (uint64_t id = 1; id <= n; ++id) {
        c.id = id;
        c.soap.operation = id % 5 ? "big" : "small";
        c.latency_ms = us(rng) / 1000.0 + (id % 3 ? 0.1 : 0.7);  // sums that round differently by order
        c.setup_ms = id % 4 == 0 ? us(rng) / 7000.0 : -1;
        in_memory.add_call(c);
        on_file.add_call(c);
    }
    Summary a = in_memory.build(), b = on_file.build();
    CHECK(a.overall.latency.calls == n);
    check_same(a.overall, b.overall);
    REQUIRE(a.per_operation.size() == b.per_operation.size());
    for (size_t i = 0; i < a.per_operation.size(); ++i) check_same(a.per_operation[i], b.per_operation[i]);
}

TEST_CASE("summary: calls of one operation in runs and interleaved land on their operation's row", "[summary]") {
    // The builder skips the key lookup while calls name the last operation:
    // runs, switches back and forth, a SOAP operation spelled like another
    // call's "METHOD /path" key, non-SOAP and incomplete calls in between.
    struct Spec { const char* op; const char* method; const char* uri; bool complete; double ms; };
    const std::vector<Spec> specs = {
        {"getQuote", "POST", "/q", true, 10}, {"getQuote", "POST", "/q", true, 12}, {"", "GET", "/a?x=1", true, 3},
        {"getQuote", "POST", "/q", false, 0}, {"setQuote", "POST", "/q", true, 20}, {"getQuote", "POST", "/q", true, 14},
        {"GET /a", "POST", "/s", true, 5},     {"", "GET", "/a", true, 7},          {"setQuote", "POST", "/q", true, 22},
        {"", "", "", true, 1},                 {"setQuote", "POST", "/q", true, 24}, {"getQuote", "POST", "/q", true, 16},
    };
    SummaryBuilder b;
    std::map<std::string, std::vector<double>> want;
    uint64_t id = 0;
    for (const Spec& s : specs) {
        Call c;
        c.id = ++id;
        c.soap.operation = s.op;
        c.method = s.method;
        c.uri = s.uri;
        c.complete = s.complete;
        c.latency_ms = s.ms;
        c.attribution = {{"server", s.ms}};
        b.add_call(c);
        auto& v = want[operation_key(c)];
        if (s.complete) v.push_back(s.ms);
    }
    Summary sum = b.build();
    REQUIRE(sum.per_operation.size() == want.size());
    size_t i = 0;
    for (auto& [op, ms] : want) {  // rows in name order
        const SummaryGroup& g = sum.per_operation[i++];
        CHECK(g.operation == op);
        CHECK(g.latency.calls == ms.size());
        double total = 0;
        for (double x : ms) total += x;
        CHECK(g.latency.total_ms == total);
        CHECK(g.server_ms == total);
    }
    CHECK(sum.overall.latency.calls == 11);
}

// add_finding given the finding's complete calls (the back stage counts them
// once for the ledger and the summary) counts as add_finding alone: random
// findings of every kind in random order, some on incomplete calls; each
// kind's row names its kind and whether it is avoidable, and its counted time
// is each finding's share summed in the order the findings came.
TEST_CASE("summary: findings added with their complete calls given count as counted alone", "[summary]") {
    SummaryBuilder alone, given;
    std::mt19937 rng(29);
    std::uniform_real_distribution<double> ms(0, 50);
    const char* kinds[] = {"nagle_delayed_ack", "split_write", "server_time", "connection_setup", "expect_100_wait"};
    const uint64_t n = 400;
    for (uint64_t id = 1; id <= n; ++id) {
        Call c;
        c.id = id;
        c.complete = id % 7 != 0;
        c.method = "POST";
        c.soap.operation = id % 3 ? "get" : "put";
        c.latency_ms = ms(rng);
        c.setup_ms = id % 4 == 0 ? ms(rng) / 10 : -1;
        alone.add_call(c);
        given.add_call(c);
    }
    std::map<std::string, double> want;  // overall counted time per kind, in arrival order
    std::map<std::string, uint64_t> found;
    for (int i = 0; i < 1500; ++i) {
        Finding f;
        f.kind = kinds[rng() % 5];
        f.side = rng() % 2 ? Side::Client : Side::Server;
        f.calls = {1 + rng() % n};
        if (rng() % 5 == 0 && f.calls[0] < n) f.calls.push_back(f.calls[0] + 1);
        f.counted_ms = ms(rng);
        const size_t complete = given.complete_calls(f);
        alone.add_finding(f);
        given.add_finding(f, complete);
        if (complete) ++found[f.kind];
        for (size_t k = 0; k < complete; ++k) want[f.kind] += f.counted_ms / double(complete);
    }
    Summary a = alone.build(), b = given.build();
    check_same(a.overall, b.overall);
    REQUIRE(a.per_operation.size() == b.per_operation.size());
    for (size_t i = 0; i < a.per_operation.size(); ++i) check_same(a.per_operation[i], b.per_operation[i]);
    REQUIRE(b.overall.losses.size() == 5);
    for (const KindLoss& k : b.overall.losses) {
        INFO(k.kind);
        REQUIRE(want.count(k.kind));
        CHECK(k.avoidable == (k.kind != "server_time"));
        CHECK(k.findings == found[k.kind]);
        CHECK(std::bit_cast<uint64_t>(k.lost_ms) == std::bit_cast<uint64_t>(want[k.kind]));
    }
}
