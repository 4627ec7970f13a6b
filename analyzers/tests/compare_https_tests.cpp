// compare on HTTPS: a capture whose TLS records stall against one that does
// not, read without keys and with them (the secrets embedded in the pcapng).
#include "analyzers/compare/compare.h"
#include "analyzers/pipeline/analyze_capture.h"

#include <catch2/catch.hpp>

using namespace stallscope;

namespace {
AnalysisResult analyse(const std::string& file) {
    AnalyzeOutcome o = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/" + file);
    INFO(o.error);
    REQUIRE(o.ok);
    return o.result;
}

Verdict verdict_of(const Comparison& c, const std::string& kind) {
    for (const KindComparison& k : c.kinds)
        if (k.kind == kind) return k.verdict;
    return Verdict::AbsentInBoth;
}
} // namespace

TEST_CASE("compare on HTTPS: the stalled capture against a clean one, keyless and keyed", "[compare][tls]") {
    // https-xsoap-tls13: headers and body in two records with Nagle on, ~88 ms calls (its label);
    // https-gsoap-tls13: one record per message, no stall.
    for (bool keyed : {false, true}) {
        INFO((keyed ? "keyed" : "keyless"));
        const char* ext = keyed ? ".keyed.pcapng" : ".pcap";
        AnalysisResult before = analyse(std::string("https-xsoap-tls13") + ext);
        AnalysisResult after = analyse(std::string("https-gsoap-tls13") + ext);
        Comparison c = compare_results(before, after);
        CHECK(c.overall.change == LatencyChange::Faster);
        CHECK(c.overall.median_change_ms < -40);
        // Keyless the stall is the TLS record's; keyed, the HTTP message's.
        CHECK(verdict_of(c, keyed ? "nagle_delayed_ack" : "tls_nagle_delayed_ack") == Verdict::Fixed);
        // Keyed, the after capture's larger echoInts envelopes add a message_size note (new): not a stall.
        if (!keyed) CHECK(expect_no_regression(c).ok);
        Comparison r = compare_results(after, before);
        CHECK(r.overall.change == LatencyChange::Slower);
        CHECK_FALSE(expect_no_regression(r).ok);
    }
}
