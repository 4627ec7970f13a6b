// The capture point: each side's round trip from the handshake and from
// data/ACK pairs, the place it names, and what the ledger and the Expect
// detector make of it (network time is never the server's).
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/accounting/capture_point_summary.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/result/result_spill.h"

#include <catch2/catch.hpp>

#include <memory>

using namespace stallscope;

namespace {

constexpr int64_t kMs = 1'000'000;

// A handshake seen at `syn`, the SYN-ACK `server_side` later, the ACK `client_side` after that.
Connection handshake(double server_side_ms, double client_side_ms) {
    Connection c;
    c.saw_syn = true;
    c.syn_frame = 1, c.synack_frame = 2, c.ack_frame = 3;
    c.syn_ns = 1000 * kMs;
    c.synack_ns = c.syn_ns + int64_t(server_side_ms * kMs);
    c.ack_ns = c.synack_ns + int64_t(client_side_ms * kMs);
    return c;
}

double part(const Call& c, const std::string& cause) {
    for (auto& t : c.attribution)
        if (t.cause == cause) return t.ms;
    return 0;
}

} // namespace

TEST_CASE("capture point: placed from the handshake") {
    SECTION("near the client: the server's side is the whole round trip") {
        PathPosition p = path_position(handshake(20, 0.05));
        REQUIRE(p.known);
        CHECK(p.from_handshake);
        CHECK(place_of(p) == CapturePlace::Client);
        CHECK(path_to(p, Side::Server) == 20 * kMs);
        CHECK(path_to(p, Side::Client) == 50'000);
    }
    SECTION("near the server") { CHECK(place_of(path_position(handshake(0.04, 50))) == CapturePlace::Server); }
    SECTION("half-way, whichever side the jitter favours: in the path") {
        CHECK(place_of(path_position(handshake(10.2, 9.8))) == CapturePlace::Path);
        CHECK(place_of(path_position(handshake(9.8, 10.2))) == CapturePlace::Path);
    }
    SECTION("loopback: both ends, and no side counts") {
        PathPosition p = path_position(handshake(0.02, 0.01));
        CHECK(place_of(p) == CapturePlace::Both);
        CHECK(path_to(p, Side::Server) == 0);
        CHECK(path_to(p, Side::Client) == 0);
    }
    SECTION("a retransmitted SYN gives no server-side sample") {
        Connection c = handshake(20, 0.05);
        c.syn_retransmissions = 1;
        CHECK_FALSE(path_position(c).known);
        CHECK(place_of(path_position(c)) == CapturePlace::Unknown);
    }
}

TEST_CASE("capture point: data/ACK pairs place a connection without a handshake, the least sample counts") {
    Connection c;
    c.client_path_ns = 0.03 * kMs;
    c.server_path_ns = 25 * kMs;
    c.path_samples = 9;
    PathPosition p = path_position(c);
    REQUIRE(p.known);
    CHECK_FALSE(p.from_handshake);
    CHECK(p.data_ack_pairs == 9);
    CHECK(place_of(p) == CapturePlace::Client);
    // A quicker data/ACK pair than the handshake wins (the handshake had a slow SYN-ACK).
    Connection h = handshake(30, 0.05);
    h.server_path_ns = 20 * kMs;
    h.client_path_ns = 1 * kMs;
    CHECK(path_to(path_position(h), Side::Server) == 20 * kMs);
    CHECK(path_to(path_position(h), Side::Client) == 50'000);
    // Only one side sampled: not placed.
    Connection one;
    one.server_path_ns = 20 * kMs;
    CHECK(place_of(path_position(one)) == CapturePlace::Unknown);
}

TEST_CASE("capture point: TTLs count routers, and place a connection only when the timing cannot") {
    CHECK(hops_from_ttl(0) == -1);
    CHECK(hops_from_ttl(64) == 0);
    CHECK(hops_from_ttl(63) == 1);
    CHECK(hops_from_ttl(50) == 14);
    CHECK(hops_from_ttl(128) == 0);
    CHECK(hops_from_ttl(117) == 11);
    CHECK(hops_from_ttl(255) == 0);
    CHECK(hops_from_ttl(240) == 15);
    CHECK(hops_from_ttl(30) == 2);
    // Every TTL against the rule as stated: the nearest common initial value
    // (32, 64, 128, 255) at or above it, minus it.
    for (int ttl = 1; ttl <= 255; ++ttl) {
        const int initial = ttl <= 32 ? 32 : ttl <= 64 ? 64 : ttl <= 128 ? 128 : 255;
        INFO(ttl);
        CHECK(hops_from_ttl(uint8_t(ttl)) == initial - ttl);
    }

    Connection c;  // no handshake, no data/ACK pair: the timing says nothing
    c.client_ttl = 64, c.server_ttl = 61;
    PathPosition p = path_position(c);
    CHECK_FALSE(p.known);
    CHECK(p.client_hops == 0);
    CHECK(p.server_hops == 3);
    CHECK(place_by_ttl(p) == CapturePlace::Client);
    CHECK(place_of(p) == CapturePlace::Client);
    CHECK(path_to(p, Side::Server) == 0);  // no milliseconds from routers
    c.client_ttl = 120, c.server_ttl = 64;
    CHECK(place_of(path_position(c)) == CapturePlace::Server);
    c.server_ttl = 60;
    CHECK(place_of(path_position(c)) == CapturePlace::Path);
    c.client_ttl = 64, c.server_ttl = 255;  // one segment, anywhere on it
    CHECK(place_of(path_position(c)) == CapturePlace::Unknown);
    c.server_ttl = 0;                       // one side's TTL unknown
    CHECK(place_of(path_position(c)) == CapturePlace::Unknown);

    // The timing wins where it exists: the middle tap of the test path sees
    // the TTLs a client-side capture sees, and is in the path.
    Connection mid = handshake(10.2, 9.8);
    mid.client_ttl = 64, mid.server_ttl = 63;
    CHECK(place_by_ttl(path_position(mid)) == CapturePlace::Client);
    CHECK(place_of(path_position(mid)) == CapturePlace::Path);
}

TEST_CASE("call ledger: the way to the server and back is network, not server time") {
    Call c;
    c.id = 1;
    c.complete = true;
    c.start_ns = 2000 * kMs;
    c.request.first_ns = c.start_ns;
    c.request.last_ns = c.start_ns + 1 * kMs;        // request: 1 ms
    c.response.first_ns = c.request.last_ns + 20'500'000;  // 20 ms path + 0.5 ms server
    c.response.last_ns = c.end_ns = c.response.first_ns + 1 * kMs;
    c.latency_ms = 22.5;
    SECTION("captured at the client: 20 ms network, 0.5 ms server") {
        account_call(c, handshake(20, 0.05), {});
        CHECK(part(c, kNetwork) == Approx(20).margin(0.001));
        CHECK(part(c, kServer) == Approx(0.5).margin(0.001));
        CHECK(c.view == CapturePlace::Client);
        CHECK(c.client_path_ms == Approx(0.05));
    }
    SECTION("captured half-way: 10 ms of it is network, the rest the server's as that point sees it") {
        account_call(c, handshake(10, 10), {});
        CHECK(part(c, kNetwork) == Approx(10).margin(0.001));
        CHECK(part(c, kServer) == Approx(10.5).margin(0.001));
        CHECK(c.view == CapturePlace::Path);
        CHECK(c.client_path_ms == Approx(10));
    }
    SECTION("loopback: no network cause at all, as before") {
        account_call(c, handshake(0.02, 0.01), {});
        CHECK(part(c, kNetwork) == 0);
        CHECK(part(c, kServer) == Approx(20.5).margin(0.001));
        bool listed = false;
        for (auto& t : c.attribution) listed |= t.cause == kNetwork;
        CHECK_FALSE(listed);
    }
    double sum = 0;
    for (auto& t : c.attribution) sum += t.ms;
    CHECK(sum == Approx(c.latency_ms).margin(0.001));
}

// A spilled result tallies its connections as they are added
// (ResultSpill::capture_point), so that the JSON report need not read them a
// second time: the summary must be the one a walk over the same connections
// gives, whatever they are and in whatever order they come.
TEST_CASE("capture point: a spilled result's, tallied as its connections came, is the walk's") {
    uint64_t x = 7;
    auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return x >> 33; };
    for (int round = 0; round < 30; ++round) {
        std::string error;
        auto file = SpillFile::create("", error);
        REQUIRE(file);
        auto spill = std::make_shared<ResultSpill>(std::move(file));
        AnalysisResult mem;
        const size_t n = next() % 80;
        for (size_t i = 0; i < n; ++i) {
            Connection c = next() % 3 ? handshake(double(next() % 400) / 10.0, double(next() % 400) / 10.0) : Connection{};
            c.id = 1 + (i * 7 + size_t(round)) % n;  // ids out of order: report order is by id
            c.http = next() % 4 != 0;
            if (next() % 5 == 0) c.tls.emplace();
            c.calls = uint32_t(next() % 3);
            c.client_ttl = uint8_t(next() % 256), c.server_ttl = uint8_t(next() % 256);
            if (next() % 2) {
                c.client_path_ns = int64_t(next() % 30'000'000), c.server_path_ns = int64_t(next() % 30'000'000);
                c.path_samples = uint32_t(1 + next() % 9);
            }
            spill->add(c);
            mem.connections.push_back(c);
        }
        spill->seal([](Finding&) {});
        AnalysisResult spilled;
        spilled.spill = spill;
        const CapturePointSummary a = summarize_capture_point(spilled), b = summarize_capture_point(mem);
        INFO("round " << round << ", " << n << " connections");
        CHECK(a.place == b.place);
        CHECK(a.client_side_ms == b.client_side_ms);
        CHECK(a.server_side_ms == b.server_side_ms);
        CHECK(a.connections == b.connections);
        for (size_t k = 0; k < 5; ++k) CHECK(a.by_place[k] == b.by_place[k]);
        CHECK(a.from_handshake == b.from_handshake);
        CHECK(a.data_ack_pairs == b.data_ack_pairs);
        CHECK(a.by_ttl == b.by_ttl);
        CHECK(a.client_hops == b.client_hops);
        CHECK(a.server_hops == b.server_hops);
        CHECK(a.evidence == b.evidence);
        CHECK(a.view == b.view);
        CHECK(spill->capture_point().evidence == a.evidence);  // asked twice: the same
    }
}
