// The comparison on hand-made results: matching by operation and size,
// latency verdicts, finding-kind verdict rules and the CI expectations.
#include "analyzers/compare/compare.h"
#include "analyzers/compare/compare_report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace stallscope;

namespace {

struct Builder {
    AnalysisResult r;
    explicit Builder(std::string file) { r.capture.file = std::move(file); }
    // Adds a complete SOAP call; returns its id.
    uint64_t call(const std::string& op, double latency_ms, uint64_t body_bytes = 300, bool complete = true) {
        Call c;
        c.id = r.calls.size() + 1;
        c.method = "POST";
        c.uri = "/soap";
        c.soap.operation = op;
        c.latency_ms = complete ? latency_ms : 0;
        c.complete = complete;
        c.request.body_bytes = body_bytes;
        c.response.body_bytes = body_bytes;
        r.calls.push_back(c);
        return c.id;
    }
    void finding(const std::string& kind, std::vector<uint64_t> calls, double cost_ms) {
        Finding f;
        f.kind = kind;
        f.calls = std::move(calls);
        f.cost_ms = cost_ms;
        f.counted_ms = cost_ms;  // as the call ledger fills it when nothing overlaps
        r.findings.push_back(f);
    }
    // n calls of op, each with a nagle stall of `stall` ms on top of `base`.
    void stalled(const std::string& op, int n, double base, double stall, const std::string& kind = "nagle_delayed_ack") {
        for (int i = 0; i < n; ++i) {
            uint64_t id = call(op, base + stall + 0.01 * i);
            if (stall > 0) finding(kind, {id}, stall);
        }
    }
};

const KindComparison& kind(const Comparison& c, const std::string& k) {
    for (auto& x : c.kinds)
        if (x.kind == k) return x;
    FAIL("kind " << k << " missing");
    return c.kinds.front();
}

const GroupComparison& group(const Comparison& c, const std::string& label) {
    for (auto& g : c.groups)
        if (g.label == label) return g;
    FAIL("group " << label << " missing");
    return c.groups.front();
}

} // namespace

TEST_CASE("calls are matched by operation and size bucket", "[compare]") {
    Builder b("before.pcap"), a("after.pcap");
    for (int i = 0; i < 4; ++i) {
        b.call("getString", 45 + i, 100);
        b.call("getString", 90 + i, 50000);
        b.call("doNothing", 44 + i, 10);
        a.call("getString", 0.2 + 0.01 * i, 100);
        a.call("getString", 1.0 + 0.01 * i, 50000);
    }
    a.call("echoInts", 0.3, 10);
    Comparison c = compare_results(b.r, a.r);
    REQUIRE(c.groups.size() == 4);
    const GroupComparison& small = group(c, "getString [<1 KiB]");
    const GroupComparison& large = group(c, "getString [10-100 KiB]");
    CHECK(small.before.latencies_ms.size() == 4);
    CHECK(small.after.latencies_ms.size() == 4);
    CHECK(small.before.stats.median_ms == Approx(46.5));
    CHECK(large.before.stats.median_ms == Approx(91.5));
    REQUIRE(small.pairs.size() == 4);
    CHECK(small.pairs[0] == std::pair<uint64_t, uint64_t>{1, 1});  // first getString/small before and after
    CHECK(small.pairs[1] == std::pair<uint64_t, uint64_t>{4, 3});
    // An operation seen on one side only is one group, not split by size.
    CHECK(group(c, "doNothing").change == LatencyChange::OnlyBefore);
    CHECK(group(c, "echoInts").change == LatencyChange::OnlyAfter);
    CHECK(c.overall.label == "(all calls)");
    CHECK(c.overall.before.latencies_ms.size() == 12);
    CHECK(c.overall.after.latencies_ms.size() == 9);
}

TEST_CASE("an operation whose sizes changed is matched by operation only", "[compare]") {
    Builder b("b"), a("a");
    for (int i = 0; i < 5; ++i) {
        b.call("getIntegers", 50 + i, 400);   // 800 bytes both ways: < 1 KiB before
        a.call("getIntegers", 0.5 + i, 600);  // 1200: 1-10 KiB after (e.g. chunk framing)
    }
    Comparison c = compare_results(b.r, a.r);
    REQUIRE(c.groups.size() == 1);
    CHECK(c.groups[0].label == "getIntegers");
    CHECK(c.groups[0].size_bucket.empty());
    CHECK(c.groups[0].change == LatencyChange::Faster);
    REQUIRE(c.notes.size() == 1);
    CHECK(c.notes[0].find("getIntegers") != std::string::npos);

    CompareOptions no_size;
    no_size.match_by_size = false;
    Comparison d = compare_results(b.r, a.r, no_size);
    REQUIRE(d.groups.size() == 1);
    CHECK(d.notes.empty());
}

TEST_CASE("incomplete calls are left out of latency", "[compare]") {
    Builder b("b"), a("a");
    b.call("op", 10);
    b.call("op", 0, 300, false);
    a.call("op", 10);
    Comparison c = compare_results(b.r, a.r);
    CHECK(c.before.calls == 2);
    CHECK(c.before.complete_calls == 1);
    CHECK(c.overall.before.latencies_ms.size() == 1);
}

TEST_CASE("latency verdicts: faster, slower, unchanged, too few calls", "[compare]") {
    SECTION("a stall removed is faster, the reverse is slower") {
        Builder b("b"), a("a");
        b.stalled("getString", 6, 0.1, 44);
        a.stalled("getString", 6, 0.1, 0);
        Comparison c = compare_results(b.r, a.r);
        CHECK(c.overall.change == LatencyChange::Faster);
        CHECK(c.overall.significant);
        CHECK(c.overall.test.p_value == Approx(2.0 / 924));  // 6 vs 6, complete separation
        CHECK(c.overall.median_change_ms == Approx(-44.0).margin(0.1));
        CHECK(c.overall.shift.has_interval);
        CHECK(c.overall.shift.high < 0);
        Comparison r = compare_results(a.r, b.r);
        CHECK(r.overall.change == LatencyChange::Slower);
    }
    SECTION("a significant but tiny change is unchanged") {
        Builder b("b"), a("a");
        for (int i = 0; i < 10; ++i) {
            b.call("op", 0.100 + 0.001 * i);
            a.call("op", 0.150 + 0.001 * i);  // +50 us: real, but under 1 ms
        }
        Comparison c = compare_results(b.r, a.r);
        CHECK(c.overall.significant);
        CHECK(c.overall.change == LatencyChange::Unchanged);
        CompareOptions strict;
        strict.min_change_ms = 0.01;
        CHECK(compare_results(b.r, a.r, strict).overall.change == LatencyChange::Slower);
    }
    SECTION("noise is unchanged") {
        Builder b("b"), a("a");
        double v[] = {10, 12, 11, 13, 9, 10.5, 12.5, 11.5};
        for (int i = 0; i < 8; ++i) {
            b.call("op", v[i]);
            a.call("op", v[7 - i] + 0.2);
        }
        Comparison c = compare_results(b.r, a.r);
        CHECK_FALSE(c.overall.significant);
        CHECK(c.overall.change == LatencyChange::Unchanged);
    }
    SECTION("three calls a side cannot show anything") {
        Builder b("b"), a("a");
        b.stalled("op", 3, 0.1, 200);
        a.stalled("op", 3, 0.1, 0);
        Comparison c = compare_results(b.r, a.r);
        CHECK(c.overall.test.min_p_value == Approx(0.1));
        CHECK(c.overall.change == LatencyChange::TooFewCalls);
    }
}

TEST_CASE("finding verdict rules", "[compare]") {
    Builder b("b"), a("a");
    // nagle: on every call before, gone after -> fixed
    b.stalled("op", 5, 0.1, 44);
    a.stalled("op", 5, 0.1, 0);
    // split_write: 4 of 5 calls before, 1 of 5 after, cost 0 -> share x0.25 -> reduced
    for (uint64_t id = 1; id <= 4; ++id) b.finding("split_write", {id}, 0);
    a.finding("split_write", {2}, 0);
    // server_time: same cost -> still present, not worse
    b.finding("server_time", {1, 2}, 10);
    a.finding("server_time", {1, 2}, 11);
    // connection_setup: x2 cost on 2 calls -> still present, worse
    b.finding("connection_setup", {1, 2}, 10);
    a.finding("connection_setup", {1, 2}, 20);
    // retransmission: only after -> new; on one call only -> not counted as worse
    a.finding("retransmission", {3}, 200);
    // message_size: only after, on two calls -> new and worse
    a.finding("message_size", {4, 5}, 0);
    // a kind no detector knows, present before only
    b.finding("custom_kind", {5}, 1);

    Comparison c = compare_results(b.r, a.r);
    const KindComparison& nagle = kind(c, "nagle_delayed_ack");
    CHECK(nagle.verdict == Verdict::Fixed);
    CHECK(nagle.before.findings == 5);
    CHECK(nagle.before.calls_affected == 5);
    CHECK(nagle.before.lost_ms == Approx(220));
    CHECK_FALSE(nagle.worse);
    const KindComparison& split = kind(c, "split_write");
    CHECK(split.verdict == Verdict::Reduced);
    CHECK(split.measure == "affected_share");
    CHECK(split.ratio == Approx(0.25));
    const KindComparison& server = kind(c, "server_time");
    CHECK(server.verdict == Verdict::StillPresent);
    CHECK(server.measure == "lost_per_call_ms");
    CHECK_FALSE(server.worse);
    const KindComparison& conn = kind(c, "connection_setup");
    CHECK(conn.verdict == Verdict::StillPresent);
    CHECK(conn.worse);
    CHECK(conn.ratio == Approx(2.0));
    CHECK(kind(c, "retransmission").verdict == Verdict::New);
    CHECK(kind(c, "retransmission").grew);
    CHECK_FALSE(kind(c, "retransmission").worse);
    CHECK(kind(c, "message_size").verdict == Verdict::New);
    CHECK(kind(c, "message_size").worse);
    CHECK(kind(c, "expect_100_wait").verdict == Verdict::AbsentInBoth);
    CompareOptions strict;
    strict.min_worse_calls = 1;
    CHECK(kind(compare_results(b.r, a.r, strict), "retransmission").worse);
    CHECK(kind(c, "custom_kind").verdict == Verdict::Fixed);
    // Known kinds first, in report order; others after.
    REQUIRE(c.kinds.size() == known_finding_kinds().size() + 1);
    CHECK(c.kinds.front().kind == "nagle_delayed_ack");
    CHECK(c.kinds.back().kind == "custom_kind");
}

TEST_CASE("time lost per kind is the ledger's counted time, not a sum of costs", "[compare]") {
    // A Nagle hold counted under the Expect wait that started it (call
    // ledger): its cost stays 40 ms, its counted part is 0.
    Builder b("b"), a("a");
    uint64_t id = b.call("op", 41);
    b.finding("expect_100_wait", {id}, 40);
    b.finding("nagle_delayed_ack", {id}, 40);
    b.r.findings.back().counted_ms = 0;
    a.call("op", 1);
    Comparison c = compare_results(b.r, a.r);
    CHECK(kind(c, "expect_100_wait").before.lost_ms == Approx(40));
    CHECK(kind(c, "nagle_delayed_ack").before.lost_ms == 0);
    CHECK(kind(c, "nagle_delayed_ack").before.findings == 1);
    CHECK(kind(c, "nagle_delayed_ack").verdict == Verdict::Fixed);
}

TEST_CASE("verdict thresholds are the documented ratios", "[compare]") {
    auto verdict_for = [](double before_cost, double after_cost) {
        Builder b("b"), a("a");
        b.stalled("op", 4, 1, 0);
        a.stalled("op", 4, 1, 0);
        b.finding("nagle_delayed_ack", {1, 2}, before_cost);
        a.finding("nagle_delayed_ack", {1, 2}, after_cost);
        return kind(compare_results(b.r, a.r), "nagle_delayed_ack");
    };
    CHECK(verdict_for(100, 80).verdict == Verdict::Reduced);        // x0.80: reduced
    CHECK(verdict_for(100, 81).verdict == Verdict::StillPresent);   // x0.81
    CHECK_FALSE(verdict_for(100, 124).worse);                       // x1.24
    CHECK(verdict_for(100, 125).worse);                             // x1.25
    // x1.27 of microseconds per call (a loopback handshake) is not worse, nor is x0.5 reduced.
    CHECK_FALSE(verdict_for(0.12, 0.152).worse);
    CHECK(verdict_for(0.12, 0.152).verdict == Verdict::StillPresent);
    CHECK(verdict_for(0.12, 0.06).verdict == Verdict::StillPresent);
}

TEST_CASE("expect-fixed passes only when present before and gone after", "[compare]") {
    Builder stalled("stalled.pcap"), clean("clean.pcap");
    stalled.stalled("op", 5, 0.1, 44);
    clean.stalled("op", 5, 0.1, 0);

    ExpectationResult ok = expect_fixed(compare_results(stalled.r, clean.r), "nagle_delayed_ack");
    CHECK(ok.ok);
    CHECK(ok.reasons.empty());

    ExpectationResult rev = expect_fixed(compare_results(clean.r, stalled.r), "nagle_delayed_ack");
    CHECK_FALSE(rev.ok);
    REQUIRE(rev.reasons.size() == 2);  // not present before, and present after
    CHECK(rev.reasons[0].find("was not present before") != std::string::npos);
    CHECK(rev.reasons[1].find("still present after") != std::string::npos);
    CHECK(rev.reasons[1].find("5 findings on 5 of 5 calls") != std::string::npos);

    ExpectationResult same = expect_fixed(compare_results(stalled.r, stalled.r), "nagle_delayed_ack");
    CHECK_FALSE(same.ok);
    REQUIRE(same.reasons.size() == 1);

    ExpectationResult absent = expect_fixed(compare_results(clean.r, clean.r), "split_write");
    CHECK_FALSE(absent.ok);

    ExpectationResult unknown = expect_fixed(compare_results(stalled.r, clean.r), "no_such_kind");
    CHECK_FALSE(unknown.ok);
    CHECK(unknown.reasons[0].find("unknown") != std::string::npos);

    Builder empty("empty.pcap");
    ExpectationResult nothing = expect_fixed(compare_results(stalled.r, empty.r), "nagle_delayed_ack");
    CHECK_FALSE(nothing.ok);
    CHECK(nothing.reasons.back().find("no complete call") != std::string::npos);
}

TEST_CASE("expect-no-regression fails on a new kind, a grown kind or a slower operation", "[compare]") {
    Builder stalled("stalled.pcap"), clean("clean.pcap");
    stalled.stalled("op", 6, 0.1, 44);
    clean.stalled("op", 6, 0.1, 0);
    CHECK(expect_no_regression(compare_results(stalled.r, clean.r)).ok);
    CHECK(expect_no_regression(compare_results(clean.r, clean.r)).ok);

    ExpectationResult r = expect_no_regression(compare_results(clean.r, stalled.r));
    CHECK_FALSE(r.ok);
    bool new_kind = false, slower = false;
    for (auto& s : r.reasons) {
        new_kind |= s.find("nagle_delayed_ack is new") != std::string::npos;
        slower |= s.find("got slower") != std::string::npos;
    }
    CHECK(new_kind);
    CHECK(slower);

    // Same latency, but one kind's cost doubled: a regression of that kind only.
    Builder b("b"), a("a");
    b.stalled("op", 6, 10, 0);
    a.stalled("op", 6, 10, 0);
    b.finding("connection_setup", {1, 2}, 10);
    a.finding("connection_setup", {1, 2}, 20);
    ExpectationResult k = expect_no_regression(compare_results(b.r, a.r));
    CHECK_FALSE(k.ok);
    REQUIRE(k.reasons.size() == 1);
    CHECK(k.reasons[0].find("connection_setup got worse") != std::string::npos);
}

TEST_CASE("server_time is judged on the server time itself, not on its share of the call", "[compare]") {
    // Before: 1 s calls with 30-40 ms of server time (too small a share to be
    // flagged); after the fix the calls take 35 ms, so the same server time is
    // most of the call and gets flagged. That is not a regression.
    auto run = [](double server_after_ms) {
        Builder b("b"), a("a");
        for (int i = 0; i < 6; ++i) {
            uint64_t ib = b.call("op", 1000 + i);
            uint64_t ia = a.call("op", server_after_ms + 5 + i);
            Phase pb, pa;
            pb.kind = pa.kind = PhaseKind::ServerTime;
            pb.end_ns = int64_t((30 + i) * 1e6);
            pa.end_ns = int64_t((server_after_ms + i) * 1e6);
            b.r.calls[ib - 1].phases.push_back(pb);
            a.r.calls[ia - 1].phases.push_back(pa);
            a.finding("server_time", {ia}, server_after_ms + i);
        }
        return compare_results(b.r, a.r);
    };
    Comparison same = run(30);
    const KindComparison& k = kind(same, "server_time");
    CHECK(k.verdict == Verdict::New);
    CHECK(k.grew);
    REQUIRE(k.has_underlying);
    CHECK(k.underlying.median_before_ms == Approx(32.5));
    CHECK_FALSE(k.underlying.higher);
    CHECK_FALSE(k.worse);
    CHECK(expect_no_regression(same).ok);

    Comparison slower = run(80);  // the server itself got 50 ms slower on every call
    const KindComparison& s = kind(slower, "server_time");
    CHECK(s.underlying.higher);
    CHECK(s.worse);
    CHECK_FALSE(expect_no_regression(slower).ok);
}

TEST_CASE("reports carry the verdicts", "[compare][report]") {
    Builder b("stalled.pcap"), a("clean.pcap");
    b.stalled("getString", 5, 0.1, 44);
    a.stalled("getString", 5, 0.1, 0);
    Comparison c = compare_results(b.r, a.r);
    std::vector<CheckedExpectation> checked = {{"expect-fixed nagle_delayed_ack", expect_fixed(c, "nagle_delayed_ack")}};
    std::string text = compare_text(c, checked);
    CHECK(text.find("stalled.pcap") != std::string::npos);
    CHECK(text.find("getString [<1 KiB]") != std::string::npos);
    CHECK(text.find("fixed:         nagle_delayed_ack") != std::string::npos);
    CHECK(text.find("expect-fixed nagle_delayed_ack: passed") != std::string::npos);

    auto j = nlohmann::json::parse(compare_json(c, checked));
    CHECK(j["before"]["file"] == "stalled.pcap");
    CHECK(j["overall"]["change"] == "faster");
    CHECK(j["overall"]["rank_test"]["u_before"] == 25.0);
    CHECK(j["operations"][0]["label"] == "getString [<1 KiB]");
    CHECK(j["kinds"][0]["kind"] == "nagle_delayed_ack");
    CHECK(j["kinds"][0]["verdict"] == "fixed");
    CHECK(j["kinds"][0]["before"]["findings"] == 5);
    CHECK(j["expectations"][0]["ok"] == true);
}

TEST_CASE("a change just short of -100% is not rounded to -100%", "[compare][report]") {
    Builder b("stalled.pcap"), a("clean.pcap");
    b.stalled("getString", 5, 0.1, 44);  // median 44.12 ms -> 0.12 ms: -99.73%
    a.stalled("getString", 5, 0.1, 0);
    std::string text = compare_text(compare_results(b.r, a.r), {});
    CHECK(text.find("(-100%)") == std::string::npos);
    CHECK(text.find("(-99.72%)") != std::string::npos);
}

TEST_CASE("markdown for a pull request: verdict line, no empty rows", "[compare][report]") {
    Builder b("dir/stalled.pcap"), a("clean.pcap");
    b.stalled("getString", 5, 0.1, 44);
    a.stalled("getString", 5, 0.1, 0);
    Comparison c = compare_results(b.r, a.r);
    std::string md = compare_markdown(c, {{"expect-fixed nagle_delayed_ack", expect_fixed(c, "nagle_delayed_ack")}});
    CHECK(md.find("**" + compare_verdict_sentence(c) + "**\n") == 0);   // the answer first
    CHECK(md.find("### StallScope: `stalled.pcap` → `clean.pcap`") != std::string::npos);
    CHECK(md.find("**Verdict:** fixed: nagle_delayed_ack;") != std::string::npos);
    CHECK(md.find("| getString [<1 KiB] | 5/5 |") != std::string::npos);
    CHECK(md.find("| nagle_delayed_ack |") != std::string::npos);
    CHECK(md.find("(all calls)") == std::string::npos);     // one operation: no overall row
    CHECK(md.find("absent in both") == std::string::npos);  // nothing to say, no row
    CHECK(md.find("| split_write |") == std::string::npos);
    CHECK(md.find("(-100%)") == std::string::npos);
    CHECK(md.find("`expect-fixed nagle_delayed_ack`: passed") != std::string::npos);

    b.stalled("getInt", 5, 0.1, 44);  // two operations: the overall row is back
    a.stalled("getInt", 5, 0.1, 0);
    CHECK(compare_markdown(compare_results(b.r, a.r)).find("| (all calls) |") != std::string::npos);
}

TEST_CASE("the first line of every compare output is the verdict in one sentence", "[compare][report]") {
    Builder b("stalled.pcap"), a("clean.pcap");
    b.stalled("getString", 20, 0.1, 44);
    a.stalled("getString", 20, 0.1, 0);
    const Comparison fixed = compare_results(b.r, a.r);
    const std::string v = compare_verdict_sentence(fixed);
    CHECK(v.rfind("Faster: median ", 0) == 0);
    CHECK(v.find("p < 0.0001") != std::string::npos);
    CHECK(v.find("\u2212100 %") != std::string::npos);
    CHECK(v.find("Nagle / delayed ACK fixed") != std::string::npos);
    CHECK(compare_text(fixed).rfind(v + "\n", 0) == 0);
    CHECK(compare_markdown(fixed).rfind("**" + v + "**\n", 0) == 0);

    Builder b2("same.pcap"), a2("same-again.pcap");
    b2.stalled("getString", 20, 0.1, 0);
    a2.stalled("getString", 20, 0.1, 0);
    const std::string same = compare_verdict_sentence(compare_results(b2.r, a2.r));
    CHECK(same.rfind("No measurable change (p = ", 0) == 0);
    CHECK(same.find("fixed") == std::string::npos);
}
