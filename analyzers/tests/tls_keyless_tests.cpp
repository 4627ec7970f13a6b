// HTTPS read without keys: record sizes, and calls and findings on a real capture.
#include <catch2/catch.hpp>

#include "analyzers/calls/tls_record_sizes.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/result/tls_carries.h"
#include "analyzers/accounting/capture_point_summary.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"

#include <string>
#include <vector>

using namespace stallscope;

TEST_CASE("tls record overhead: exact for AEAD suites, a lower bound for CBC, none for unknown suites") {
    CHECK(tls_record_overhead(0x0304, 0x1301).bytes == 17);  // AES-128-GCM: tag + inner type
    CHECK(tls_record_overhead(0x0304, 0x1303).bytes == 17);  // ChaCha20-Poly1305
    CHECK(tls_record_overhead(0x0304, 0x1301).exact);
    CHECK(tls_record_overhead(0x0303, 0xC02F).bytes == 24);  // ECDHE-RSA-AES128-GCM: nonce + tag
    CHECK(tls_record_overhead(0x0303, 0xCCA8).bytes == 16);  // ChaCha20: implicit nonce
    TlsRecordOverhead cbc = tls_record_overhead(0x0303, 0xC013);  // ECDHE-RSA-AES128-CBC-SHA
    CHECK_FALSE(cbc.exact);
    CHECK(cbc.bytes == 16 + 20 + 1);
    CHECK(tls_record_overhead(0x0303, 0xFFFF).bytes == 0);
    CHECK_FALSE(tls_record_overhead(0x0303, 0xFFFF).exact);
    CHECK(tls_cipher_suite_name(0x1302) == "TLS_AES_256_GCM_SHA384");
    CHECK(tls_cipher_suite_name(0xFFFF) == "0xFFFF");
    CHECK(tls_version_name(0x0304) == "TLS 1.3");
}

TEST_CASE("keyless TLS 1.3: the ticket stall, encrypted calls, the handshake as the first call's phase") {
    AnalyzeOutcome o = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/https-ticket-tls13.pcap");
    REQUIRE(o.ok);
    const AnalysisResult& r = o.result;
    REQUIRE(r.connections.size() == 1);
    REQUIRE(r.connections[0].tls);
    const ConnectionTls& t = *r.connections[0].tls;
    CHECK(t.version == "TLS 1.3");
    CHECK(t.sni == "refsvc.stallscope.test");
    CHECK_FALSE(t.decrypted);
    CHECK(t.reason.rfind("no_key_log:", 0) == 0);
    CHECK(t.sizes_exact);
    CHECK(t.session_tickets == 2);
    REQUIRE(r.calls.size() == 3);
    for (const Call& c : r.calls) {
        CHECK(c.encrypted);
        CHECK(c.complete);
        CHECK(c.method.empty());
        CHECK(c.status == 0);
    }
    bool handshake_phase = false;
    for (const Phase& p : r.calls[0].phases) handshake_phase |= p.kind == PhaseKind::TlsHandshake;
    CHECK(handshake_phase);
    int ticket = 0, nagle = 0;
    for (const Finding& f : r.findings) {
        if (f.kind == "tls_ticket_stall") {
            ++ticket;
            CHECK(f.side == Side::Server);
            CHECK(f.cost_ms > 30);              // a delayed ACK (40 ms on Linux) minus one RTT
            CHECK(f.counted_ms <= r.calls[0].latency_ms);
        }
        if (f.kind == "nagle_delayed_ack" || f.kind == "tls_nagle_delayed_ack") ++nagle;
    }
    CHECK(ticket == 1);
    CHECK(nagle == 0);  // the held segment is the whole response: no hold inside a message
}

TEST_CASE("keyless and keyed analyses of the same capture agree on calls, sizes and latencies") {
    const std::string base = std::string(STALLSCOPE_TESTDATA_DIR) + "/https-xsoap-tls12";
    AnalyzeOutcome keyless = analyze_file(base + ".pcap");
    AnalysisOptions opt;
    opt.keylog_path = base + ".keys";
    AnalyzeOutcome keyed = analyze_file(base + ".pcap", opt);
    REQUIRE(keyless.ok);
    REQUIRE(keyed.ok);
    REQUIRE(keyless.result.calls.size() == 4);
    REQUIRE(keyed.result.calls.size() == 4);
    REQUIRE(keyed.result.connections[0].tls);
    CHECK(keyed.result.connections[0].tls->decrypted);
    for (size_t i = 0; i < 4; ++i) {
        const Call& a = keyless.result.calls[i];
        const Call& b = keyed.result.calls[i];
        CHECK(a.encrypted);
        CHECK_FALSE(b.encrypted);
        CHECK(b.method == "POST");
        CHECK(a.request_first_frame == b.request_first_frame);
        CHECK(a.response_last_frame == b.response_last_frame);
        CHECK(a.latency_ms == b.latency_ms);
        CHECK(a.request.header_bytes + a.request.body_bytes == b.request.header_bytes + b.request.body_bytes);
        CHECK(a.response.header_bytes + a.response.body_bytes == b.response.header_bytes + b.response.body_bytes);
    }
}

namespace {
// testdata/NAME.pcap analysed keeping its segments, with NAME.keys or without.
AnalysisResult analyse_keeping_segments(const std::string& name, bool keyed) {
    const std::string base = std::string(STALLSCOPE_TESTDATA_DIR) + "/" + name;
    AnalysisOptions opt;
    opt.keep_segments = true;
    if (keyed) opt.keylog_path = base + ".keys";
    AnalyzeOutcome o = analyze_file(base + ".pcap", opt);
    INFO(o.error);
    REQUIRE(o.ok);
    return std::move(o.result);
}

// The call's segments that completed TLS handshake messages (or alerts).
std::vector<const SegmentInfo*> tls_message_segments(const Call& c) {
    std::vector<const SegmentInfo*> out;
    for (const SegmentInfo& s : c.segments)
        if (s.carries & carries::kTlsMessages) out.push_back(&s);
    return out;
}
} // namespace

TEST_CASE("TLS 1.2: the encrypted Finished after ChangeCipherSpec is named Finished, keyed and keyless") {
    for (bool keyed : {false, true}) {
        const AnalysisResult r = analyse_keeping_segments("https-expect-tls12", keyed);
        REQUIRE_FALSE(r.calls.empty());
        std::string labels;
        PerSide<int> finished = {0, 0};
        for (const SegmentInfo* s : tls_message_segments(r.calls[0])) {
            labels += carries_label(s->carries) + "\n";
            if (s->carries & carries::kTlsFinished) ++finished[s->from];
        }
        INFO((keyed ? "keyed:\n" : "keyless:\n") << labels);
        CHECK(finished[Side::Client] == 1);  // one Finished a side, each after its ChangeCipherSpec
        CHECK(finished[Side::Server] == 1);
        CHECK(labels.find("encrypted") == std::string::npos);
        CHECK(labels.find("ChangeCipherSpec+Finished") != std::string::npos);
    }
}

TEST_CASE("a keyless HTTPS capture is placed on the path as its keyed twin is") {
    // Captured at the server of a 20 ms round trip (reference-services: netns path).
    const std::string base = std::string(STALLSCOPE_TESTDATA_DIR) + "/https-path-bigcert-tls12";
    AnalysisOptions keyed_opt;
    keyed_opt.keylog_path = base + ".keys";
    AnalyzeOutcome keyless = analyze_file(base + ".pcap");
    AnalyzeOutcome keyed = analyze_file(base + ".pcap", keyed_opt);
    REQUIRE(keyless.ok);
    REQUIRE(keyed.ok);
    const CapturePointSummary a = summarize_capture_point(keyless.result);
    const CapturePointSummary b = summarize_capture_point(keyed.result);
    CHECK(a.place == CapturePlace::Server);
    CHECK(a.place == b.place);
    CHECK(a.connections == b.connections);
    CHECK(a.connections > 0);
    CHECK(a.client_side_ms == b.client_side_ms);
    CHECK(a.client_side_ms > 10);  // most of the round trip lies on the client's side
}

TEST_CASE("TLS 1.3: tickets and alerts named without keys, the decrypted flight named with them") {
    for (bool keyed : {false, true}) {
        const AnalysisResult r = analyse_keeping_segments("https-xsoap-tls13", keyed);
        std::string labels;
        int tickets = 0, alerts = 0, finished = 0;
        for (const Call& c : r.calls)
            for (const SegmentInfo* s : tls_message_segments(c)) {
                const std::string l = carries_label(s->carries);
                labels += l + "\n";
                tickets += l.find("SessionTicket") != std::string::npos;
                alerts += l.find("Alert") != std::string::npos;
                finished += l.find("Finished") != std::string::npos;
            }
        INFO((keyed ? "keyed:\n" : "keyless:\n") << labels);
        CHECK(tickets >= 2);  // OpenSSL's two tickets after the handshake (on the server's side)
        CHECK(alerts >= 1);   // close_notify at the end
        CHECK(finished == (keyed ? 2 : 0));  // hidden without keys
        CHECK(labels.find("ClientHello+ServerHello") == std::string::npos);
    }
}

TEST_CASE("the text report reads the connections once for where it was captured and its TLS lines") {
    // Its one pass (CapturePointTally beside the TLS lines) says what
    // summarize_capture_point says, whether the connections are in memory
    // or read back from the spill.
    const std::string base = std::string(STALLSCOPE_TESTDATA_DIR) + "/https-path-bigcert-tls12";
    for (size_t spill_after : {SIZE_MAX, size_t(0)}) {
        AnalysisOptions opt;
        opt.spill_after_calls = spill_after;
        AnalyzeOutcome out = analyze_file(base + ".pcap", opt);
        REQUIRE(out.ok);
        CHECK((out.result.spill != nullptr) == (spill_after == 0));
        const CapturePointSummary cp = summarize_capture_point(out.result);
        REQUIRE(cp.connections > 0);
        size_t tls = 0;
        for_each_connection(out.result, [&](const Connection& c) {
            tls += c.tls.has_value();
            return true;
        });
        REQUIRE(tls > 0);
        const std::string text = report_text(out.result);
        INFO(text);
        CHECK(text.find("  Captured near the server (from " + cp.evidence + ")") != std::string::npos);
        CHECK(text.find("\n  Latencies are " + cp.view + "\n") != std::string::npos);
        CHECK(text.find("\nTLS connections (" + std::to_string(tls) + ")\n") != std::string::npos);
    }
}
