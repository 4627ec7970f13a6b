// compare from spilled analyses (what `stallscope-cli compare` does on big
// captures) gives the reports of the analyses held in memory, byte for byte.
#include "analyzers/compare/compare.h"
#include "analyzers/compare/compare_input.h"
#include "analyzers/compare/compare_report.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/result/result_spill.h"

#include <catch2/catch.hpp>

using namespace stallscope;

namespace {

std::string testdata(const std::string& name) { return std::string(STALLSCOPE_TESTDATA_DIR) + "/" + name; }

AnalysisResult analyse(const std::string& file, size_t spill_after) {
    AnalysisOptions opt;
    opt.spill_after_calls = spill_after;
    AnalyzeOutcome o = analyze_file(testdata(file), opt);
    INFO(file << ": " << o.error);
    REQUIRE(o.ok);
    return std::move(o.result);
}

} // namespace

TEST_CASE("compare of spilled analyses is the compare of the analyses in memory", "[compare][spill]") {
    struct Pair { const char* before; const char* after; };
    auto pair = GENERATE(Pair{"refsvc-apache-soap.pcap", "refsvc-apache-soap-fixed.pcap"},
                         Pair{"refsvc-ms-soap.pcap", "refsvc-ms-soap-fixed.pcap"},
                         Pair{"toolkit-zeep-spyne-keepalive.pcap", "toolkit-zeep-spyne-fixed.pcap"},
                         Pair{"toolkit-curl-expect.pcap", "toolkit-curl-expect-fixed.pcap"},
                         Pair{"refsvc-xsoap.pcap", "refsvc-gsoap.pcap"},
                         Pair{"refsvc-apache-soap-fixed.pcap", "refsvc-apache-soap.pcap"});
    INFO(pair.before << " -> " << pair.after);
    const AnalysisResult mb = analyse(pair.before, SIZE_MAX), ma = analyse(pair.after, SIZE_MAX);
    // Spilled from the first call, and past one call: every item read from disk.
    const size_t spill_after = GENERATE(size_t(0), size_t(1));
    const AnalysisResult db = analyse(pair.before, spill_after), da = analyse(pair.after, spill_after);
    REQUIRE(!mb.spill);
    REQUIRE(db.spill);
    REQUIRE(da.spill);
    REQUIRE(mb.calls.size() > 1);
    REQUIRE(db.calls.empty());  // the calls really are on disk

    const Comparison in_memory = compare_results(mb, ma);
    // What the CLI does: each side reduced on its own, the analysis dropped.
    const Comparison spilled = compare_inputs(compare_input(db), compare_input(da));
    CHECK(compare_json(spilled) == compare_json(in_memory));
    CHECK(compare_text(spilled) == compare_text(in_memory));
    CHECK(compare_markdown(spilled) == compare_markdown(in_memory));
    CHECK(spilled.before.calls == mb.calls.size());
    CHECK(spilled.after.findings == ma.findings.size());
}

TEST_CASE("compare input: what a side keeps", "[compare][spill]") {
    const AnalysisResult r = analyse("refsvc-apache-soap.pcap", 0);
    const CompareInput in = compare_input(r);
    size_t complete = 0, calls = 0;
    for_each_call(r, [&](const Call& c) { ++calls; complete += c.complete; return true; });
    CHECK(in.calls == calls);
    CHECK(in.complete.size() == complete);
    for (size_t i = 1; i < in.complete.size(); ++i) CHECK(in.complete[i - 1].id < in.complete[i].id);
    // A tally's calls are distinct and ascending, and at most the capture's calls.
    for (const auto& [key, t] : in.tallies) {
        CHECK(t.findings > 0);
        CHECK(t.calls.size() <= calls);
        for (size_t i = 1; i < t.calls.size(); ++i) CHECK(t.calls[i - 1] < t.calls[i]);
    }
}
