// End to end on the bundled captures: a stalled capture against its fixed
// twin. What each capture holds is read from its label, not assumed here.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/compare/compare.h"
#include "analyzers/compare/compare_report.h"

#include <algorithm>
#include <cmath>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace stallscope;

namespace {

std::string testdata(const std::string& name) { return std::string(STALLSCOPE_TESTDATA_DIR) + "/" + name; }

int label_count(const std::string& stem, const std::string& kind) {
    std::ifstream in(testdata(stem + ".label.json"));
    REQUIRE(in.good());
    auto j = nlohmann::json::parse(in);
    return j["pathologies"].value(kind, 0);
}

std::vector<double> label_latencies(const std::string& stem) {
    std::ifstream in(testdata(stem + ".label.json"));
    REQUIRE(in.good());
    return nlohmann::json::parse(in)["client_latencies_ms"].get<std::vector<double>>();
}

AnalysisResult analyse(const std::string& stem) {
    AnalyzeOutcome o = analyze_file(testdata(stem + ".pcap"));
    INFO(o.error);
    REQUIRE(o.ok);
    return o.result;
}

const KindComparison& kind_of(const Comparison& c, const std::string& kind) {
    for (auto& k : c.kinds)
        if (k.kind == kind) return k;
    FAIL("no kind " << kind);
    return c.kinds.front();
}

} // namespace

TEST_CASE("a stalled capture against its fixed twin: the stall is fixed, reversed it is new", "[compare][e2e]") {
    struct Pair { const char* before; const char* after; const char* kind; };
    auto pair = GENERATE(Pair{"refsvc-apache-soap", "refsvc-apache-soap-fixed", "nagle_delayed_ack"},
                         Pair{"refsvc-ms-soap", "refsvc-ms-soap-fixed", "nagle_delayed_ack"},
                         Pair{"toolkit-zeep-spyne-keepalive", "toolkit-zeep-spyne-fixed", "nagle_delayed_ack"},
                         Pair{"toolkit-curl-expect", "toolkit-curl-expect-fixed", "expect_100_wait"});
    INFO(pair.before << " -> " << pair.after << ": " << pair.kind);
    // The labels say the stall is in the first and not in the second.
    REQUIRE(label_count(pair.before, pair.kind) > 0);
    REQUIRE(label_count(pair.after, pair.kind) == 0);

    AnalysisResult before = analyse(pair.before), after = analyse(pair.after);
    Comparison c = compare_results(before, after);
    const KindComparison& k = kind_of(c, pair.kind);
    CHECK(k.verdict == Verdict::Fixed);
    CHECK(k.before.calls_affected == uint64_t(label_count(pair.before, pair.kind)));
    CHECK(expect_fixed(c, pair.kind).ok);
    CHECK(c.overall.median_change_ms < 0);
    CHECK(expect_no_regression(c).ok == true);
    // Where the client's own latencies do not overlap at all (every call lost
    // its stall), 5 vs 5 calls are enough for the rank test to call it.
    std::vector<double> lb = label_latencies(pair.before), la = label_latencies(pair.after);
    bool separated = *std::max_element(la.begin(), la.end()) < *std::min_element(lb.begin(), lb.end());
    if (separated) CHECK(c.overall.change == LatencyChange::Faster);

    Comparison r = compare_results(after, before);
    CHECK(kind_of(r, pair.kind).verdict == Verdict::New);
    CHECK_FALSE(expect_fixed(r, pair.kind).ok);
    CHECK_FALSE(expect_no_regression(r).ok);
    if (separated) CHECK(r.overall.change == LatencyChange::Slower);
}

TEST_CASE("a capture against itself changes nothing", "[compare][e2e]") {
    AnalysisResult a = analyse("refsvc-xsoap");
    Comparison c = compare_results(a, a);
    CHECK(c.overall.test.p_value == Approx(1.0));
    CHECK(c.overall.change != LatencyChange::Faster);
    CHECK(c.overall.change != LatencyChange::Slower);
    for (auto& k : c.kinds) {
        CHECK(k.verdict != Verdict::Fixed);
        CHECK(k.verdict != Verdict::New);
        CHECK_FALSE(k.worse);
    }
    CHECK(expect_no_regression(c).ok);
    CHECK_FALSE(expect_fixed(c, "nagle_delayed_ack").ok);
}

namespace {
const PredictionCheck* prediction_of(const Comparison& c, const std::string& kind, const std::string& side) {
    for (auto& p : c.predictions)
        if (p.kind == kind && p.side == side) return &p;
    return nullptr;
}
} // namespace

// The predictions of docs/compare.md's table that meet the goal: the error is
// within 10 % of the measured improvement or 1 ms, whichever is larger.
TEST_CASE("predictions: a fix's predicted median is checked against the capture after it", "[compare][predict]") {
    struct Case { const char *before, *after, *kind, *side; };
    for (const Case& k : {Case{"refsvc-apache-soap", "refsvc-apache-soap-fixed", "nagle_delayed_ack", "client"},
                          Case{"refsvc-apache-soap", "refsvc-apache-soap-fixed", "all_stalls", ""},
                          Case{"refsvc-ms-soap", "refsvc-ms-soap-fixed", "nagle_delayed_ack", "server"},
                          Case{"toolkit-curl-expect", "toolkit-curl-expect-fixed", "expect_100_wait", "client"},
                          Case{"toolkit-zeep-spyne-keepalive", "toolkit-zeep-spyne-fixed", "nagle_delayed_ack", "server"},
                          Case{"toolkit-gsoap", "toolkit-gsoap-fixed", "connection_setup", "client"}}) {
        INFO(k.before << " -> " << k.after << ": " << k.kind);
        Comparison c = compare_results(analyse(k.before), analyse(k.after));
        const PredictionCheck* p = prediction_of(c, k.kind, k.side);
        REQUIRE(p);
        CHECK(p->verdict == "fixed");
        CHECK(p->error_ms == Approx(p->predicted_median_ms - p->measured_median_ms));
        double improvement = p->before_median_ms - p->measured_median_ms;
        CHECK(std::fabs(p->error_ms) <= std::max(1.0, 0.1 * std::fabs(improvement)));
        CHECK(p->predicted_median_ms < p->before_median_ms);
    }
    // No fix made, no prediction checked: the same capture on both sides.
    Comparison same = compare_results(analyse("refsvc-xsoap"), analyse("refsvc-xsoap"));
    CHECK(same.predictions.empty());
}

// refsvc-xsoap stalls on both sides; refsvc-xsoap-client-nodelay is the same
// run with TCP_NODELAY on the client only: a partial fix.
TEST_CASE("verdicts per side: a client-only fix says the server still stalls", "[compare][e2e][side]") {
    REQUIRE(label_count("refsvc-xsoap-client-nodelay", "nagle_delayed_ack") > 0);
    AnalysisResult before = analyse("refsvc-xsoap"), after = analyse("refsvc-xsoap-client-nodelay");
    Comparison c = compare_results(before, after);
    const KindComparison& k = kind_of(c, "nagle_delayed_ack");
    REQUIRE(k.sides.size() == 2);
    CHECK(k.split_by_side());
    const SideVerdict &client = k.sides[0], &server = k.sides[1];
    CHECK(client.side == "client");
    CHECK(server.side == "server");
    CHECK(client.before.findings > 0);
    CHECK(client.after.findings == 0);
    CHECK(client.verdict == Verdict::Fixed);
    CHECK(client.still.empty());
    CHECK(server.after.findings > 0);
    CHECK(server.verdict == Verdict::StillPresent);
    CHECK(server.still.find("the server still holds its response for the client's delayed ACK") != std::string::npos);
    CHECK(server.still.find("TCP_NODELAY on the server") != std::string::npos);
    // The sides add up to the kind.
    CHECK(client.before.findings + server.before.findings == k.before.findings);
    CHECK(client.after.findings + server.after.findings == k.after.findings);
    CHECK(client.before.lost_ms + server.before.lost_ms == Approx(k.before.lost_ms));

    std::string text = compare_text(c);
    CHECK(text.find("fixed:         nagle_delayed_ack (client)") != std::string::npos);
    CHECK(text.find("still present: nagle_delayed_ack (server)") != std::string::npos);
    CHECK(text.find("Still to fix (per side)\n  nagle_delayed_ack (server) still present: the server still holds") !=
          std::string::npos);
    std::string md = compare_markdown(c);
    CHECK(md.find("**Verdict:** fixed: nagle_delayed_ack (client);") != std::string::npos);
    CHECK(md.find("| nagle_delayed_ack (server) |") != std::string::npos);
    CHECK(md.find("- nagle_delayed_ack (server) still present: the server still holds") != std::string::npos);
    auto j = nlohmann::json::parse(compare_json(c));
    const auto* jk = &j["kinds"][0];
    for (auto& x : j["kinds"])
        if (x["kind"] == "nagle_delayed_ack") jk = &x;
    REQUIRE((*jk)["sides"].size() == 2);
    CHECK((*jk)["sides"][0]["side"] == "client");
    CHECK((*jk)["sides"][0]["verdict"] == "fixed");
    CHECK((*jk)["sides"][0]["still"].is_null());
    CHECK((*jk)["sides"][1]["verdict"] == "still present");
    CHECK((*jk)["sides"][1]["still"].get<std::string>().find("server") != std::string::npos);

    // The prediction for the client fix names that side.
    bool predicted = false;
    for (auto& p : c.predictions) predicted |= p.kind == "nagle_delayed_ack" && p.side == "client";
    CHECK(predicted);
}

TEST_CASE("verdicts per side: a full fix leaves nothing to fix and splits no kind", "[compare][e2e][side]") {
    Comparison c = compare_results(analyse("refsvc-xsoap"), analyse("refsvc-gsoap"));
    for (auto& k : c.kinds) CHECK_FALSE(k.split_by_side());
    CHECK(still_to_fix(c).empty());
    CHECK(compare_text(c).find("Still to fix") == std::string::npos);
    CHECK(kind_of(c, "nagle_delayed_ack").sides.size() == 2);  // both sides, both fixed
}

// refsvc-xsoap-nodelay is refsvc-xsoap with TCP_NODELAY on both sides: the
// prediction shown first is for both Nagle holds removed together, not for
// either side alone (each of those leaves the other's ~44 ms). Tolerance:
// docs/compare.md's goal for predictions, |error| within 10 % of the
// measured improvement or 1 ms, whichever is larger.
TEST_CASE("predictions: a fix on both sides is predicted as both removed together, and matches", "[compare][predict]") {
    REQUIRE(label_count("refsvc-xsoap-nodelay", "nagle_delayed_ack") == 0);
    const Comparison c = compare_results(analyse("refsvc-xsoap"), analyse("refsvc-xsoap-nodelay"));
    REQUIRE_FALSE(c.predictions.empty());
    const PredictionCheck& p = c.predictions.front();
    CHECK(p.for_after);
    CHECK(p.kind == "nagle_delayed_ack");
    CHECK(p.side == "client+server");
    CHECK(p.verdict == "fixed");
    REQUIRE(p.fixes.size() == 2);
    CHECK(p.fixes[0] == std::make_pair(std::string("nagle_delayed_ack"), std::string("client")));
    CHECK(p.fixes[1] == std::make_pair(std::string("nagle_delayed_ack"), std::string("server")));
    const double improvement = p.before_median_ms - p.measured_median_ms;
    CHECK(improvement > 80);   // two ~44 ms holds gone
    CHECK(std::fabs(p.error_ms) <= std::max(1.0, 0.1 * improvement));
    // Each side alone predicts one hold left: far off, and not the one shown first.
    for (const char* side : {"client", "server"}) {
        const PredictionCheck* alone = prediction_of(c, "nagle_delayed_ack", side);
        REQUIRE(alone);
        CHECK_FALSE(alone->for_after);
        CHECK(alone->error_ms > 30);
    }
    // Every stall was a Nagle hold: removed together they are all stalls removed (the ledger's exact figure).
    const PredictionCheck* all = prediction_of(c, "all_stalls", "");
    REQUIRE(all);
    CHECK(p.predicted_median_ms == Approx(all->predicted_median_ms).margin(0.001));

    // The same, first, in every output: text, Markdown (bold), JSON (prediction_for_after, fixes).
    const std::string text = compare_text(c);
    const auto at = text.find("Predictions (made from");
    REQUIRE(at != std::string::npos);
    CHECK(text.find("\n  what after removed, nagle_delayed_ack (client+server) fixed: predicted ", at) ==
          text.find('\n', at));
    CHECK(compare_markdown(c).find("- **what after removed, nagle_delayed_ack (client+server) fixed: predicted ") !=
          std::string::npos);
    const auto j = nlohmann::json::parse(compare_json(c));
    REQUIRE(j["prediction_for_after"].is_object());
    CHECK(j["prediction_for_after"]["side"] == "client+server");
    CHECK(j["prediction_for_after"]["fixes"].size() == 2);
    CHECK(j["predictions"][0]["for_after"] == true);
    CHECK(j["predictions"][0].contains("error_ms"));   // the fields every entry had stay
    CHECK(j["predictions"][1]["for_after"] == false);
}

// Fixes of two kinds removed together (refsvc-ms-soap: the server's
// unneeded 100 Continue and the Nagle hold it set off, overlapping in each
// call): the sum of what each removes, capped at the call's stall time, is
// the ledger's all-stalls figure, not twice it.
TEST_CASE("predictions: overlapping fixes removed together count the overlap once", "[compare][predict]") {
    const Comparison c = compare_results(analyse("refsvc-ms-soap"), analyse("refsvc-ms-soap-fixed"));
    REQUIRE_FALSE(c.predictions.empty());
    const PredictionCheck& p = c.predictions.front();
    CHECK(p.for_after);
    CHECK(p.kind == "combined");
    CHECK(p.fixes.size() == 2);
    const PredictionCheck* all = prediction_of(c, "all_stalls", "");
    REQUIRE(all);
    CHECK(p.predicted_median_ms == Approx(all->predicted_median_ms).margin(0.001));
    CHECK(p.predicted_median_ms > 0);
}
