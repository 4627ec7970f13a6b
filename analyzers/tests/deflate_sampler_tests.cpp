// The gzip estimate from a sample of each operation's bodies stays close to
// the one from compressing every body, on every bundled capture.
#include "analyzers/analyze.h"
#include "analyzers/deflate_sampler.h"
#include "analyzers/summary.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

struct Sums { double content = 0, deflated = 0; };

// content and deflate estimate summed per (operation, direction), as message_size sums them.
std::map<std::string, Sums> per_operation(const AnalysisResult& r) {
    std::map<std::string, Sums> out;
    for (const Call& c : r.calls) {
        int dir = 0;
        for (const MessageInfo* m : {&c.request, &c.response}) {
            ++dir;
            if (!m->deflate_estimate || m->content_bytes < 512) continue;
            Sums& s = out[std::to_string(dir) + " " + operation_key(c)];
            s.content += double(m->content_bytes);
            s.deflated += double(m->deflate_estimate);
        }
    }
    return out;
}

} // namespace

TEST_CASE("deflate sampler: compresses the first N of a key, then one in M, and scales the rest", "[deflate]") {
    std::string body;
    for (int i = 0; i < 200; ++i) body += "<item><name>n" + std::to_string(i % 7) + "</name></item>";
    DeflateSampler every(0, 0), sampled(2, 4);
    for (int i = 0; i < 10; ++i) {
        uint64_t exact = every.estimate("op", body);
        uint64_t est = sampled.estimate("op", body);
        CHECK(est == exact);  // the same body: the sampled ratio is its own
    }
    CHECK(every.compressed() == 10);
    CHECK(sampled.compressed() == 2 + 2);  // messages 1, 2, then 6 and 10
    DeflateSampler other(2, 4);
    other.estimate("a", body);
    other.estimate("b", body);
    CHECK(other.compressed() == 2);  // each key has its own sample
}

// Stated error: a sample of 2 then 1 in 4 (far smaller than the default 32
// then 1 in 64) keeps each operation's estimated gzip size within 5 % of
// compressing every body; with the defaults the bundled captures (fewer
// than 32 bodies per operation) are computed exactly.
TEST_CASE("deflate sampler: the sampled estimate is within 5% of the full one on every bundled capture", "[deflate]") {
    int compared = 0;
    for (auto& e : fs::directory_iterator(STALLSCOPE_TESTDATA_DIR)) {
        if (e.path().extension() != ".pcap") continue;
        AnalysisOptions full_opt;
        full_opt.deflate_sample_every = 0;
        AnalysisOptions small_opt;
        small_opt.deflate_sample_first = 2;
        small_opt.deflate_sample_every = 4;
        AnalyzeOutcome full = analyze_file(e.path().string(), full_opt);
        AnalyzeOutcome dflt = analyze_file(e.path().string());
        AnalyzeOutcome small = analyze_file(e.path().string(), small_opt);
        REQUIRE(full.ok);
        auto f = per_operation(full.result), d = per_operation(dflt.result), s = per_operation(small.result);
        REQUIRE(f.size() == s.size());
        for (auto& [op, sums] : f) {
            INFO(e.path().filename().string() << ": " << op);
            CHECK(s[op].content == sums.content);
            CHECK(std::abs(s[op].deflated - sums.deflated) <= 0.05 * sums.deflated);
            CHECK(d[op].deflated == sums.deflated);
            ++compared;
        }
    }
    CHECK(compared > 0);
}
