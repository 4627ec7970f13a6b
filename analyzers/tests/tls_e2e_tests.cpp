// HTTPS with keys, end to end (analyze_file): Wireshark's public TLS test
// captures decrypt to the HTTP/1.1 calls tshark shows, each byte on the
// frame of the record that carried it; a connection that cannot be
// decrypted says why, naming the frame. The captures are read where they are
// (env STALLSCOPE_PUBLIC_TLS overrides; see /work/shared/corpus/public-tls/README.md).
#include "analyzers/pipeline/analyze_capture.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

fs::path tls_corpus() {
    const char* env = std::getenv("STALLSCOPE_PUBLIC_TLS");
    return env && *env ? fs::path(env) : fs::path(STALLSCOPE_PUBLIC_TLS_DIR);
}

bool have_corpus() {
    if (fs::exists(tls_corpus() / "tls13-rfc8446.pcap")) return true;
    WARN("SKIPPED: public TLS captures " << tls_corpus().string() << " are absent (set STALLSCOPE_PUBLIC_TLS)");
    return false;
}

AnalysisResult analyze(const std::string& capture, const std::string& keylog = {}, unsigned threads = 1) {
    AnalysisOptions o;
    o.keylog_path = keylog;
    o.threads = threads;
    AnalyzeOutcome out = analyze_file((tls_corpus() / capture).string(), o);
    REQUIRE(out.ok);
    return std::move(out.result);
}

// "GET /first 200 5 6": method, uri, status, request first frame, response last frame.
std::vector<std::string> calls_of(const AnalysisResult& r) {
    std::vector<std::string> out;
    for (const Call& c : r.calls)
        out.push_back(c.method + " " + c.uri + " " + std::to_string(c.status) + " " +
                      std::to_string(c.request.first_frame) + " " + std::to_string(c.response.last_frame));
    return out;
}

// The public TLS captures hold TLS records only, no TCP handshake: each
// connection rightly says it began before the capture. The other warnings.
size_t other_warnings(const AnalysisResult& r) {
    size_t n = 0;
    for (const Warning& w : r.capture.warnings) n += w.code != WarningCode::BeganBeforeCapture;
    return n;
}

// Without usable keys every call is the keyless model's: encrypted, no
// method, no status (none invented from bytes that were not decrypted).
bool only_keyless_calls(const AnalysisResult& r) {
    for (const Call& c : r.calls)
        if (!c.encrypted || c.status != 0 || (c.soap.is_soap && !c.soap.operation.empty())) return false;
    return true;
}

bool has_warning(const AnalysisResult& r, const std::string& part, uint64_t conn) {
    for (const Warning& w : r.capture.warnings)
        if (w.message.find(part) != std::string::npos && w.connection_id == conn) return true;
    return false;
}

} // namespace

TEST_CASE("TLS 1.3 with the key log: every call tshark shows, on its frames, 0-RTT included", "[tls]") {
    if (!have_corpus()) return;
    auto r = analyze("tls13-rfc8446.pcap", (tls_corpus() / "tls13-rfc8446.keys").string());
    // tshark -o tls.keylog_file:tls13-rfc8446.keys -r tls13-rfc8446.pcap -Y http: frames 5/6, 8/10, 12/13.
    CHECK(calls_of(r) == std::vector<std::string>{"GET /first 200 5 6", "GET /early 200 8 10", "GET /second 200 12 13"});
    CHECK(other_warnings(r) == 0);
    for (const Call& c : r.calls) {
        CHECK(c.complete);
        CHECK(c.latency_ms >= 0);
    }
    // The 0-RTT request was sent at 3.302511 s, its answer at 3.304171 s.
    REQUIRE(r.calls.size() == 3);
    CHECK(r.calls[1].latency_ms == Approx(1.660).margin(0.001));
}

TEST_CASE("TLS 1.3 without the early secret: 0-RTT not decrypted, said with its frame, the rest decrypts", "[tls]") {
    if (!have_corpus()) return;
    auto r = analyze("tls13-rfc8446.pcap", (tls_corpus() / "tls13-rfc8446-noearly.keys").string());
    CHECK(calls_of(r) == std::vector<std::string>{"GET /first 200 5 6", "GET /second 200 12 13"});
    CHECK(has_warning(r, "0-RTT (early) data at frame 8 not decrypted", 2));
}

TEST_CASE("TLS 1.2 with secrets embedded in the pcapng: both connections decrypt, one or many threads", "[tls]") {
    if (!have_corpus()) return;
    // tshark -r tls12-dsb.pcapng -Y http: frames 6/7 and 14/15. One DSB is in the middle of the file.
    for (unsigned threads : {1u, 2u}) {
        auto r = analyze("tls12-dsb.pcapng", {}, threads);
        CHECK(calls_of(r) == std::vector<std::string>{"HEAD / 200 6 7", "HEAD / 200 14 15"});
        CHECK(other_warnings(r) == 0);
    }
}

TEST_CASE("HTTPS without keys: keyless calls only, and no warnings", "[tls]") {
    if (!have_corpus()) return;
    auto r = analyze("tls13-rfc8446.pcap");
    CHECK(!r.calls.empty());
    CHECK(only_keyless_calls(r));
    CHECK(other_warnings(r) == 0);
}

TEST_CASE("a key log for other connections: each connection says it has no key, naming it", "[tls]") {
    if (!have_corpus()) return;
    fs::path other = fs::temp_directory_path() / "stallscope-tls-other.keys";
    std::ofstream(other) << "CLIENT_RANDOM " << std::string(64, '1') << " " << std::string(96, '2') << "\n";
    auto r = analyze("tls13-rfc8446.pcap", other.string());
    CHECK(only_keyless_calls(r));
    CHECK(has_warning(r, "no key for this TLS connection", 1));
    CHECK(has_warning(r, "no key for this TLS connection", 2));
    fs::remove(other);
}

TEST_CASE("a wrong key: authentication fails at a named frame, no invented calls, no key bytes in warnings", "[tls]") {
    if (!have_corpus()) return;
    std::ifstream in(tls_corpus() / "tls13-rfc8446.keys");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), line, bad;
    std::istringstream lines(text);
    while (std::getline(lines, line)) {
        if (!line.empty()) line.back() = line.back() == '0' ? '1' : '0';  // the secret's last hex digit
        bad += line + "\n";
    }
    fs::path wrong = fs::temp_directory_path() / "stallscope-tls-wrong.keys";
    std::ofstream(wrong) << bad;
    auto r = analyze("tls13-rfc8446.pcap", wrong.string());
    CHECK(only_keyless_calls(r));
    CHECK(has_warning(r, "failed authentication", 1));
    for (const Warning& w : r.capture.warnings) {
        INFO(w.message);
        CHECK(w.message.find("2635fafc") == std::string::npos);
        CHECK(w.frame > 0);
    }
    fs::remove(wrong);
}

TEST_CASE("an unreadable key log is an error naming it", "[tls]") {
    if (!have_corpus()) return;
    AnalysisOptions o;
    o.keylog_path = "/nonexistent/stallscope.keys";
    AnalyzeOutcome out = analyze_file((tls_corpus() / "tls13-rfc8446.pcap").string(), o);
    CHECK_FALSE(out.ok);
    CHECK(out.error.find("/nonexistent/stallscope.keys") != std::string::npos);
}
