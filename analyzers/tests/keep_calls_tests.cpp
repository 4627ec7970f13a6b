// AnalysisOptions::keep_calls: calls past the kept ids are analysed (detectors,
// ledger, summary, counts) but not stored, and the text report, which lists
// only the first kTextReportCalls, is the same as with every call kept.
#include "analyzers/accounting/summary.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/sharded_analysis.h"
#include "analyzers/pipeline/streaming_analysis.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "capture/pcap/pcap_file_reader.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace stallscope;

namespace {

struct Stored {
    Frame frame;
    std::vector<uint8_t> bytes;
};

std::vector<Stored> read_frames(const std::string& path) {
    std::string error;
    auto reader = PcapFileReader::open(path, error);
    REQUIRE(reader);
    std::vector<Stored> frames;
    Frame f;
    while (reader->next(f) == PcapFileReader::Status::Ok) frames.push_back({f, {f.data.begin(), f.data.end()}});
    REQUIRE(!frames.empty());
    return frames;
}

// The capture replayed `times` times, each replay 2 s after the one before
// (its connections closed by then), through one thread or `threads` workers.
AnalysisResult replay(const std::vector<Stored>& frames, int times, const AnalysisOptions& o, unsigned threads) {
    auto feed = [&](auto& a) {
        uint64_t number = 0;
        for (int rep = 0; rep < times; ++rep)
            for (const Stored& s : frames) {
                Frame g = s.frame;
                g.number = ++number;
                g.ts_ns = s.frame.ts_ns + int64_t(rep) * 2'000'000'000;
                g.data = std::span<const uint8_t>(s.bytes);
                a.on_frame(g);
            }
        return a.finish();
    };
    if (threads <= 1) {
        Analyzer a(o, "replay");
        return feed(a);
    }
    ShardedAnalysis a(o, "replay", threads);
    return feed(a);
}

size_t stored_calls(const AnalysisResult& r) {
    size_t n = 0;
    for_each_call(r, [&](const Call& c) {
        CHECK(c.id <= kTextReportCalls);
        ++n;
        return true;
    });
    return n;
}

} // namespace

TEST_CASE("keep_calls: calls past the text report's list are counted, summarised and not stored, and the text "
          "report is the same", "[keep-calls]") {
    // A server-side capture over a 25 ms path (the report estimates the
    // client's time from every call) and a loopback one with findings.
    const std::string td = STALLSCOPE_TESTDATA_DIR;
    for (const std::string path : {td + "/path/path-server-nagle-25ms.server.pcap", td + "/toolkit-zeep-spyne.pcap"}) {
        const auto frames = read_frames(path);
        for (unsigned threads : {1u, 2u})
            for (size_t spill_after : {size_t(0), size_t(50), SIZE_MAX}) {
                INFO(path << ", " << threads << " threads, spill after " << spill_after);
                AnalysisOptions all;
                all.spill_after_calls = spill_after;
                AnalysisOptions some = all;
                some.keep_calls = kTextReportCalls;
                const int times = 200;
                const AnalysisResult full = replay(frames, times, all, threads);
                const AnalysisResult kept = replay(frames, times, some, threads);
                REQUIRE(call_count(full) > kTextReportCalls + 100);
                CHECK(call_count(kept) == call_count(full));
                CHECK(kept.calls_not_kept == call_count(full) - kTextReportCalls);
                CHECK(stored_calls(kept) == kTextReportCalls);
                CHECK(finding_count(kept) == finding_count(full));
                CHECK(report_csv_summary(kept) == report_csv_summary(full));
                const std::string text = report_text(kept);
                CHECK(text == report_text(full));
                if (path.find("path-server") != std::string::npos)  // from every call, not the kept ones
                    CHECK(text.find("The client lived about") != std::string::npos);
                CHECK(text.find("more calls (see --json or --csv)") != std::string::npos);
            }
    }
}

TEST_CASE("summary: the client's lived time is the median over the calls whose path to the client is known",
          "[keep-calls]") {
    std::vector<Call> calls;
    std::vector<double> lived;
    for (uint64_t id = 1; id <= 301; ++id) {
        Call c;
        c.id = id;
        c.complete = id % 7 != 0;               // incomplete calls count nowhere
        c.latency_ms = double((id * 37) % 101) / 3;
        c.client_path_ms = id % 5 == 0 ? -1 : double(id % 13);  // -1: not known
        if (c.complete && c.client_path_ms >= 0) lived.push_back(c.latency_ms + c.client_path_ms);
        calls.push_back(c);
    }
    const Summary s = summarize(calls, {});
    const LatencyStats want = latency_stats(lived);
    REQUIRE(want.calls > 100);
    CHECK(s.client_lived.calls == want.calls);
    CHECK(s.client_lived.median_ms == want.median_ms);
    CHECK(s.client_lived.max_ms == want.max_ms);
    // A path of 0 everywhere (client side, loopback): the latency's own figures
    // (taken without sorting again); one call further away changes them.
    std::vector<double> latencies;
    for (Call& c : calls) {
        c.client_path_ms = 0;
        if (c.complete) latencies.push_back(c.latency_ms);
    }
    const LatencyStats at_client = summarize(calls, {}).client_lived;
    CHECK(at_client.calls == latency_stats(latencies).calls);
    CHECK(at_client.median_ms == latency_stats(latencies).median_ms);
    CHECK(at_client.total_ms == latency_stats(latencies).total_ms);
    calls[0].client_path_ms = 1000;
    latencies[0] += 1000;  // call 1 is complete
    CHECK(summarize(calls, {}).client_lived.max_ms == latency_stats(latencies).max_ms);
    CHECK(summarize(calls, {}).client_lived.total_ms == latency_stats(latencies).total_ms);
    // No path known anywhere: no figure (the report prints no line).
    for (Call& c : calls) c.client_path_ms = -1;
    CHECK(summarize(calls, {}).client_lived.calls == 0);
}
