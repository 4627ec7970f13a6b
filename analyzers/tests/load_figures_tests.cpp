// The overview's figures so far (LoadCounters::figures, what the desktop
// app's Overview shows while a capture loads): read at each progress call of
// a big synthetic capture, with 1 and 2 threads, they only grow, never pass
// the result's, and end at the result's calls, latencies and time per kind.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/load_figures.h"

#include "app/cli/synthetic_capture.h"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

constexpr double kRounding = 1e-6;   // ms: the summary's sums of doubles against whole microseconds

uint64_t binned(const LoadFigures& f) {
    uint64_t n = f.latency_not_positive;
    for (auto& [bin, count] : f.latency_bins) n += count;
    return n;
}

// b is a's later state: nothing went down.
void check_grew(const LoadFigures& a, const LoadFigures& b) {
    CHECK(a.complete_calls <= b.complete_calls);
    CHECK(a.latency_max_ms <= b.latency_max_ms);
    CHECK(a.ledger.avoidable_ms() <= b.ledger.avoidable_ms());
    for (auto& [bin, count] : a.latency_bins) CHECK(count <= b.latency_bins.at(bin));
    for (auto& [kind, k] : a.kinds) {
        REQUIRE(b.kinds.count(kind));
        CHECK(k.findings <= b.kinds.at(kind).findings);
        CHECK(k.lost_ms <= b.kinds.at(kind).lost_ms + kRounding);
    }
}

void check_result(const LoadFigures& end, const SummaryGroup& all) {
    CHECK(end.ended);
    CHECK(end.complete_calls == all.latency.calls);
    CHECK(binned(end) == all.latency.calls);
    CHECK(end.latency_max_ms == all.latency.max_ms);
    CHECK(end.latency_total_ms == Approx(all.latency.total_ms).epsilon(1e-9));
    CHECK(end.ledger.avoidable_ms() == all.avoidable_ms);   // the same integer microseconds
    CHECK(end.ledger.cause_ms(kServer) == all.server_ms);
    CHECK(end.ledger.transfer_ms() == all.transfer_ms);
    REQUIRE(end.kinds.size() == all.losses.size());
    for (const KindLoss& k : all.losses) {
        INFO(k.kind);
        CHECK(end.kinds.at(k.kind).findings == k.findings);
        CHECK(end.kinds.at(k.kind).lost_ms == k.lost_ms);
    }
}

// The bench's synthetic capture of `packets` packets in the temp directory.
std::string synthetic(const std::string& what, uint64_t packets) {
    const std::string path =
        (fs::temp_directory_path() / ("stallscope-load-figures-" + what + std::to_string(getpid()) + ".pcap")).string();
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, packets, st, error));
    return path;
}

} // namespace

TEST_CASE("load figures: grow while a capture loads and end at the result's", "[load]") {
    // The bench's million packets: its HTTP/1.0 calls (the stalls) finish when their
    // connection's linger (1 s of capture time) runs out, from half-way through on.
    const std::string path = synthetic("grow-", 1000000);
    for (unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        AnalysisOptions opt;
        opt.threads = threads;
        opt.spill_after_calls = 5000;   // as the desktop app: the figures do not need the calls in memory
        opt.counters = std::make_shared<LoadCounters>();
        std::vector<LoadFigures> seen;
        AnalyzeOutcome o = analyze_file(path, opt, [&](const Progress&) {
            if (seen.size() < 100) seen.push_back(opt.counters->figures->get());
            return true;
        });
        REQUIRE(o.ok);
        const SummaryGroup& all = o.result.summary.overall;
        const LoadFigures end = opt.counters->figures->get();
        check_result(end, all);
        // Seen while loading: several states between none and the end, each one grown from the last.
        size_t between = 0;
        for (const LoadFigures& f : seen) {
            CHECK_FALSE(f.ended);
            between += f.complete_calls > 0 && f.complete_calls < end.complete_calls;
        }
        CHECK(between >= 2);
        for (size_t i = 1; i < seen.size(); ++i) check_grew(seen[i - 1], seen[i]);
        for (const LoadFigures& f : seen) check_grew(f, end);
        // Time was counted per kind while loading, not only at the end.
        bool lost_so_far = false;
        for (const LoadFigures& f : seen)
            for (auto& [kind, k] : f.kinds) lost_so_far = lost_so_far || (k.lost_ms > 0 && f.complete_calls < end.complete_calls);
        CHECK(lost_so_far);
    }
    fs::remove(path);
}

// The adding itself, not only the figures set at the end: every call and
// finding of a result fed to a fresh LoadFiguresSoFar gives the summary's
// time per kind to the microsecond a finding.
TEST_CASE("load figures: each call and finding counted as the summary counts it", "[load]") {
    const std::string path = synthetic("feed-", 40000);
    AnalyzeOutcome o = analyze_file(path);
    fs::remove(path);
    REQUIRE(o.ok);
    REQUIRE_FALSE(o.result.findings.empty());
    std::map<uint64_t, bool> complete;
    for (const Call& c : o.result.calls) complete[c.id] = c.complete;
    auto complete_calls = [&](const Finding& f) {
        size_t n = 0;
        for (uint64_t id : f.calls) n += complete.count(id) && complete[id];
        return n;
    };
    LoadFiguresSoFar fed;
    for (const Call& c : o.result.calls) fed.add(&c, {}, complete_calls);
    fed.add(nullptr, o.result.findings, complete_calls);
    const LoadFigures f = fed.get();
    const SummaryGroup& all = o.result.summary.overall;
    CHECK(f.complete_calls == all.latency.calls);
    CHECK(f.ledger.avoidable_ms() == all.avoidable_ms);
    REQUIRE(f.kinds.size() == all.losses.size());
    for (const KindLoss& k : all.losses) {
        INFO(k.kind);
        const LoadFigures::Kind& got = f.kinds.at(k.kind);
        CHECK(got.findings == k.findings);
        CHECK(got.lost_ms <= k.lost_ms + kRounding);
        CHECK(got.lost_ms >= k.lost_ms - 0.001 * double(k.findings) - kRounding);   // a microsecond a finding, floored
    }
}
