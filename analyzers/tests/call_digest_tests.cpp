// A call the report does not keep reaches a sharded analysis' merge as a
// digest of what the merge reads of it (analyzers/pipeline/call_digest.h):
// the findings and the summary made of the digests are those made of the
// whole calls. The bundled captures check it end to end (sharded analysis
// tests); these check what message_size reads only of an operation it
// reports (the framing, an encoding already there), which no bundled capture
// has past an operation's first call.
#include "analyzers/pipeline/back_stage.h"
#include "analyzers/pipeline/call_digest.h"
#include "analyzers/report/report.h"
#include "capture/packet_decoder.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

// A complete SOAP call of one operation on connection 1, with large, very
// compressible bodies (message_size reports the operation).
Call sized_call(uint64_t id) {
    Call c;
    c.id = id;
    c.connection_id = 1;
    c.index_on_connection = uint32_t(id - 1);
    c.method = "POST";
    c.uri = "/orders";
    c.http_version = "HTTP/1.1";
    c.status = 200;
    c.soap.is_soap = c.soap_response.is_soap = true;
    c.soap.operation = "getOrders";
    c.soap.element_count = 40, c.soap_response.element_count = 900;
    c.complete = true;
    c.start_ns = int64_t(id) * 1'000'000'000;
    c.end_ns = c.start_ns + 5'000'000;
    c.latency_ms = 5;
    c.request_first_frame = 10 * id;
    c.response_last_frame = 10 * id + 5;
    uint64_t frame = 10 * id;
    for (MessageInfo* m : {&c.request, &c.response}) {
        m->first_frame = m->last_frame = frame++;
        m->header_bytes = 200;
        m->body_bytes = m->content_bytes = 40000;
        m->markup_bytes = 15000;
        m->deflate_estimate = 3000;
        m->complete = true;
    }
    c.attribution = {{"request_transfer", 1}, {"server", 3}, {"response_transfer", 1}};
    c.savings = {{"split_write", Side::Client, 0.5}};
    c.view = CapturePlace::Server;
    c.client_path_ms = 0.25;
    return c;
}

// Call `c` (its id the next one) to `back`, which keeps call 1 only: whole
// (call_worked), or past that as a digest (call_digested, through the
// merge's one record `digested`), as a sharded merge gets it.
void hand_on(AnalysisBack& back, const Call& c, const Connection& conn, bool digest, Call& digested) {
    REQUIRE(back.new_call_id() == c.id);
    std::vector<Finding> none;
    if (!digest || c.id == 1) return back.call_worked(Call(c), conn, none);
    CallDigest d;
    digest_call(c, d);
    undigest(d, digested);
    back.call_digested(digested, none);
}

std::string json_of(AnalysisBack& back) {
    std::ostringstream os;
    write_report_json(back.finish(CaptureInfo{}, SIZE_MAX, 0, SIZE_MAX, 0), os);
    return os.str();
}

// The calls through one AnalysisBack that keeps the first: the others whole
// (call_worked) or as digests (call_digested); the JSON report of it.
std::string report_of(const std::vector<Call>& calls, bool digests) {
    AnalysisOptions opt;
    opt.keep_calls = 1;
    AnalysisBack back(opt);
    Connection conn;
    conn.id = back.new_connection_id();
    Call digested;
    for (const Call& c : calls) {
        hand_on(back, c, conn, digests, digested);
    }
    conn.calls = calls.size();
    back.connection_closed(Connection(conn));
    return json_of(back);
}

// Two connections of one call each (connection_setup's case), the second
// call changed by `change`; the second whole or as a digest; the JSON report.
std::string one_call_connections(void (*change)(Call&), bool digests) {
    AnalysisOptions opt;
    opt.keep_calls = 1;
    AnalysisBack back(opt);
    Call digested;
    for (uint64_t i = 1; i <= 2; ++i) {
        Connection conn;
        conn.id = back.new_connection_id();
        conn.saw_syn = true;
        conn.syn_frame = 100 * i, conn.synack_frame = 100 * i + 1, conn.ack_frame = 100 * i + 2;
        conn.syn_ns = int64_t(i) * 1'000'000'000 - 3'000'000;
        conn.synack_ns = conn.syn_ns + 1'000'000, conn.ack_ns = conn.syn_ns + 2'000'000;
        conn.handshake_ms = 2;
        Call c = sized_call(i);
        c.connection_id = conn.id;
        c.index_on_connection = 0;
        c.opened_connection = true;
        c.http_version = "HTTP/1.1";
        c.user_agent = "Apache-HttpClient/4.5";
        c.server = "Apache-Coyote/1.1";
        c.request_first_frame = 100 * i + 3;
        c.setup_ms = 3;
        if (i == 2) change(c);
        hand_on(back, c, conn, digests, digested);
        conn.calls = 1;
        back.connection_closed(std::move(conn));
    }
    return json_of(back);
}

std::vector<Call> calls_with(void (*change)(Call&)) {
    std::vector<Call> calls;
    for (uint64_t id = 1; id <= 6; ++id) calls.push_back(sized_call(id));
    change(calls[4]);
    return calls;
}

} // namespace

TEST_CASE("call digest: message_size's framing and encoding of a later call, as from the whole call", "[threads]") {
    const std::string plain = report_of(calls_with([](Call&) {}), false);
    REQUIRE(plain.find("\"message_size\"") != std::string::npos);
    CHECK(plain.find("\"Content-Length\"") != std::string::npos);
    CHECK(report_of(calls_with([](Call&) {}), true) == plain);

    const auto response_chunked = calls_with([](Call& c) { c.response_chunked = true; });
    const std::string chunked = report_of(response_chunked, false);
    CHECK(chunked.find("\"chunked\"") != std::string::npos);
    CHECK(report_of(response_chunked, true) == chunked);

    const auto request_chunked = calls_with([](Call& c) { c.request_chunked = true; });
    CHECK(report_of(request_chunked, true) == report_of(request_chunked, false));

    const auto gzipped = calls_with([](Call& c) { c.content_encoding = "gzip"; });
    const std::string already = report_of(gzipped, false);
    CHECK(already != plain);  // nothing left to save: the operation is not reported
    CHECK(report_of(gzipped, true) == already);
}

TEST_CASE("call digest: what it carries lands on the merge's record, the rest stays Call{}'s", "[threads]") {
    const Call c = sized_call(7);
    CallDigest d;
    digest_call(c, d);
    Call got;
    undigest(d, got);
    CHECK(got.id == 7);
    CHECK(got.soap.operation == "getOrders");
    CHECK(got.response.markup_bytes == 15000);
    CHECK(got.attribution.size() == 3);
    CHECK(got.savings.size() == 1);
    CHECK(got.client_path_ms == 0.25);
    // Not read of a call that is not kept: not carried.
    CHECK(got.http_version.empty());
    CHECK(got.status == 0);
    CHECK(got.request.last_frame == 0);
    CHECK(got.view == CapturePlace::Unknown);
}

TEST_CASE("call digest: connection_setup's facts of a call that opened its connection, as from the whole call", "[threads]") {
    // Still open at the end, its request asked to close: a call alone on its connection.
    auto asked = [](Call& c) {
        c.connection_close = c.request_close = true;
        c.http_version = "HTTP/1.0";
    };
    const std::string alone = one_call_connections(asked, false);
    REQUIRE(alone.find("\"connection_setup\"") != std::string::npos);
    CHECK(alone.find("HTTP/1.0") != std::string::npos);
    CHECK(one_call_connections(asked, true) == alone);
    // Closed by the server first (a FIN among its segments).
    auto closed = [](Call& c) {
        c.connection_close = true;
        SegmentInfo fin;
        fin.frame = 250, fin.from = Side::Server, fin.flags = tcpflag::kFin;
        c.segments = {SegmentInfo{}, fin};
    };
    const std::string by_server = one_call_connections(closed, false);
    CHECK(by_server.find("closed_first_by") != std::string::npos);
    CHECK(one_call_connections(closed, true) == by_server);
    // TCP Fast Open: the request on the SYN.
    auto fast_open = [](Call& c) {
        c.connection_close = true;
        c.request_first_frame = 200;
    };
    const std::string tfo = one_call_connections(fast_open, false);
    CHECK(tfo.find("TCP Fast Open") != std::string::npos);
    CHECK(one_call_connections(fast_open, true) == tfo);
}
