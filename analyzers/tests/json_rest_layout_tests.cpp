// The connections' and findings' elements written from fixed runs
// (json_connection_layout.h, json_finding_layout.h) against the general
// member-by-member writers (report_json_general.h): the same bytes for
// random hostile values, every indent the runs fit and the fallback where
// they do not.
#include "analyzers/report/json_connection_layout.h"
#include "analyzers/report/json_finding_layout.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/report/report_json_general.h"
#include "analyzers/tests/hostile_values.h"

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
using test::awkward_double;
using test::hostile_text;

namespace {

// Now and then a string past the stream's short-string path (4 KiB) or its
// buffer (64 KiB), with a byte that needs escaping near its end.
std::string some_text(std::mt19937_64& rng) {
    switch (rng() % 40) {
    case 0: return std::string(5000, 'x') + "\"" + hostile_text(rng);
    case 1: return std::string(70'000, 'y') + "\n";
    default: return hostile_text(rng);
    }
}

Endpoint random_endpoint(std::mt19937_64& rng) {
    Endpoint e;
    uint8_t b[16];
    for (auto& x : b) x = rng() % 3 ? uint8_t(rng()) : uint8_t(rng() % 10);  // one, two and three digits
    switch (rng() % 4) {
    case 0: e.addr = IpAddress::v6(b); break;
    case 1: break;  // family 0: "?"
    default: e.addr = IpAddress::v4(b);
    }
    e.port = rng() % 2 ? uint16_t(rng()) : uint16_t(rng() % 10);
    return e;
}

Connection random_connection(std::mt19937_64& rng) {
    auto n = [&](uint64_t max) { return rng() % (max + 1); };
    auto big = [&] { return rng() >> n(63); };
    Connection k;
    k.id = big();
    k.client = random_endpoint(rng);
    k.server = random_endpoint(rng);
    k.saw_syn = n(1);
    k.syn_ns = n(1) ? int64_t(big()) : 0;
    k.synack_ns = n(1) ? k.syn_ns + int64_t(n(5'000'000)) : 0;
    k.ack_ns = n(1) ? k.synack_ns + int64_t(n(5'000'000)) : 0;
    k.syn_retransmissions = uint32_t(big());
    if (n(1)) k.handshake_ms = awkward_double(rng);
    if (n(1)) k.client_mss = uint16_t(big());
    if (n(1)) k.server_mss = uint16_t(big());
    if (n(1)) k.client_wscale = uint8_t(big());
    if (n(1)) k.server_wscale = uint8_t(big());
    k.first_frame = big();
    k.last_frame = big();
    k.packets = big();
    k.client_bytes = big();
    k.server_bytes = big();
    k.retransmissions = uint32_t(big());
    k.gap_bytes = big();
    k.client_path_ns = n(2) ? int64_t(n(10'000'000)) : -1;
    k.server_path_ns = n(2) ? int64_t(n(10'000'000)) : -1;
    k.path_samples = uint32_t(n(20));
    k.client_ttl = uint8_t(rng());
    k.server_ttl = n(1) ? uint8_t(rng()) : 0;
    k.fin_client = n(1);
    k.fin_server = n(1);
    k.rst = n(1);
    k.calls = uint32_t(big());
    k.http = n(1);
    if (n(1)) {
        ConnectionTls t;
        t.version = some_text(rng);
        t.cipher_suite = some_text(rng);
        t.sni = some_text(rng);
        t.alpn = n(1) ? "" : some_text(rng);
        t.resumed = n(1);
        t.resumption_offered = n(1);
        t.decrypted = n(1);
        t.reason = some_text(rng);
        t.handshake_first_frame = big();
        t.handshake_last_frame = n(1) ? big() : 0;
        t.handshake_start_ns = int64_t(big() >> 2);
        t.handshake_end_ns = t.handshake_start_ns + int64_t(n(1'000'000'000));
        t.certificate_bytes = big();
        t.server_flight_bytes = big();
        t.server_flight_segments = uint32_t(big());
        t.session_tickets = uint32_t(n(3));
        t.record_overhead = uint32_t(n(40));
        t.sizes_exact = n(1);
        k.tls = t;
    }
    return k;
}

Finding random_finding(std::mt19937_64& rng, int64_t t0) {
    auto n = [&](uint64_t max) { return rng() % (max + 1); };
    auto big = [&] { return rng() >> n(63); };
    auto when = [&] { return t0 + (int64_t(big() >> 4) % 4'000'000'000'000'000) * (n(1) ? 1 : -1); };
    Finding f;
    f.kind = some_text(rng);
    f.side = n(1) ? Side::Client : Side::Server;
    f.connection_id = big();
    for (size_t j = n(4); j > 0; --j) f.calls.push_back(big());
    for (size_t j = n(1) ? n(12) : 0; j > 0; --j) f.frames.push_back(big());
    f.cost_ms = awkward_double(rng);
    f.cost_method = some_text(rng);
    f.explanation = some_text(rng);
    f.fix = some_text(rng);
    f.toolkit = n(1) ? some_text(rng) : "";
    f.toolkit_fix = n(1) ? some_text(rng) : "";
    f.start_ns = when();
    f.end_ns = when();
    for (size_t j = n(3); j > 0; --j) f.intervals.push_back({when(), when()});
    f.counted_ms = awkward_double(rng);
    // Keys given twice keep their first place and last value; keys that need escaping.
    static const char* keys[] = {"write_sizes", "gap_ms", "write_sizes", "\xff", "", "a\"b", "tab\tkey"};
    for (size_t j = n(6); j > 0; --j) f.details.push_back({keys[n(6)], some_text(rng)});
    return f;
}

// Elements written into an array `depth` containers deep (the report's
// are 2), first by `fixed` (which must say whether it wrote), then by
// `general`; both documents returned.
struct Both {
    std::string fixed, general;
    bool all_fixed = true, none_fixed = true;
};
template <class T>
Both write_both(const std::vector<T>& items, int indent, size_t depth,
                const std::function<bool(JsonStream&, const T&)>& fixed,
                const std::function<void(JsonStream&, const T&)>& general) {
    Both out;
    std::ostringstream a, b;
    {
        JsonStream wa(a, indent), wb(b, indent);
        wa.resume_inside(depth, 0);
        wb.resume_inside(depth, 0);
        for (const T& x : items) {
            const uint64_t before = wa.written();
            if (fixed(wa, x)) {
                out.none_fixed = false;
            } else {
                out.all_fixed = false;
                CHECK(wa.written() == before);  // nothing written when it does not fit
                general(wa, x);
            }
            general(wb, x);
        }
    }
    out.fixed = a.str();
    out.general = b.str();
    return out;
}

// The runs are 64 bytes at most (the longest is two lines and a key): up to
// indent 4 they fit at the report's depth (2), at 9 a connection's do and a
// finding's intervals' do not, at 20 and at 9 four deep nothing fits.
enum Fit { kNo, kYes, kEither };
struct Case {
    int indent;
    size_t depth;
    Fit fits;
};
const Case kCases[] = {{2, 2, kYes}, {-1, 2, kYes}, {0, 2, kYes}, {3, 2, kYes}, {4, 2, kYes}, {2, 1, kYes},
                       {2, 5, kYes}, {9, 2, kEither}, {9, 4, kNo}, {20, 2, kNo}, {-1, 40, kYes}};

} // namespace

TEST_CASE("report json: connections from fixed runs are the general path's bytes", "[json]") {
    std::mt19937_64 rng(26026);
    for (int round = 0; round < 40; ++round) {
        std::vector<Connection> ks;
        for (size_t i = rng() % 30; i > 0; --i) ks.push_back(random_connection(rng));
        for (const Case& c : kCases) {
            INFO("round " << round << ", indent " << c.indent << ", depth " << c.depth);
            Both both = write_both<Connection>(ks, c.indent, c.depth, connection_json_layout, connection_json_general);
            REQUIRE(both.fixed == both.general);
            if (!ks.empty() && c.fits != kEither) CHECK((c.fits == kYes ? both.all_fixed : both.none_fixed));
        }
    }
}

TEST_CASE("report json: findings from fixed runs are the general path's bytes", "[json]") {
    std::mt19937_64 rng(26027);
    for (int round = 0; round < 40; ++round) {
        const int64_t t0 = int64_t(rng() >> 2);
        std::vector<Finding> fs;
        for (size_t i = rng() % 30; i > 0; --i) fs.push_back(random_finding(rng, t0));
        CaptureInfo one;
        for (const Case& c : kCases) {
            INFO("round " << round << ", indent " << c.indent << ", depth " << c.depth);
            Both both = write_both<Finding>(
                fs, c.indent, c.depth,
                [&](JsonStream& w, const Finding& f) { return finding_json_layout(w, f, t0, one); },
                [&](JsonStream& w, const Finding& f) { finding_json_general(w, f, t0, one); });
            REQUIRE(both.fixed == both.general);
            if (!fs.empty() && c.fits != kEither) CHECK((c.fits == kYes ? both.all_fixed : both.none_fixed));
        }
    }
}

TEST_CASE("report json: a file set's findings take the general path (frame_locations)", "[json]") {
    std::mt19937_64 rng(26028);
    CaptureInfo set;
    set.files = {{"a.pcap", 10}, {"b.pcap", 20}};
    Finding f = random_finding(rng, 0);
    std::ostringstream os;
    JsonStream w(os, 2);
    w.resume_inside(2, 0);
    CHECK_FALSE(finding_json_layout(w, f, 0, set));
    CHECK(w.written() == 0);
}

TEST_CASE("report json: empty lists and plain elements from fixed runs", "[json]") {
    Connection k;
    k.id = 7;
    k.client.addr = IpAddress::v4(reinterpret_cast<const uint8_t*>("\x0a\x00\x00\x01"));
    k.client.port = 80;
    Finding f;
    f.kind = "split_write";
    for (int indent : {2, -1, 0}) {
        INFO("indent " << indent);
        Both kc = write_both<Connection>({k, k}, indent, 2, connection_json_layout, connection_json_general);
        CHECK(kc.fixed == kc.general);
        CHECK(kc.all_fixed);
        CHECK(kc.fixed.find("\"10.0.0.1:80\"") != std::string::npos);
        CaptureInfo one;
        Both fc = write_both<Finding>(
            {f}, indent, 2, [&](JsonStream& w, const Finding& x) { return finding_json_layout(w, x, 0, one); },
            [&](JsonStream& w, const Finding& x) { finding_json_general(w, x, 0, one); });
        CHECK(fc.fixed == fc.general);
        CHECK(fc.all_fixed);
        CHECK(fc.fixed.find(indent < 0 ? "\"details\":{}" : "\"details\": {}") != std::string::npos);
        CHECK(fc.fixed.find(indent < 0 ? "\"intervals\":[]" : "\"intervals\": []") != std::string::npos);
    }
}
