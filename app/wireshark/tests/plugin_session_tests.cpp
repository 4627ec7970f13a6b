// The plugin session fed frame by frame (as Wireshark's first pass does)
// must give exactly what stallscope-cli's analyze_file() gives.
#include "app/wireshark/plugin_session.h"

#include "analyzers/pipeline/analyze_capture.h"
#include "capture/pcap/pcap_file_reader.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace stallscope;
using stallscope::ws::PluginSession;

namespace {

std::vector<std::string> test_captures() {
    std::vector<std::string> v;
    for (auto& e : std::filesystem::directory_iterator(STALLSCOPE_TESTDATA))
        // Embedded TLS secrets reach Wireshark's TLS dissector, not the plugin (docs/wireshark.md).
        if ((e.path().extension() == ".pcap" || e.path().extension() == ".pcapng") &&
            e.path().string().find(".keyed.") == std::string::npos)
            v.push_back(e.path().string());
    std::sort(v.begin(), v.end());
    REQUIRE(v.size() >= 20);  // the bundled captures are there: a loop over none proves nothing
    return v;
}

uint64_t feed_file(PluginSession& s, const std::string& path) {
    std::string err;
    auto reader = PcapFileReader::open(path, err);
    REQUIRE(reader);
    Frame f;
    uint64_t n = 0;
    while (reader->next(f) == PcapFileReader::Status::Ok) {
        s.on_first_pass_frame(f);
        ++n;
    }
    return n;
}

} // namespace

TEST_CASE("the plugin session finds what analyze_file finds, on every test capture") {
    auto files = test_captures();
    REQUIRE(!files.empty());
    PluginSession s;
    for (auto& path : files) {
        DYNAMIC_SECTION(std::filesystem::path(path).filename().string()) {
            s.reset();
            uint64_t n = feed_file(s, path);
            CHECK(s.frames_fed() == n);
            CHECK_FALSE(s.finished());
            s.mark(1);
            REQUIRE(s.finished());
            REQUIRE(s.marks());
            const AnalysisResult& got = s.marks()->result();

            AnalyzeOutcome want = analyze_file(path);
            REQUIRE(want.ok);
            REQUIRE(got.calls.size() == want.result.calls.size());
            CHECK(got.calls.size() > 0);
            for (size_t i = 0; i < got.calls.size(); ++i) {
                const Call& c = want.result.calls[i];
                CHECK(got.calls[i].id == c.id);
                CHECK(got.calls[i].soap.operation == c.soap.operation);
                // The call's first request frame is marked with it, in its header phase.
                const auto* m = s.mark(c.request_first_frame);
                REQUIRE(m);
                CHECK(m->call == c.id);
                CHECK(m->connection == c.connection_id);
                REQUIRE(m->phase);
                CHECK(std::string(m->phase) == "request_headers");
            }
            REQUIRE(got.findings.size() == want.result.findings.size());
            for (size_t i = 0; i < got.findings.size(); ++i) {
                const Finding& f = want.result.findings[i];
                CHECK(got.findings[i].kind == f.kind);
                CHECK(got.findings[i].frames == f.frames);
                CHECK(got.findings[i].cost_ms == Approx(f.cost_ms));
                for (uint64_t fr : f.frames) {
                    const auto* m = s.mark(fr);
                    REQUIRE(m);
                    CHECK(std::find(m->findings.begin(), m->findings.end(), uint32_t(i)) != m->findings.end());
                }
            }
        }
    }
}

TEST_CASE("the plugin session decrypts with Wireshark's key log as analyze_file with --keylog") {
    const std::string pcap = STALLSCOPE_TESTDATA "/https-xsoap-tls13.pcap";
    const std::string keys = STALLSCOPE_TESTDATA "/https-xsoap-tls13.keys";
    PluginSession s;
    s.reset(keys);
    CHECK(s.keylog_error().empty());
    feed_file(s, pcap);
    s.mark(1);
    REQUIRE(s.marks());
    const AnalysisResult& got = s.marks()->result();
    AnalysisOptions opt;
    opt.keylog_path = keys;
    AnalyzeOutcome want = analyze_file(pcap, opt);
    REQUIRE(want.ok);
    REQUIRE(got.calls.size() == want.result.calls.size());
    REQUIRE(got.calls.size() == 4);
    for (size_t i = 0; i < got.calls.size(); ++i) {
        CHECK_FALSE(got.calls[i].encrypted);
        CHECK(got.calls[i].soap.operation == want.result.calls[i].soap.operation);
        CHECK(got.calls[i].status == 200);
    }
    REQUIRE(got.findings.size() == want.result.findings.size());
    for (size_t i = 0; i < got.findings.size(); ++i) CHECK(got.findings[i].kind == want.result.findings[i].kind);

    // A key log that cannot be read: said, and the analysis is the keyless one.
    s.reset(STALLSCOPE_TESTDATA "/no-such.keys");
    CHECK(s.keylog_error().find("no-such.keys") != std::string::npos);
    feed_file(s, pcap);
    s.mark(1);
    REQUIRE(s.marks());
    for (const Call& c : s.marks()->result().calls) CHECK(c.encrypted);
}

TEST_CASE("frames that arrive after the analysis finished are counted, not analysed") {
    auto files = test_captures();
    REQUIRE(!files.empty());
    PluginSession s;
    feed_file(s, files.front());
    s.mark(1);
    size_t calls = s.marks()->result().calls.size();
    Frame late;
    late.number = 1000000;
    s.on_first_pass_frame(late);
    CHECK(s.frames_late() == 1);
    CHECK(s.marks()->result().calls.size() == calls);

    s.reset();  // a new file: empty again
    CHECK_FALSE(s.finished());
    CHECK(s.frames_fed() == 0);
    CHECK(s.marks() == nullptr);
    CHECK(s.mark(1) == nullptr);  // an empty capture has no marks
    CHECK(s.finished());
}

TEST_CASE("a frame seen twice in the first pass is analysed once") {
    auto files = test_captures();
    REQUIRE(!files.empty());
    std::string err;
    auto reader = PcapFileReader::open(files.front(), err);
    REQUIRE(reader);
    PluginSession s;
    Frame f;
    REQUIRE(reader->next(f) == PcapFileReader::Status::Ok);
    s.on_first_pass_frame(f);
    s.on_first_pass_frame(f);
    CHECK(s.frames_fed() == 1);
}

TEST_CASE("the plugin session refuses a capture nothing in which decodes, as analyze_file does") {
    const std::string path = std::string(STALLSCOPE_TESTDATA) + "/hostile/unknown-linktype.pcap";
    AnalyzeOutcome want = analyze_file(path);
    REQUIRE_FALSE(want.ok);
    PluginSession s;
    CHECK(feed_file(s, path) == 10);
    CHECK(s.mark(1) == nullptr);
    CHECK(s.marks() == nullptr);
    const std::string reason = want.error.substr(path.size());  // ": none of its 10 frames ..."
    CHECK(s.error() == "(wireshark)" + reason);
}
