// Captures that begin while keep-alive connections are open (issue 24): a
// public browsing capture analysed from many later frames on must pair every
// request with the response the whole capture pairs it with, or leave it
// unanswered; never with another one (the ACKs rule that out).
#include "analyzers/pipeline/streaming_analysis.h"
#include "capture/pcap/pcap_file_reader.h"

#include <catch2/catch.hpp>
#include "analyzers/tests/skip_when_absent.h"
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

fs::path public_capture(const char* name) {
    const char* env = std::getenv("STALLSCOPE_PUBLIC_CORPUS");
    return (env && *env ? fs::path(env) : fs::path(STALLSCOPE_PUBLIC_CORPUS_DIR)) / name;
}

// The capture as if it had begun at frame `first` (frames keep their numbers).
AnalysisResult analyse_from(const fs::path& path, uint64_t first) {
    std::string error;
    auto reader = PcapFileReader::open(path.string(), error);
    REQUIRE(reader);
    AnalysisOptions opt;
    Analyzer a(opt, path.string());
    Frame f;
    while (reader->next(f) == PcapFileReader::Status::Ok)
        if (f.number >= first) a.on_frame(f);
    return a.finish();
}

} // namespace

TEST_CASE("mid-connection starts: a browsing capture cut anywhere pairs no request with a response its ACKs rule out") {
    const fs::path path = public_capture("http__bro.org.pcap");
    if (!fs::exists(path)) {
        STALLSCOPE_SKIP(path.string() << " is absent (set STALLSCOPE_PUBLIC_CORPUS)");
    }
    const AnalysisResult whole = analyse_from(path, 1);
    std::map<uint64_t, uint64_t> truth;  // request first frame -> the first frame of the response paired with it
    for (const Call& c : whole.calls)
        if (c.status && c.response.first_frame) truth[c.request.first_frame] = c.response.first_frame;
    REQUIRE(truth.size() >= 25);

    size_t cuts = 0, paired = 0, unanswered = 0, mid_warned = 0;
    for (uint64_t first = 5; first < 420; first += 13) {
        const AnalysisResult cut = analyse_from(path, first);
        ++cuts;
        std::set<uint64_t> first_call_of_connection;
        std::map<uint64_t, uint64_t> seen_connection;
        for (const Call& c : cut.calls)
            if (!seen_connection.count(c.connection_id)) {
                seen_connection[c.connection_id] = c.id;
                first_call_of_connection.insert(c.id);
            }
        for (const Call& c : cut.calls) {
            INFO("cut at frame " << first << ", call " << c.id << " (request frame " << c.request.first_frame << ")");
            auto t = truth.find(c.request.first_frame);
            if (c.response.first_frame != 0 && c.status) {
                // Paired: with its own response, never a later one.
                REQUIRE(t != truth.end());
                CHECK(c.response.first_frame == t->second);
                if (c.complete) CHECK(c.latency_ms <= double(whole.capture.last_ns - whole.capture.first_ns) / 1e6);
                ++paired;
            } else if (t != truth.end() && t->second >= first) {
                // Its response was captured, yet it is unanswered: only the first call
                // of a connection whose start the capture missed may be.
                CHECK(first_call_of_connection.count(c.id) == 1);
                CHECK_FALSE(c.complete);
                ++unanswered;
            }
        }
        for (const Warning& w : cut.capture.warnings)
            if (w.message.find("began before the capture") != std::string::npos) ++mid_warned;
    }
    INFO(cuts << " cuts, " << paired << " calls paired, " << unanswered << " left unanswered, " << mid_warned
              << " connections warned as begun before the capture");
    CHECK(paired > 200);
    CHECK(mid_warned > 0);
}
