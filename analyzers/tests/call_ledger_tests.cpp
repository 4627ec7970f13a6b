// The call ledger: each call's attribution is a partition of its latency,
// overlaps are counted once under their root, shares never pass 100 %, on
// hand-made findings and on every bundled capture.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/back_stage.h"
#include "analyzers/report/report.h"
#include "analyzers/tests/capture_files.h"
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/result_spill.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kMs = 1'000'000;

int64_t us(double ms) { return std::llround(ms * 1000.0); }

Call plain_call() {
    Call c;
    c.id = 1;
    c.complete = true;
    c.start_ns = 1000 * kMs;
    c.end_ns = c.start_ns + 100 * kMs;
    c.latency_ms = 100;
    c.request.first_ns = c.start_ns;
    c.request.last_ns = c.start_ns + 60 * kMs;
    c.response.first_ns = c.start_ns + 90 * kMs;
    c.response.last_ns = c.end_ns;
    return c;
}

Finding stall(const char* kind, Side side, int64_t from_ms, int64_t to_ms, const Call& c) {
    Finding f;
    f.kind = kind;
    f.side = side;
    f.calls = {c.id};
    f.start_ns = c.start_ns + from_ms * kMs;
    f.end_ns = c.start_ns + to_ms * kMs;
    f.intervals = {{f.start_ns, f.end_ns}};
    f.cost_ms = double(to_ms - from_ms);
    return f;
}

double part(const Call& c, const std::string& cause) {
    for (auto& t : c.attribution)
        if (t.cause == cause) return t.ms;
    return 0;
}

double saving(const Call& c, const std::string& kind) {
    for (auto& s : c.savings)
        if (s.kind == kind) return s.ms;
    return 0;
}

bool has_detail(const Finding& f, const std::string& key) {
    return std::any_of(f.details.begin(), f.details.end(), [&](auto& d) { return d.first == key; });
}

} // namespace

TEST_CASE("ledger: plain call is request transfer, server, response transfer", "[ledger]") {
    Call c = plain_call();
    Connection conn;
    account_call(c, conn, {});
    CHECK(part(c, kRequestTransfer) == 60);
    CHECK(part(c, kServer) == 30);
    CHECK(part(c, kResponseTransfer) == 10);
    CHECK(c.savings.empty());
    CHECK(c.setup_ms == -1);
}

TEST_CASE("ledger: overlapping findings are counted once, under the root", "[ledger]") {
    Call c = plain_call();
    Connection conn;
    // Expect wait 10..50 ms, a Nagle hold 30..70 ms (crossing into server time).
    std::vector<Finding> f = {stall("nagle_delayed_ack", Side::Server, 30, 70, c),
                              stall("expect_100_wait", Side::Client, 10, 50, c)};
    account_call(c, conn, f);
    CHECK(part(c, "expect_100_wait") == 40);
    CHECK(part(c, "nagle_delayed_ack") == 20);
    CHECK(part(c, kRequestTransfer) == 10);  // 0..10; 50..60 is the Nagle hold
    CHECK(part(c, kServer) == 20);                // 70..90
    CHECK(part(c, kResponseTransfer) == 10);
    CHECK(f[1].counted_ms == 40);
    CHECK(f[0].counted_ms == 20);
    CHECK(f[0].cost_ms == 40);  // its own interval, unchanged
    CHECK(has_detail(f[0], "overlap"));
    CHECK(has_detail(f[1], "overlap"));
    // Fixing the root removes what it set off; fixing the other only its own.
    CHECK(saving(c, "expect_100_wait") == Approx(60));
    CHECK(saving(c, "nagle_delayed_ack") == Approx(40));
    int64_t sum = 0;
    for (auto& t : c.attribution) sum += us(t.ms);
    CHECK(sum == us(c.latency_ms));
}

TEST_CASE("ledger: cost is clipped to the call, server_time keeps what no stall covers", "[ledger]") {
    Call c = plain_call();
    Connection conn;
    std::vector<Finding> f = {stall("retransmission", Side::Client, 80, 300, c),
                              stall("server_time", Side::Server, 60, 90, c)};
    account_call(c, conn, f);
    CHECK(f[0].cost_ms == 20);  // 80..100: the rest lies after the call
    CHECK(part(c, "retransmission") == 20);
    CHECK(f[1].cost_ms == 20);  // 60..80 of its 30 ms
    CHECK(part(c, kServer) == 20);
}

TEST_CASE("ledger: parts add up to the latency to the microsecond", "[ledger]") {
    Call c = plain_call();
    c.end_ns = c.start_ns + 100 * kMs + 1499;  // sub-microsecond remainders everywhere
    c.latency_ms = double(c.end_ns - c.start_ns) / 1e6;
    c.request.last_ns += 333;
    c.response.first_ns += 777;
    Connection conn;
    std::vector<Finding> f = {stall("nagle_delayed_ack", Side::Client, 1, 2, c)};
    f[0].intervals[0].end_ns += 499;
    account_call(c, conn, f);
    int64_t sum = 0;
    for (auto& t : c.attribution) { CHECK(t.ms >= 0); sum += us(t.ms); }
    CHECK(sum == us(c.latency_ms));
}

TEST_CASE("ledger: every bundled capture, every call partitioned, shares <= 100%", "[ledger][captures]") {
    const std::vector<std::string> files = test::bundled_captures(STALLSCOPE_TESTDATA_DIR);
    bool saw_curl_expect = false;
    for (const std::string& path : files) {
        INFO(path);
        saw_curl_expect = saw_curl_expect || path.find("toolkit-curl-expect.pcap") != std::string::npos;
        AnalyzeOutcome o = analyze_file(path);
        REQUIRE(o.ok);
        const AnalysisResult& r = o.result;
        std::map<uint64_t, double> latency, client;
        for_each_call(r, [&](const Call& c) {
            if (!c.complete) return true;
            INFO("call " << c.id);
            latency[c.id] = c.latency_ms;
            client[c.id] = client_ms(c);
            int64_t sum = 0;
            for (auto& t : c.attribution) {
                CHECK(t.ms >= 0);
                sum += us(t.ms);
            }
            CHECK(sum == us(c.latency_ms));
            for (auto& s : c.savings) CHECK(s.ms <= c.latency_ms + 1e-9);
            return true;
        });
        for_each_finding(r, [&](const Finding& f) {
            double charged = 0;
            for (uint64_t id : f.calls) charged += is_setup_kind(f.kind) ? client[id] : latency[id];
            INFO(f.kind << " " << f.explanation);
            CHECK(f.cost_ms <= charged + 1e-6);
            CHECK(f.counted_ms <= f.cost_ms + 1e-6);
            return true;
        });
        for (const SummaryGroup* g : {&r.summary.overall}) {
            double in_latency = 0;
            for (auto& k : g->losses)
                if (k.kind != "connection_setup") in_latency += k.share;
            CHECK(in_latency <= 1.0 + 1e-9);
            // With the capture point off the server (a delayed path), the path's round trip is a part too.
            double parts = g->avoidable_ms + g->server_ms + g->transfer_ms;
            for (const TimeShare& t : g->attribution)
                if (t.cause == kNetwork) parts += t.ms;
            CHECK(std::fabs(parts - g->latency.total_ms) < 0.001 * double(g->latency.calls) + 1e-6);
            CHECK(g->avoidable_ms <= g->latency.total_ms + 1e-6);
            for (auto& w : g->what_if)
                CHECK(w.predicted_median_ms <= (w.client_time ? g->client_latency.median_ms : g->latency.median_ms) + 1e-9);
        }
    }
    CHECK(saw_curl_expect);
}

// The MS SOAP shape (seed Fig. 3): an unasked 100 Continue after the whole
// request, then Nagle holds the final response until the client's delayed
// ACK of the 100. One wait, started by the 100: counted once, under
// expect_100_wait; both findings say they overlap and which is the root.
TEST_CASE("ledger: a response held by Nagle behind an unasked 100 Continue is one wait, under expect_100_wait",
          "[ledger][captures]") {
    AnalyzeOutcome o = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-ms-soap.pcap");
    REQUIRE(o.ok);
    const AnalysisResult& r = o.result;
    std::map<uint64_t, double> expect_counted, nagle_cost;
    size_t expects = 0, nagles = 0;
    for_each_finding(r, [&](const Finding& f) {
        INFO(f.kind << ": " << f.explanation);
        if (f.kind == "expect_100_wait") {
            ++expects;
            CHECK(f.side == Side::Server);
            CHECK(f.counted_ms > 1.0);  // the ~40 ms hold, not 0
            CHECK(f.counted_ms == Approx(f.cost_ms).margin(0.001));
            CHECK(has_detail(f, "overlap"));
            for (auto& [k, v] : f.details)
                if (k == "overlap") CHECK(v.find("counted here, where the chain started") != std::string::npos);
            expect_counted[f.calls.front()] += f.counted_ms;
        } else if (f.kind == "nagle_delayed_ack") {
            ++nagles;
            CHECK(f.counted_ms == 0);
            CHECK(f.cost_ms > 1.0);
            CHECK(has_detail(f, "overlap"));
            for (auto& [k, v] : f.details)
                if (k == "overlap")
                    CHECK(v.find("expect_100_wait finding (server side), which started the chain") != std::string::npos);
            nagle_cost[f.calls.front()] += f.cost_ms;
        }
        return true;
    });
    CHECK(expects == 5);
    CHECK(nagles == 5);
    for_each_call(r, [&](const Call& c) {
        INFO("call " << c.id);
        CHECK(part(c, "nagle_delayed_ack") == 0);
        CHECK(part(c, "expect_100_wait") == Approx(nagle_cost[c.id]).margin(0.002));
        CHECK(part(c, "expect_100_wait") == Approx(expect_counted[c.id]).margin(0.002));
        // Either fix removes the whole wait (no Nagle hold without the 100, no hold with TCP_NODELAY).
        CHECK(saving(c, "expect_100_wait") == Approx(nagle_cost[c.id]).margin(0.002));
        CHECK(saving(c, "nagle_delayed_ack") == Approx(nagle_cost[c.id]).margin(0.002));
        return true;
    });
    // The summary counts it once: the stall total is the hold, not twice it.
    double lost = 0;
    for (auto& k : r.summary.overall.losses)
        if (k.avoidable) lost += k.lost_ms;
    double holds = 0;
    for (auto& [id, ms] : nagle_cost) holds += ms;
    CHECK(lost == Approx(holds).margin(0.01));
}

// Issue 14's own example, bundled: curl with Expect: 100-continue against the
// SOAP::Lite daemon on one kept-alive connection. From call 2 on the daemon's
// 100 Continue is held by Nagle inside curl's Expect wait: one wait, counted
// under expect_100_wait; the response's own hold is a second wait. The issue's
// report said 144 % of all call time: the shares now stay under 100 %.
TEST_CASE("ledger: curl Expect against SOAP::Lite: the held 100 Continue is counted once, under the Expect wait",
          "[ledger][captures]") {
    AnalyzeOutcome o = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/toolkit-curl-soaplite-expect.pcap");
    REQUIRE(o.ok);
    const AnalysisResult& r = o.result;
    size_t overlapped_nagles = 0, rooted_expects = 0;
    for_each_finding(r, [&](const Finding& f) {
        if (!has_detail(f, "overlap")) return true;
        INFO(f.kind << ": " << f.explanation);
        if (f.kind == "nagle_delayed_ack") {
            ++overlapped_nagles;
            CHECK(f.side == Side::Server);
            CHECK(f.cost_ms > 30);
            CHECK(f.counted_ms < 0.01);  // counted under the Expect wait
        } else if (f.kind == "expect_100_wait") {
            ++rooted_expects;
            CHECK(f.counted_ms > 30);
        }
        return true;
    });
    CHECK(overlapped_nagles >= 3);  // calls 2.. (call 1's 100 may be quick-ACKed)
    CHECK(rooted_expects == overlapped_nagles);
    double total = 0, lost = 0;
    for_each_call(r, [&](const Call& c) {
        total += c.latency_ms;
        lost += stall_ms(c);
        return true;
    });
    double summary_lost = 0;
    for (auto& k : r.summary.overall.losses)
        if (k.kind != "connection_setup") summary_lost += k.lost_ms;
    CHECK(summary_lost <= total + 1e-6);
    CHECK(r.summary.overall.avoidable_ms == Approx(lost).margin(0.01));
    double shares = 0;
    for (auto& k : r.summary.overall.losses)
        if (k.kind != "connection_setup") shares += k.share;
    CHECK(shares <= 1.0 + 1e-9);
}

// One connection per call, both closed by the client: the complete call's
// handshake is time the client lost; the incomplete call (no response) has
// no latency to share out, so its connection_setup finding counts 0 ms. The
// Summary and the Findings section read the one per-kind total (KindTotals)
// and say the same.
TEST_CASE("ledger: a connection_setup finding on an incomplete call counts the same in Summary and Findings",
          "[ledger]") {
    AnalysisOptions opt;
    AnalysisBack back(opt);
    auto one_shot = [&](bool complete, int64_t at_ms, int64_t handshake_ms) {
        Connection conn;
        conn.id = back.new_connection_id();
        conn.saw_syn = true;
        conn.syn_ns = at_ms * kMs;
        conn.synack_ns = conn.syn_ns + handshake_ms * kMs / 2;
        conn.ack_ns = conn.syn_ns + handshake_ms * kMs;
        conn.syn_frame = uint64_t(at_ms);
        conn.synack_frame = conn.syn_frame + 1;
        conn.ack_frame = conn.syn_frame + 2;
        conn.handshake_ms = double(handshake_ms);
        conn.calls = 1;
        conn.fin_client = true;
        Call c = plain_call();
        c.id = back.new_call_id();
        c.connection_id = conn.id;
        c.opened_connection = true;
        c.request_close = c.connection_close = true;
        c.method = "POST";
        c.uri = "/svc";
        c.start_ns = conn.ack_ns;
        c.request.first_ns = c.start_ns;
        c.request.last_ns = c.start_ns + 60 * kMs;
        if (complete) {
            c.end_ns = c.start_ns + 100 * kMs;
            c.response.first_ns = c.start_ns + 90 * kMs;
            c.response.last_ns = c.end_ns;
        } else {
            c.complete = false;
            c.end_ns = c.request.last_ns;
            c.latency_ms = 0;
            c.response = {};
        }
        back.call_ready(std::move(c), conn);
        back.connection_closed(std::move(conn));
    };
    one_shot(true, 1000, 30);
    one_shot(false, 5000, 50);
    AnalysisResult r = back.finish(CaptureInfo{}, SIZE_MAX, 0, SIZE_MAX, 0);

    std::vector<const Finding*> setups;
    for (const Finding& f : r.findings)
        if (f.kind == "connection_setup") setups.push_back(&f);
    REQUIRE(setups.size() == 2);
    CHECK(setups[0]->counted_ms == Approx(30));
    CHECK(setups[1]->cost_ms == Approx(50));  // what the handshake took: still told
    CHECK(setups[1]->counted_ms == 0);        // but no latency to charge it to

    const KindLoss* loss = nullptr;
    for (const KindLoss& k : r.summary.overall.losses)
        if (k.kind == "connection_setup") loss = &k;
    REQUIRE(loss);
    CHECK(loss->lost_ms == Approx(30));

    const std::string text = report_text(r);
    INFO(text);
    CHECK(text.find("connection_setup       30.000 ms before the first request byte") != std::string::npos);
    CHECK(text.find("connection_setup (client side): 2 findings, 30.000 ms in total") != std::string::npos);
}

TEST_CASE("ledger totals: causes in any order and repeated add up as a map by name would", "[ledger]") {
    // Calls list their causes in different orders and lengths (a cause's slot
    // is tried at its position first): every sum must land on its own name.
    const std::vector<std::vector<TimeShare>> calls = {
        {{"request_transfer", 1.5}, {"server", 10}, {"response_transfer", 2}},
        {{"request_transfer", 0.25}, {"server", 3}, {"response_transfer", 1}, {"network", 4}, {"nagle_delayed_ack", 40}},
        {{"nagle_delayed_ack", 39.5}, {"server", 2}, {"request_transfer", 1}, {"split_write", 40}},
        {{"response_transfer", 0.001}, {"split_write", 0.5}, {"server", 7}, {"network", 0.25}},
        {{"server", 1}},
        {{"retransmission", 200}, {"request_transfer", 0}},
    };
    LedgerTotals t;
    std::map<std::string, int64_t> want;
    for (const auto& shares : calls) {
        Call c;
        c.attribution = shares;
        t.add(c);
        for (const TimeShare& s : shares) want[s.cause] += us(s.ms);
    }
    int64_t stalls = 0;
    for (auto& [cause, v] : want) {
        CHECK(us(t.cause_ms(cause)) == v);
        if (is_stall_cause(cause)) stalls += v;
    }
    CHECK(t.cause_ms("expect_100_wait") == 0);
    CHECK(us(t.avoidable_ms()) == stalls);
    CHECK(us(t.transfer_ms()) == want["request_transfer"] + want["response_transfer"]);
    // By cause: largest first, ties by name.
    std::vector<TimeShare> v = t.by_cause();
    REQUIRE(v.size() == want.size());
    for (size_t i = 0; i < v.size(); ++i) {
        CHECK(us(v[i].ms) == want[v[i].cause]);
        if (i) CHECK((v[i - 1].ms > v[i].ms || (v[i - 1].ms == v[i].ms && v[i - 1].cause < v[i].cause)));
    }
}

TEST_CASE("ledger totals: a call added to two groups at once gives stall_ms and each group's sums", "[ledger]") {
    // The summary adds each call overall and to its operation's row in one
    // pass; the rows must equal those added one call at a time.
    const std::vector<std::vector<TimeShare>> calls = {
        {{"request_transfer", 1.5}, {"server", 10}, {"response_transfer", 2}},
        {{"nagle_delayed_ack", 39.5004}, {"server", 2}, {"split_write", 40.0006}, {"network", 1}},
        {{"server", 3}, {"nagle_delayed_ack", 0.0015}, {"expect_100_wait", 1000}},
        {{"retransmission", 200.25}, {"request_transfer", 0}},
    };
    LedgerTotals all, odd, all_once, odd_once;
    for (size_t i = 0; i < 40; ++i) {
        Call c;
        c.attribution = calls[i % calls.size()];
        c.setup_ms = i % 3 ? 0.125 * double(i) : -1;
        all_once.add(c);
        if (i % 2) odd_once.add(c);
        const double stall = i % 2 ? all.add(c, &odd) : all.add(c);
        CHECK(stall == stall_ms(c));
        CHECK((stall > 0) == (i % calls.size() != 0));
    }
    for (auto [a, b] : {std::pair{&all, &all_once}, std::pair{&odd, &odd_once}}) {
        std::vector<TimeShare> x = a->by_cause(), y = b->by_cause();
        REQUIRE(x.size() == y.size());
        for (size_t i = 0; i < x.size(); ++i) {
            CHECK(x[i].cause == y[i].cause);
            CHECK(x[i].ms == y[i].ms);
        }
        CHECK(a->avoidable_ms() == b->avoidable_ms());
        CHECK(a->setup_ms() == b->setup_ms());
    }
    CHECK(odd.setup_ms() > 0);
    CHECK(odd.setup_ms() < all.setup_ms());
}

TEST_CASE("ledger totals: equal sums keep name order", "[ledger]") {
    LedgerTotals t;
    Call c;
    c.attribution = {{"split_write", 5}, {"server", 5}, {"network", 5}, {"request_transfer", 5}};
    t.add(c);
    std::vector<TimeShare> v = t.by_cause();
    REQUIRE(v.size() == 4);
    CHECK(v[0].cause == "network");
    CHECK(v[1].cause == "request_transfer");
    CHECK(v[2].cause == "server");
    CHECK(v[3].cause == "split_write");
    CHECK(t.avoidable_ms() == 5);
}

TEST_CASE("ledger: ms_to_us rounds as std::llround(ms * 1000) does, halves and range ends included", "[ledger]") {
    std::mt19937_64 rng(26);
    std::vector<double> values = {0.0, -0.0, 0.0005, -0.0005, 0.0015, 2.5e-4, 1e-3, 4e12, -4e12, 3.999999e12, 4.1e12,
                                  1e300, -1e300, 0.49999999999999994 / 1000, 1.0000000000000002e-3};
    for (int i = 0; i < 100000; ++i) {
        const double half = (double(int64_t(rng() % 2000000001) - 1000000000) + 0.5) / 1000.0;
        values.push_back(half);
        values.push_back(std::nextafter(half, 1e300));
        values.push_back(std::nextafter(half, -1e300));
        values.push_back(double(int64_t(rng() % 2000000001) - 1000000000) / 1e6 * std::pow(10.0, int(rng() % 12)));
    }
    for (double v : values) {
        INFO(v);
        CHECK(ms_to_us(v) == std::llround(v * 1000.0));
    }
}

// A call with no stall and no Nagle hold takes a shortcut past the sweep
// (account_call sums the plain causes between the fixed points directly).
// The same call with one stall whose interval lies outside it goes through
// the sweep with nothing owned by that stall: both partitions must agree,
// on calls with and without a 100 Continue, with the path placed or not.
TEST_CASE("ledger: a call without stalls is partitioned as the sweep does it", "[ledger]") {
    std::mt19937_64 rng(26);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    for (int round = 0; round < 3000; ++round) {
        Call c;
        c.id = 7;
        c.complete = true;
        c.start_ns = 1000 * kMs + pick(0, 999'999);
        c.end_ns = c.start_ns + pick(0, 300 * kMs);
        c.latency_ms = double(c.end_ns - c.start_ns) / 1e6;
        c.request.first_ns = c.start_ns;
        c.request.last_ns = round % 7 == 0 ? 0 : c.start_ns + pick(0, c.end_ns - c.start_ns + 5 * kMs);
        c.response.first_ns = round % 11 == 0 ? 0 : c.start_ns + pick(-kMs, c.end_ns - c.start_ns);
        c.response.last_ns = c.end_ns;
        c.got_continue = round % 3 == 0;
        c.continue_ns = c.start_ns + pick(0, c.end_ns - c.start_ns);
        Connection conn;
        if (round % 2) {  // the path placed from a handshake: up to half a call's length each way
            conn.syn_frame = 1, conn.synack_frame = 2, conn.ack_frame = 3;
            conn.syn_ns = c.start_ns - 300 * kMs;
            conn.synack_ns = conn.syn_ns + pick(0, 200 * kMs);
            conn.ack_ns = conn.synack_ns + pick(0, 200 * kMs);
        }
        Call swept = c;
        Finding outside = stall("split_write", Side::Client, 0, 1, c);
        outside.intervals = {{c.end_ns + kMs, c.end_ns + 2 * kMs}};
        std::vector<Finding> f{outside};
        account_call(c, conn, {});
        account_call(swept, conn, f);
        INFO("round " << round);
        REQUIRE(c.attribution.size() == swept.attribution.size());
        int64_t sum = 0;
        for (size_t i = 0; i < c.attribution.size(); ++i) {
            CHECK(c.attribution[i].cause == swept.attribution[i].cause);
            CHECK(c.attribution[i].ms == swept.attribution[i].ms);
            sum += us(c.attribution[i].ms);
        }
        CHECK(sum == us(c.latency_ms));
        CHECK(c.savings.empty());
        CHECK(swept.savings.empty());
    }
}

// The floors of the parts (60,000.3 + 29,999.8 + 9,999.9 us) add up to two
// microseconds short of the latency: the two largest remainders get them.
TEST_CASE("ledger: the microseconds the floors lose go to the largest remainders", "[ledger]") {
    Call c = plain_call();
    c.request.last_ns = c.start_ns + 60 * kMs + 300;
    c.response.first_ns = c.start_ns + 90 * kMs + 100;
    account_call(c, Connection{}, {});
    CHECK(us(part(c, kRequestTransfer)) == 60'000);
    CHECK(us(part(c, kServer)) == 30'000);
    CHECK(us(part(c, kResponseTransfer)) == 10'000);
}

TEST_CASE("ledger: KindTotals sums per kind and per kind and side, in the order given", "[ledger]") {
    // Sums that round differently by order: each total must be the one added
    // left to right, per kind and per (kind, side), and unknown keys give 0.
    const std::vector<std::tuple<std::string, Side, double>> adds = {
        {"connection_setup", Side::Client, 1e16}, {"nagle_delayed_ack", Side::Server, 0.1},
        {"connection_setup", Side::Server, 1.0},  {"connection_setup", Side::Client, -1e16},
        {"nagle_delayed_ack", Side::Server, 0.2}, {"connection_setup", Side::Server, 0.5},
        {"nagle_delayed_ack", Side::Client, 0.3}};
    KindTotals t;
    std::map<std::string, double> want_kind;
    std::map<std::pair<std::string, Side>, double> want_side;
    for (const auto& [kind, side, ms] : adds) {
        t.add(kind, side, ms);
        want_kind[kind] += ms;
        want_side[{kind, side}] += ms;
    }
    for (const auto& [kind, ms] : want_kind) CHECK(t.ms(kind) == ms);
    for (const auto& [key, ms] : want_side) CHECK(t.ms(key.first, key.second) == ms);
    CHECK(t.ms("connection_setup") == (1e16 + 1.0 - 1e16) + 0.5);  // 1 lost to rounding, then 0.5
    CHECK(t.ms("nagle_delayed_ack", Side::Client) == 0.3);
    CHECK(t.ms("nagle_delayed_ack", Side::Server) == 0.1 + 0.2);
    CHECK(t.ms("split_write") == 0);
    CHECK(t.ms("split_write", Side::Client) == 0);
}
