// A sorted series with a few values replaced (sorted_series.h) gives the
// order a full sort gives, and the summary's what-if series built that way
// equal the statistics of the same values sorted whole.
#include "analyzers/accounting/sorted_series.h"
#include "analyzers/accounting/summary.h"
#include "analyzers/spill/spill_file.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace stallscope;

TEST_CASE("sorted series: values replaced come out in the order a full sort gives", "[summary]") {
    std::mt19937 rng(3);
    for (int round = 0; round < 50; ++round) {
        std::uniform_int_distribution<int> small(0, round % 2 ? 20 : 100000);  // many repeats, or few
        std::vector<double> values;
        for (int i = 0; i < 500; ++i) values.push_back(small(rng) / 8.0);
        std::vector<double> base = values;
        std::sort(base.begin(), base.end());
        std::vector<double> out, in, want;
        for (size_t i = 0; i < values.size(); ++i) {
            if (rng() % 10 == 0) {  // this call's value changes (or goes: no new one)
                out.push_back(values[i]);
                if (rng() % 4) want.push_back(small(rng) / 8.0), in.push_back(want.back());
            } else {
                want.push_back(values[i]);
            }
        }
        if (round % 5 == 0) in.push_back(-1), want.push_back(-1);  // a value below all, one past all
        if (round % 5 == 1) in.push_back(1e9), want.push_back(1e9);
        std::sort(want.begin(), want.end());
        std::vector<double> got;
        CHECK(each_replaced(base, out, in, [&](double x) { got.push_back(x); }));
        CHECK(got == want);
    }
    std::vector<double> base = {1, 2, 3}, out = {2.5}, in;
    CHECK_FALSE(each_replaced(base, out, in, [](double) {}));  // 2.5 is not in the base
    CHECK(plain_value(0.0));
    CHECK_FALSE(plain_value(-0.0));
    CHECK_FALSE(plain_value(std::nan("")));
}

TEST_CASE("summary: what-if series from the sorted latency equal the same values sorted whole", "[summary]") {
    // Few calls changed (taken from the sorted latency), then most (sorted
    // again): either way each what-if row is the statistics of its values.
    for (int every : {97, 2}) {
        std::mt19937 rng(every);
        std::uniform_int_distribution<int> us(0, 40000);
        SummaryBuilder b;
        std::vector<double> nagle, setup, all;
        for (uint64_t id = 1; id <= 3000; ++id) {
            Call c;
            c.id = id;
            c.complete = true;
            c.method = "POST";
            c.soap.operation = id % 3 ? "a" : "b";
            c.latency_ms = us(rng) / 1000.0 + (id % 3 ? 0.1 : 0.7);  // sums that round differently by order
            c.setup_ms = id % 4 == 1 ? us(rng) / 7000.0 : -1;
            double stall = id % every == 0 ? c.latency_ms * (id % 5) / 4.0 : 0;  // some saves it all
            c.attribution = {{"nagle_delayed_ack", stall}, {"server", c.latency_ms - stall}};
            if (stall > 0) c.savings.push_back({"nagle_delayed_ack", Side::Client, stall});
            if (id % every == 1 && c.setup_ms > 0) c.savings.push_back({"connection_setup", Side::Client, c.setup_ms});
            nagle.push_back(std::max(0.0, c.latency_ms - stall));
            setup.push_back(client_ms(c) - (id % every == 1 && c.setup_ms > 0 ? c.setup_ms : 0));
            all.push_back(predicted_ms(c));
            b.add_call(c);
        }
        Summary s = b.build();
        const LatencyStats want_nagle = latency_stats(nagle), want_setup = latency_stats(setup), want_all = latency_stats(all);
        CHECK(s.overall.predicted_median_ms == want_all.median_ms);
        CHECK(s.overall.predicted_total_ms == want_all.total_ms);
        int seen = 0;
        for (const WhatIf& w : s.overall.what_if) {
            const LatencyStats* want = w.kind == "nagle_delayed_ack" ? &want_nagle
                                       : w.kind == "connection_setup" ? &want_setup
                                                                      : &want_all;
            CHECK(w.predicted_median_ms == want->median_ms);
            CHECK(w.predicted_p90_ms == want->p90_ms);
            ++seen;
        }
        CHECK(seen == 3);  // both fixes and all_stalls
    }
}

// A series is collected into a vector sized for the group's complete calls
// and cut to the values it got: the client's lived time is known for some
// calls only, and each operation's row holds its own calls. Each must be
// latency_stats of exactly its values (count, median, p90, max, total bit
// for bit).
TEST_CASE("summary: series of some calls only and of each operation hold exactly their values", "[summary]") {
    SummaryBuilder b;
    std::mt19937 rng(41);
    std::uniform_int_distribution<int> us(1, 90000);
    std::vector<double> lived, op_a, op_b, all;
    for (uint64_t id = 1; id <= 3001; ++id) {
        Call c;
        c.id = id;
        c.complete = id % 11 != 0;
        c.method = "POST";
        c.soap.operation = id % 3 ? "a" : "b";
        c.latency_ms = us(rng) / 1000.0 + 0.1;
        c.client_path_ms = id % 4 == 0 ? us(rng) / 9000.0 : -1;
        b.add_call(c);
        if (!c.complete) continue;
        all.push_back(c.latency_ms);
        (id % 3 ? op_a : op_b).push_back(c.latency_ms);
        if (c.client_path_ms >= 0) lived.push_back(c.latency_ms + c.client_path_ms);
    }
    const Summary s = b.build();
    auto same = [](const LatencyStats& got, const LatencyStats& want) {
        CHECK(got.calls == want.calls);
        CHECK(got.median_ms == want.median_ms);
        CHECK(got.p90_ms == want.p90_ms);
        CHECK(got.max_ms == want.max_ms);
        CHECK(std::bit_cast<uint64_t>(got.total_ms) == std::bit_cast<uint64_t>(want.total_ms));
    };
    REQUIRE(lived.size() > 100);
    same(s.client_lived, latency_stats(lived));
    same(s.overall.latency, latency_stats(all));
    REQUIRE(s.per_operation.size() == 2);
    same(s.per_operation[0].latency, latency_stats(op_a));
    same(s.per_operation[1].latency, latency_stats(op_b));
}

// With the analysis on several threads the summary's series that no finding
// changes are sorted on another thread while the findings are added
// (SummaryBuilder::sort_ahead): the summary must be the one built without,
// bit for bit, for one operation and several, with the client's lived time
// known for some calls only, with -0.0 among the values (then a series is
// not kept as a what-if base) and with the per-call records on file.
namespace {

void same_stats(const LatencyStats& a, const LatencyStats& b) {
    CHECK(a.calls == b.calls);
    for (auto [x, y] : {std::pair{a.median_ms, b.median_ms}, {a.p90_ms, b.p90_ms}, {a.max_ms, b.max_ms},
                        {a.mean_ms, b.mean_ms}, {a.total_ms, b.total_ms}})
        CHECK(std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y));
}

void same_group(const SummaryGroup& a, const SummaryGroup& b) {
    CHECK(a.operation == b.operation);
    same_stats(a.latency, b.latency);
    same_stats(a.client_latency, b.client_latency);
    CHECK(std::bit_cast<uint64_t>(a.predicted_median_ms) == std::bit_cast<uint64_t>(b.predicted_median_ms));
    CHECK(std::bit_cast<uint64_t>(a.predicted_total_ms) == std::bit_cast<uint64_t>(b.predicted_total_ms));
    REQUIRE(a.what_if.size() == b.what_if.size());
    for (size_t i = 0; i < a.what_if.size(); ++i) {
        CHECK(a.what_if[i].kind == b.what_if[i].kind);
        CHECK(std::bit_cast<uint64_t>(a.what_if[i].predicted_median_ms) == std::bit_cast<uint64_t>(b.what_if[i].predicted_median_ms));
        CHECK(std::bit_cast<uint64_t>(a.what_if[i].predicted_p90_ms) == std::bit_cast<uint64_t>(b.what_if[i].predicted_p90_ms));
        CHECK(a.what_if[i].calls == b.what_if[i].calls);
    }
    REQUIRE(a.losses.size() == b.losses.size());
    for (size_t i = 0; i < a.losses.size(); ++i) {
        CHECK(a.losses[i].kind == b.losses[i].kind);
        CHECK(a.losses[i].calls == b.losses[i].calls);
    }
}

} // namespace

TEST_CASE("summary: series sorted ahead on another thread give the summary built without", "[summary]") {
    size_t what_ifs = 0;
    for (int variant = 0; variant < 8; ++variant) {
        const bool one_op = variant & 1, zeros = variant & 2, on_file = variant & 4;
        INFO("one operation " << one_op << ", -0.0 " << zeros << ", on file " << on_file);
        std::mt19937 rng(77 + variant);
        std::uniform_int_distribution<int> us(0, 40000);
        SummaryBuilder plain, ahead;
        if (on_file)
            for (SummaryBuilder* b : {&plain, &ahead}) {
                std::string error;
                auto file = SpillFile::create("", error);
                REQUIRE(file);
                b->spill_to(std::move(file));
            }
        std::vector<Finding> findings;
        for (uint64_t id = 1; id <= 4000; ++id) {
            Call c;
            c.id = id;
            c.complete = id % 13 != 0;
            c.method = "POST";
            c.soap.operation = one_op ? "a" : std::string(1, char('a' + id % 3));
            c.latency_ms = zeros && id % 50 == 0 ? -0.0 : us(rng) / 1000.0 + 0.1;
            c.setup_ms = id % 4 == 1 ? us(rng) / 7000.0 : -1;
            c.client_path_ms = id % 5 == 0 ? us(rng) / 9000.0 : -1;
            const double stall = id % 7 == 0 ? c.latency_ms * double(id % 5) / 4.0 : 0;
            c.attribution = {{"nagle_delayed_ack", stall}, {"server", c.latency_ms - stall}};
            if (stall > 0) c.savings.push_back({"nagle_delayed_ack", Side::Client, stall});
            plain.add_call(c);
            ahead.add_call(c);
            if (stall > 0) findings.push_back({"nagle_delayed_ack", Side::Client, 1, {id}});
            if (c.setup_ms > 0 && id % 3 == 1) findings.push_back({"connection_setup", Side::Client, 1, {id}});
        }
        ahead.sort_ahead();
        for (const Finding& f : findings) {
            plain.add_finding(f);
            ahead.add_finding(f);
        }
        const Summary a = plain.build(), b = ahead.build();
        same_group(a.overall, b.overall);
        same_stats(a.client_lived, b.client_lived);
        REQUIRE(a.per_operation.size() == b.per_operation.size());
        CHECK(a.per_operation.size() == (one_op ? 1u : 3u));
        for (size_t i = 0; i < a.per_operation.size(); ++i) same_group(a.per_operation[i], b.per_operation[i]);
        what_ifs += a.overall.what_if.size();
        CHECK(a.client_lived.calls > 100);
        CHECK(std::bit_cast<uint64_t>(a.client_lived.total_ms) != std::bit_cast<uint64_t>(a.overall.latency.total_ms));
    }
    CHECK(what_ifs >= 8 * 3);  // both fixes and all_stalls in every variant
}
