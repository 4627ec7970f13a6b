// The spill encoding of Call / Connection / Finding: exact round trips
// (every field, doubles bit for bit, optionals set and unset, extremes),
// malformed input rejected without overreading (every truncation, random
// byte flips, wrong record type, trailing bytes), and every result of real
// captures surviving the trip. Speed and size are printed, not asserted.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/calls/parked_calls.h"
#include "analyzers/result/call_reuse.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/result/model_spill.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

// Field-by-field comparison naming the first field that differs ("" = same),
// so a failure on a real capture says where, without an assertion per field.
struct Diff {
    std::string where;
    template <class T> void eq(const char* name, const T& a, const T& b) {
        if (where.empty() && !(a == b)) where = name;
    }
    void eq(const char* name, double a, double b) {
        if (where.empty() && std::bit_cast<uint64_t>(a) != std::bit_cast<uint64_t>(b)) where = name;
    }
    void eq(const char* name, const std::optional<double>& a, const std::optional<double>& b) {
        if (a.has_value() != b.has_value()) { if (where.empty()) where = name; return; }
        if (a) eq(name, *a, *b);
    }
};
#define EQ(f) d.eq(#f, a.f, b.f)

void compare(Diff& d, const SoapInfo& a, const SoapInfo& b) {
    EQ(is_soap); EQ(version); EQ(operation); EQ(operation_ns); EQ(fault); EQ(fault_code); EQ(fault_string);
    EQ(element_count); EQ(max_depth); EQ(bytes); EQ(error);
}

void compare(Diff& d, const MessageInfo& a, const MessageInfo& b) {
    EQ(first_frame); EQ(headers_end_frame); EQ(body_first_frame); EQ(last_frame);
    EQ(first_ns); EQ(headers_end_ns); EQ(body_first_ns); EQ(last_ns);
    EQ(header_bytes); EQ(body_bytes); EQ(write_sizes); EQ(frames); EQ(complete); EQ(missing_bytes);
    EQ(content_bytes); EQ(markup_bytes); EQ(deflate_estimate); EQ(deflate_pick); EQ(whole_xml);
}

std::string diff(const Call& a, const Call& b) {
    Diff d;
    EQ(id); EQ(connection_id); EQ(index_on_connection); EQ(method); EQ(uri); EQ(http_version); EQ(status);
    EQ(reason); EQ(user_agent); EQ(server); EQ(content_type); EQ(soap_action); EQ(content_encoding);
    EQ(expect_continue); EQ(got_continue); EQ(continue_frame); EQ(continue_ns); EQ(request_chunked);
    EQ(response_chunked); EQ(connection_close); EQ(request_close);
    compare(d, a.request, b.request);
    compare(d, a.response, b.response);
    compare(d, a.soap, b.soap);
    compare(d, a.soap_response, b.soap_response);
    EQ(request_first_frame); EQ(response_last_frame); EQ(start_ns); EQ(end_ns); EQ(latency_ms); EQ(complete);
    EQ(opened_connection); EQ(closed_connection);
    EQ(phases.size());
    for (size_t i = 0; i < a.phases.size() && i < b.phases.size() && d.where.empty(); ++i) {
        const Phase &pa = a.phases[i], &pb = b.phases[i];
        d.eq("phase.kind", pa.kind, pb.kind);
        d.eq("phase.start_ns", pa.start_ns, pb.start_ns);
        d.eq("phase.end_ns", pa.end_ns, pb.end_ns);
        d.eq("phase.start_frame", pa.start_frame, pb.start_frame);
        d.eq("phase.end_frame", pa.end_frame, pb.end_frame);
    }
    EQ(segments.size());
    for (size_t i = 0; i < a.segments.size() && i < b.segments.size() && d.where.empty(); ++i) {
        const SegmentInfo &sa = a.segments[i], &sb = b.segments[i];
        d.eq("seg.frame", sa.frame, sb.frame);
        d.eq("seg.ts_ns", sa.ts_ns, sb.ts_ns);
        d.eq("seg.from", sa.from, sb.from);
        d.eq("seg.flags", sa.flags, sb.flags);
        d.eq("seg.seq", sa.seq, sb.seq);
        d.eq("seg.ack", sa.ack, sb.ack);
        d.eq("seg.len", sa.len, sb.len);
        d.eq("seg.window", sa.window, sb.window);
        d.eq("seg.carries", sa.carries, sb.carries);
        d.eq("seg.retransmission", sa.retransmission, sb.retransmission);
        d.eq("seg.out_of_order", sa.out_of_order, sb.out_of_order);
        d.eq("seg.acked_ns", sa.acked_ns, sb.acked_ns);
        d.eq("seg.acked_frame", sa.acked_frame, sb.acked_frame);
        d.eq("seg.acked_by_pure_ack", sa.acked_by_pure_ack, sb.acked_by_pure_ack);
    }
    EQ(attribution.size());
    for (size_t i = 0; i < a.attribution.size() && i < b.attribution.size(); ++i) {
        d.eq("attribution.cause", a.attribution[i].cause, b.attribution[i].cause);
        d.eq("attribution.ms", a.attribution[i].ms, b.attribution[i].ms);
    }
    EQ(setup_ms);
    EQ(savings.size());
    for (size_t i = 0; i < a.savings.size() && i < b.savings.size(); ++i) {
        d.eq("savings.kind", a.savings[i].kind, b.savings[i].kind);
        d.eq("savings.side", a.savings[i].side, b.savings[i].side);
        d.eq("savings.ms", a.savings[i].ms, b.savings[i].ms);
    }
    return d.where;
}

std::string diff(const Connection& a, const Connection& b) {
    Diff d;
    EQ(id); EQ(client); EQ(server); EQ(saw_syn); EQ(syn_ns); EQ(synack_ns); EQ(ack_ns); EQ(syn_frame);
    EQ(synack_frame); EQ(ack_frame); EQ(syn_retransmissions); EQ(handshake_ms); EQ(client_mss); EQ(server_mss);
    EQ(client_wscale); EQ(server_wscale); EQ(first_frame); EQ(last_frame); EQ(first_ns); EQ(last_ns);
    EQ(packets); EQ(client_bytes); EQ(server_bytes); EQ(retransmissions); EQ(gap_bytes); EQ(fin_client);
    EQ(fin_server); EQ(rst); EQ(calls); EQ(http);
    return d.where;
}

std::string diff(const Finding& a, const Finding& b) {
    Diff d;
    EQ(kind); EQ(side); EQ(connection_id); EQ(calls); EQ(frames); EQ(cost_ms); EQ(cost_method); EQ(explanation);
    EQ(fix); EQ(toolkit); EQ(toolkit_fix); EQ(start_ns); EQ(end_ns); EQ(details);
    EQ(intervals.size());
    for (size_t i = 0; i < a.intervals.size() && i < b.intervals.size(); ++i) {
        d.eq("intervals.start_ns", a.intervals[i].start_ns, b.intervals[i].start_ns);
        d.eq("intervals.end_ns", a.intervals[i].end_ns, b.intervals[i].end_ns);
    }
    EQ(counted_ms);
    return d.where;
}
#undef EQ

// Every field distinct and non-default, so a swapped or dropped field shows.
MessageInfo full_message(uint64_t k) {
    MessageInfo m;
    m.first_frame = 100 + k;
    m.headers_end_frame = 101 + k;
    m.body_first_frame = 102 + k;
    m.last_frame = 110 + k;
    m.first_ns = 1'700'000'000'000'000'001 + int64_t(k);
    m.headers_end_ns = m.first_ns + 7;
    m.body_first_ns = m.first_ns + 40'000'013;
    m.last_ns = m.first_ns + 40'000'999;
    m.header_bytes = 211 + k;
    m.body_bytes = 4099 + k;
    m.write_sizes = {211, 1448, 0xffffffffu, 7};
    m.frames = {100 + k, 104 + k, 99, std::numeric_limits<uint64_t>::max()};  // not sorted on purpose
    m.complete = true;
    m.missing_bytes = 1234 + k;
    m.content_bytes = 9001 + k;
    m.markup_bytes = 3003 + k;
    m.deflate_estimate = 777 + k;
    m.deflate_pick = k % 2 == 0;
    return m;
}

SoapInfo full_soap(const std::string& p) {
    SoapInfo s;
    s.is_soap = true;
    s.version = p + "1.2";
    s.operation = p + "getQuote";
    s.operation_ns = p + "urn:quotes";
    s.fault = true;
    s.fault_code = p + "soap:Server";
    s.fault_string = p + "out of \xce\xb1 quotes\n\0 with a nul";
    s.element_count = 1234;
    s.max_depth = 17;
    s.bytes = 5555;
    s.error = p + "DOCTYPE refused";
    return s;
}

Call full_call() {
    Call c;
    c.id = 42;
    c.connection_id = 7;
    c.index_on_connection = 3;
    c.method = "POST";
    c.uri = "/services/Quote?wsdl";
    c.http_version = "HTTP/1.1";
    c.status = -500;  // negative only to exercise the signed path
    c.reason = "Internal Server Error";
    c.user_agent = "Axis/1.4";
    c.server = "Apache-Coyote/1.1";
    c.content_type = "text/xml; charset=utf-8";
    c.soap_action = "\"urn:getQuote\"";
    c.content_encoding = "gzip";
    c.expect_continue = true;
    c.got_continue = true;
    c.continue_frame = 105;
    c.continue_ns = 1'700'000'000'000'500'000;
    c.request_chunked = true;
    c.response_chunked = true;
    c.connection_close = true;
    c.request_close = true;
    c.request = full_message(0);
    c.response = full_message(50);
    c.soap = full_soap("rq-");
    c.soap_response = full_soap("rs-");
    c.request_first_frame = 98;
    c.response_last_frame = 170;
    c.start_ns = 1'700'000'000'000'000'000;
    c.end_ns = c.start_ns + 200'000'123;
    c.latency_ms = 200.000123;
    c.complete = true;
    c.opened_connection = true;
    c.closed_connection = true;
    for (int k = 0; k <= int(PhaseKind::Close); ++k) {
        Phase p;
        p.kind = PhaseKind(k);
        p.start_ns = c.start_ns + k * 1000;
        p.end_ns = p.start_ns + 999 - k;
        p.start_frame = 98 + uint64_t(k);
        p.end_frame = 99 + uint64_t(2 * k);
        c.phases.push_back(p);
    }
    for (int k = 0; k < 3; ++k) {
        SegmentInfo s;
        s.frame = 98 + uint64_t(k);
        s.ts_ns = c.start_ns + k * 13;
        s.from = k == 1 ? Side::Server : Side::Client;
        s.flags = uint8_t(0x18 + k);
        s.seq = 1 + uint32_t(k) * 1448;
        s.ack = 0xfffffff0u + uint32_t(k);
        s.len = 1448 - uint32_t(k);
        s.window = 65535u << 7;
        s.carries = uint16_t(carries::kRequestHeaders | carries::kRequestBody) + uint16_t(k);
        s.retransmission = k == 0;
        s.out_of_order = k == 1;
        s.acked_ns = k == 2 ? -1 : s.ts_ns + 40'000'000;
        s.acked_frame = k == 2 ? 0 : s.frame + 5;
        s.acked_by_pure_ack = k == 0;
        c.segments.push_back(s);
    }
    c.attribution = {{"request_transfer", 0.123}, {"server", 150.0}, {"nagle_delayed_ack", 49.877}};
    c.setup_ms = 0.187;
    c.savings = {{"nagle_delayed_ack", Side::Server, 49.877123}, {"expect_100_wait", Side::Client, 3.5}};
    return c;
}

Connection full_connection() {
    Connection c;
    c.id = 9;
    const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0x01};
    const uint8_t v4[4] = {192, 168, 1, 200};
    c.client = {IpAddress::v6(v6), 50123};
    c.server = {IpAddress::v4(v4), 8080};
    c.saw_syn = true;
    c.syn_ns = 1'700'000'000'000'000'000;
    c.synack_ns = c.syn_ns + 150'000;
    c.ack_ns = c.syn_ns + 160'000;
    c.syn_frame = 11;
    c.synack_frame = 12;
    c.ack_frame = 13;
    c.syn_retransmissions = 2;
    c.handshake_ms = 0.16;
    c.client_mss = 1460;
    c.server_mss = 65495;
    c.client_wscale = 7;
    c.server_wscale = 14;
    c.first_frame = 11;
    c.last_frame = 999;
    c.first_ns = c.syn_ns;
    c.last_ns = c.syn_ns + 5'000'000'000;
    c.packets = 987;
    c.client_bytes = 123456;
    c.server_bytes = 654321;
    c.retransmissions = 4;
    c.gap_bytes = 17;
    c.fin_client = true;
    c.fin_server = true;
    c.rst = true;
    c.calls = 31;
    c.http = true;
    return c;
}

Finding full_finding() {
    Finding f;
    f.kind = "nagle_delayed_ack";
    f.side = Side::Server;
    f.connection_id = 3;
    f.calls = {5, 6, 2};
    f.frames = {40, 41, 45, 12};
    f.cost_ms = 39.9871;
    f.cost_method = "last data segment -> its ACK";
    f.explanation = "the server wrote the response in two pieces";
    f.fix = "set TCP_NODELAY";
    f.toolkit = "Apache Axis";
    f.toolkit_fix = "axis.tcpNoDelay=true";
    f.start_ns = 1'700'000'000'000'000'000;
    f.end_ns = f.start_ns + 39'987'100;
    f.details = {{"write_sizes", "211+1448"}, {"", ""}, {"acks", "delayed"}};
    f.intervals = {{f.start_ns + 100'000, f.start_ns + 39'987'100}, {f.start_ns - 5, f.start_ns + 1}};
    f.counted_ms = 12.5;
    return f;
}

template <class T> std::string encode(const T& v) {
    std::string out;
    spill_encode(v, out);
    return out;
}

template <class T> std::string round_trip_diff(const T& v) {
    std::string bytes = encode(v);
    T back;
    if (!spill_decode(bytes, back)) return "decode failed";
    return diff(v, back);
}

} // namespace

TEST_CASE("spill: every field of a Call round-trips", "[spill]") {
    Call c = full_call();
    REQUIRE(diff(c, Call{}) != "");
    CHECK(round_trip_diff(c) == "");
    CHECK(round_trip_diff(Call{}) == "");
    // Decoding overwrites everything in the target, not only non-defaults.
    Call target = full_call();
    REQUIRE(spill_decode(encode(Call{}), target));
    CHECK(diff(target, Call{}) == "");
}

// Calls are assembled in recycled records (analyzers/result/call_reuse.h): a
// cleared call must be a new one in every field (full_call sets them all).
TEST_CASE("clear_call: a cleared call is Call{} in every field and keeps its memory", "[spill]") {
    Call c = full_call();
    c.request.whole_xml = c.response.whole_xml = false;  // not MessageInfo's default (full_call leaves it)
    const size_t type_capacity = c.content_type.capacity(), segment_capacity = c.segments.capacity();
    clear_call(c);
    CHECK(diff(c, Call{}) == "");
    CHECK((c.request.whole_xml && c.response.whole_xml));
    CHECK(encode(c) == encode(Call{}));
    CHECK(c.content_type.capacity() == type_capacity);
    CHECK(c.segments.capacity() == segment_capacity);
    // A buffer too large to keep is freed.
    Call big = full_call();
    big.segments.resize(100000);
    big.uri.assign(100000, 'x');
    clear_call(big);
    CHECK(diff(big, Call{}) == "");
    CHECK(big.segments.capacity() == 0);
    CHECK(big.uri.capacity() < 100000);
}

// The SOAP names are emptied in place, and the causes' heap buffers go to
// the ledger's next call (reused_string), the short inline ones do not.
TEST_CASE("clear_call: SOAP strings keep their memory, attribution buffers are handed on", "[spill]") {
    for (int i = 0; i < 200; ++i) (void)reused_string();  // the thread's pool, emptied
    const size_t inline_capacity = std::string().capacity();
    Call c = full_call();
    c.soap.operation.assign(40, 'o');
    c.soap_response.fault_string.assign(50, 'f');
    const size_t op_capacity = c.soap.operation.capacity(), fault_capacity = c.soap_response.fault_string.capacity();
    c.attribution = {{"response_transfer", 1}, {"server", 2}, {std::string(30, 'k'), 3}};
    c.savings.clear();  // only the causes above go to the pool
    clear_call(c);
    CHECK(diff(c, Call{}) == "");
    CHECK(c.soap.operation.capacity() == op_capacity);
    CHECK(c.soap_response.fault_string.capacity() == fault_capacity);
    const std::string a = reused_string(), b = reused_string(), none = reused_string();
    CHECK(a.empty());
    CHECK(b.empty());
    CHECK(std::min(a.capacity(), b.capacity()) >= std::string("response_transfer").size());
    CHECK(none.capacity() == inline_capacity);
}

// The pool of spare buffers is bounded (64 a thread): cleared calls with more
// heap causes than that hand on 64 distinct buffers, emptied; the next is a
// new (inline) string. Twice: the second round refills the slots the first emptied.
TEST_CASE("clear_call: the spare string pool keeps at most 64 buffers, each handed out once", "[spill]") {
    for (int i = 0; i < 200; ++i) (void)reused_string();  // the thread's pool, emptied
    const size_t inline_capacity = std::string().capacity();
    for (int round = 0; round < 2; ++round) {
        for (int k = 0; k < 3; ++k) {
            Call c = full_call();
            c.attribution.clear();
            c.savings.clear();
            for (int i = 0; i < 40; ++i) c.attribution.push_back({std::string(20 + i % 10, char('a' + k)), double(i)});
            for (int i = 0; i < 5; ++i) c.savings.push_back({std::string(30, 's'), Side::Server, 1.0});
            clear_call(c);
            CHECK(diff(c, Call{}) == "");
        }
        std::vector<std::string> got;
        for (int i = 0; i < 64; ++i) got.push_back(reused_string());
        std::vector<const char*> buffers;
        for (const std::string& s : got) {
            CHECK(s.empty());
            CHECK(s.capacity() >= 20);
            buffers.push_back(s.data());
        }
        std::sort(buffers.begin(), buffers.end());
        CHECK(std::adjacent_find(buffers.begin(), buffers.end()) == buffers.end());
        CHECK(reused_string().capacity() == inline_capacity);
    }
}

// The sharded analysis hands calls between threads with swap_calls: every
// field must land on the other side, buffers traded, not copied.
TEST_CASE("swap_calls: two calls trade every field and their buffers", "[spill]") {
    Call a = full_call();
    a.encrypted = true;  // the fields the spill codec does not carry, checked by hand below
    a.view = CapturePlace::Server;
    a.client_path_ms = 3.25;
    Call b = full_call();
    b.id = 43;
    b.uri.assign(100, 'u');
    b.soap.operation = "other";
    b.response.frames = {1, 2, 3, 4};
    b.segments.resize(7);
    b.savings.clear();
    const Call a0 = a, b0 = b;
    REQUIRE(diff(a0, b0) != "");
    const char* uri_buffer = b.uri.data();
    const SegmentInfo* segments_buffer = b.segments.data();
    swap_calls(a, b);
    CHECK(diff(a, b0) == "");
    CHECK(diff(b, a0) == "");
    CHECK(encode(a) == encode(b0));
    CHECK(encode(b) == encode(a0));
    CHECK_FALSE(a.encrypted);
    CHECK(b.encrypted);
    CHECK(a.view == CapturePlace::Unknown);
    CHECK(b.view == CapturePlace::Server);
    CHECK(a.client_path_ms == -1);
    CHECK(b.client_path_ms == 3.25);
    CHECK(a.uri.data() == uri_buffer);  // traded, not copied
    CHECK(a.segments.data() == segments_buffer);
    // With an empty call: what a worker gets back for its next call.
    Call empty;
    swap_calls(a, empty);
    CHECK(diff(a, Call{}) == "");
    CHECK(diff(empty, b0) == "");
}

// What a detector keeps of a call for later (analyzers/detectors/detector_util.h).
TEST_CASE("call_facts: every field but the per-segment vectors", "[spill]") {
    Call c = full_call();
    c.request.whole_xml = false;  // not the default, so a field left out shows
    c.response.whole_xml = false;
    Call expected = c;
    expected.segments.clear();
    expected.phases.clear();
    for (MessageInfo* m : {&expected.request, &expected.response}) {
        m->write_sizes.clear();
        m->frames.clear();
    }
    CHECK(diff(detect::call_facts(c), expected) == "");
    CHECK(encode(detect::call_facts(c)) == encode(expected));
}

// spill_decode_into reuses the target: whatever it held before, the result
// is the record, field for field (a longer or shorter record, set and unset
// optionals, an endpoint with fewer significant bytes than the last one).
TEST_CASE("spill: decoding into a reused record gives the record, whatever the target held", "[spill]") {
    Connection v6 = full_connection(), v4 = full_connection();
    v4.client.addr = IpAddress::v4(reinterpret_cast<const uint8_t*>("\x0a\x00\x00\x01"));
    v4.handshake_ms.reset();
    Call short_call = full_call();
    short_call.segments.resize(1);
    short_call.uri = "/";
    Finding short_finding = full_finding();
    short_finding.details.resize(1);
    const std::vector<Call> calls = {full_call(), Call{}, short_call, full_call()};
    const std::vector<Connection> conns = {v6, Connection{}, v4, v6, v4};
    const std::vector<Finding> findings = {full_finding(), Finding{}, short_finding, full_finding()};
    Call c; Connection n; Finding f;
    for (const Call& x : calls) { REQUIRE(spill_decode_into(encode(x), c)); CHECK(diff(c, x) == ""); }
    for (const Connection& x : conns) { REQUIRE(spill_decode_into(encode(x), n)); CHECK(diff(n, x) == ""); }
    for (const Finding& x : findings) { REQUIRE(spill_decode_into(encode(x), f)); CHECK(diff(f, x) == ""); }
    CHECK_FALSE(spill_decode_into(encode(full_call()), f));  // another record type is still refused
}

// Strings of the length the target already holds are copied in place
// (Reader::str): the bytes must still be the new record's.
TEST_CASE("spill: decoding into a reused record replaces strings of the same length", "[spill]") {
    Call a = full_call(), b = full_call();
    b.method = "PUTS";
    b.uri = "/services/Quote?WSDL";
    b.http_version = "HTTP/1.0";
    b.reason = "Internal Server Errox";
    b.soap.operation = std::string(a.soap.operation.size(), 'x');
    b.user_agent = std::string(a.user_agent.size(), 'y');
    REQUIRE(b.method.size() == a.method.size());
    REQUIRE(b.uri.size() == a.uri.size());
    REQUIRE(b.reason.size() == a.reason.size());
    Call c;
    REQUIRE(spill_decode_into(encode(a), c));
    REQUIRE(spill_decode_into(encode(b), c));
    CHECK(diff(c, b) == "");
    CHECK(c.method == "PUTS");
    REQUIRE(spill_decode_into(encode(a), c));
    CHECK(diff(c, a) == "");
}

// A pooled call is cleared (its strings emptied, their memory kept) before
// a parked call is decoded into it: the emptied strings are filled in that
// memory (Reader::str appends), with the new record's bytes and lengths.
TEST_CASE("spill: decoding into a cleared call fills its strings in their kept memory", "[spill]") {
    Call held = full_call();
    held.uri.assign(300, 'h');
    held.soap.operation_ns.assign(80, 'n');
    Call next = full_call();
    next.uri = "/services/Other/longer-than-fifteen";
    next.soap.operation_ns = "urn:example:other";
    next.method = "GET";
    clear_call(held);
    const char* uri_buffer = held.uri.data();
    const char* ns_buffer = held.soap.operation_ns.data();
    REQUIRE(spill_decode_into(encode(next), held));
    CHECK(diff(held, next) == "");
    CHECK(held.uri == "/services/Other/longer-than-fifteen");
    CHECK(held.uri.data() == uri_buffer);  // no new allocation
    CHECK(held.soap.operation_ns.data() == ns_buffer);
    // A longer string than the kept memory holds, and an empty one again.
    Call longer = next;
    longer.uri.assign(500, 'l');
    longer.method.clear();
    clear_call(held);
    REQUIRE(spill_decode_into(encode(longer), held));
    CHECK(diff(held, longer) == "");
    REQUIRE(spill_decode_into(encode(next), held));  // into strings not emptied first
    CHECK(diff(held, next) == "");
}

TEST_CASE("spill: every field of a Connection round-trips, optionals set and unset", "[spill]") {
    Connection c = full_connection();
    CHECK(round_trip_diff(c) == "");
    CHECK(round_trip_diff(Connection{}) == "");

    Connection unset = full_connection();
    unset.handshake_ms.reset();
    unset.client_mss.reset();
    unset.server_wscale.reset();
    Connection back = full_connection();
    REQUIRE(spill_decode(encode(unset), back));
    CHECK(diff(unset, back) == "");
    CHECK_FALSE(back.handshake_ms.has_value());
    CHECK_FALSE(back.client_mss.has_value());
    CHECK(back.server_mss == uint16_t(65495));
    // A value equal to the default is still a value.
    Connection zeros;
    zeros.handshake_ms = 0.0;
    zeros.client_wscale = 0;
    REQUIRE(spill_decode(encode(zeros), back));
    CHECK(back.handshake_ms.has_value());
    CHECK(back.client_wscale == uint8_t(0));
    CHECK_FALSE(back.server_wscale.has_value());
}

TEST_CASE("spill: endpoints keep family, every address byte and port", "[spill]") {
    Connection c;
    c.client.addr.family = 6;
    for (int i = 0; i < 16; ++i) c.client.addr.bytes[size_t(i)] = uint8_t(0xf0 + i);  // no trailing zero
    c.client.port = 65535;
    c.server.addr.family = 4;
    c.server.addr.bytes = {127, 0, 0, 1};
    c.server.port = 1;
    Connection back;
    REQUIRE(spill_decode(encode(c), back));
    CHECK(back.client == c.client);
    CHECK(back.server == c.server);
    CHECK(back.client.to_string() == c.client.to_string());
    // A zero in the middle of an address must not shorten it.
    c.client.addr.bytes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};  // ::1
    REQUIRE(spill_decode(encode(c), back));
    CHECK(back.client == c.client);
}

TEST_CASE("spill: every field of a Finding round-trips", "[spill]") {
    CHECK(round_trip_diff(full_finding()) == "");
    CHECK(round_trip_diff(Finding{}) == "");
}

TEST_CASE("spill: doubles are bit-exact", "[spill]") {
    const double specials[] = {-0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                               std::bit_cast<double>(uint64_t(0x7ff8dead'beef0001)),  // NaN with a payload
                               0.1 + 0.2};
    for (double v : specials) {
        Call c;
        c.latency_ms = v;
        Connection n;
        n.handshake_ms = v;
        Finding f;
        f.cost_ms = v;
        Call cb; Connection nb; Finding fb;
        REQUIRE(spill_decode(encode(c), cb));
        REQUIRE(spill_decode(encode(n), nb));
        REQUIRE(spill_decode(encode(f), fb));
        CHECK(std::bit_cast<uint64_t>(cb.latency_ms) == std::bit_cast<uint64_t>(v));
        CHECK(std::bit_cast<uint64_t>(*nb.handshake_ms) == std::bit_cast<uint64_t>(v));
        CHECK(std::bit_cast<uint64_t>(fb.cost_ms) == std::bit_cast<uint64_t>(v));
    }
}

// Timestamps and frames are stored relative to a base with a sentinel kept
// short; the mapping must be exact for every 64-bit value, not just sane ones.
TEST_CASE("spill: extreme timestamps and frame numbers round-trip", "[spill]") {
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    const int64_t times[] = {0, -1, 1, lo, hi, lo + 1, hi - 1, 1'700'000'000'000'000'000, -1'700'000'000'000'000'000};
    const uint64_t umax = std::numeric_limits<uint64_t>::max();
    const uint64_t frames[] = {0, 1, 2, umax, umax - 1, uint64_t(1) << 63, (uint64_t(1) << 63) - 1};
    for (int64_t base : times)
        for (int64_t t : times) {
            Call c = full_call();
            c.start_ns = base;
            c.end_ns = t;
            c.continue_ns = t;
            c.request.first_ns = t;
            c.request.headers_end_ns = base;
            c.request.body_first_ns = t;
            c.phases[1].start_ns = t;
            c.phases[1].end_ns = base;
            c.segments[0].ts_ns = base;
            c.segments[0].acked_ns = t;
            c.segments[1].ts_ns = t;
            c.segments[1].acked_ns = base;
            INFO("base " << base << " t " << t);
            CHECK(round_trip_diff(c) == "");
            Finding f;
            f.start_ns = base;
            f.end_ns = t;
            CHECK(round_trip_diff(f) == "");
        }
    for (uint64_t base : frames)
        for (uint64_t x : frames) {
            Call c = full_call();
            c.request_first_frame = base;
            c.continue_frame = x;
            c.response.first_frame = x;
            c.response.frames = {x, base, x, 0, umax};
            c.segments[2].frame = x;
            c.segments[2].acked_frame = base;
            Connection n = full_connection();
            n.first_frame = base;
            n.syn_frame = x;
            n.last_frame = x;
            INFO("base " << base << " x " << x);
            CHECK(round_trip_diff(c) == "");
            CHECK(round_trip_diff(n) == "");
        }
}

TEST_CASE("spill: a record of another type, trailing bytes or garbage is refused", "[spill]") {
    std::string call = encode(full_call()), conn = encode(full_connection()), finding = encode(full_finding());
    Call c; Connection n; Finding f;
    CHECK_FALSE(spill_decode(conn, c));
    CHECK_FALSE(spill_decode(finding, c));
    CHECK_FALSE(spill_decode(call, n));
    CHECK_FALSE(spill_decode(finding, n));
    CHECK_FALSE(spill_decode(call, f));
    CHECK_FALSE(spill_decode(conn, f));
    CHECK_FALSE(spill_decode(call + '\0', c));
    CHECK_FALSE(spill_decode(conn + 'x', n));
    CHECK_FALSE(spill_decode(finding + '\0', f));
    CHECK_FALSE(spill_decode(std::string_view(), c));
    // A string length far beyond the input is refused before allocating.
    std::string huge = encode(Finding{});
    huge.replace(1, 1, "\xff\xff\xff\xff\xff\xff\xff\xff\x7f");
    CHECK_FALSE(spill_decode(huge, f));
    // A varint longer than 64 bits.
    std::string overlong(1, char(0xE2));
    overlong.append(10, char(0xff));
    overlong.push_back(0);
    CHECK_FALSE(spill_decode(overlong, f));
    // Decoding failure leaves the target as it was.
    f = full_finding();
    CHECK_FALSE(spill_decode(finding.substr(0, finding.size() - 1), f));
    CHECK(diff(f, full_finding()) == "");
}

TEST_CASE("spill: varints of every length far from the record's end, and a bad 10th byte", "[spill]") {
    // The connection id is read with at least 10 bytes left (the decoder's
    // path without an end test a byte): every length from 1 to 10 bytes.
    Finding f = full_finding();
    for (int bits = 0; bits <= 64; ++bits)
        for (uint64_t id : {bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1, uint64_t(1) << (bits % 64),
                            (uint64_t(1) << (bits % 64)) | 0x55}) {
            f.connection_id = id;
            INFO("id " << id);
            CHECK(round_trip_diff(f) == "");
        }
    // Its 10th byte may hold the 64th bit only.
    Finding g;
    g.connection_id = ~uint64_t(0);
    std::string e = encode(g);
    const size_t tenth = e.find('\x01');  // after the tag, kind and side: 0xff x 9, then 0x01
    REQUIRE(tenth != std::string::npos);
    REQUIRE(e.size() - tenth > 1);
    Finding out;
    CHECK(spill_decode(e, out));
    CHECK(out.connection_id == ~uint64_t(0));
    for (int b : {2, 3, 0x7f}) {
        e[tenth] = char(b);
        CHECK_FALSE(spill_decode(e, out));
    }
}

TEST_CASE("spill: every truncation of an encoding is refused", "[spill]") {
    const std::string encodings[] = {encode(full_call()), encode(full_connection()), encode(full_finding())};
    for (size_t which = 0; which < 3; ++which) {
        const std::string& e = encodings[which];
        for (size_t len = 0; len < e.size(); ++len) {
            // A heap copy of exactly the prefix, so a sanitizer build sees any overread.
            std::vector<char> prefix(e.begin(), e.begin() + std::ptrdiff_t(len));
            std::string_view sv(prefix.data(), prefix.size());
            Call c; Connection n; Finding f;
            bool ok = which == 0 ? spill_decode(sv, c) : which == 1 ? spill_decode(sv, n) : spill_decode(sv, f);
            if (ok) FAIL("record " << which << " decoded from a prefix of " << len << " of " << e.size() << " bytes");
        }
    }
}

TEST_CASE("spill: random byte flips never crash", "[spill]") {
    const std::string encodings[] = {encode(full_call()), encode(full_connection()), encode(full_finding())};
    std::mt19937_64 rng(12345);
    size_t decoded = 0;
    for (int round = 0; round < 30000; ++round) {
        size_t which = size_t(round % 3);
        std::string e = encodings[which];
        int flips = 1 + int(rng() % 4);
        for (int k = 0; k < flips; ++k) e[rng() % e.size()] ^= char(1 + rng() % 255);
        if (rng() % 4 == 0) e.resize(rng() % (e.size() + 1));
        std::vector<char> heap(e.begin(), e.end());
        std::string_view sv(heap.data(), heap.size());
        Call c; Connection n; Finding f;
        bool ok = which == 0 ? spill_decode(sv, c) : which == 1 ? spill_decode(sv, n) : spill_decode(sv, f);
        if (ok) {
            // Whatever decoded is a valid value: it encodes and decodes to itself.
            ++decoded;
            std::string again;
            if (which == 0) { spill_encode(c, again); Call c2; REQUIRE(spill_decode(again, c2)); REQUIRE(diff(c, c2) == ""); }
            if (which == 1) { spill_encode(n, again); Connection n2; REQUIRE(spill_decode(again, n2)); REQUIRE(diff(n, n2) == ""); }
            if (which == 2) { spill_encode(f, again); Finding f2; REQUIRE(spill_decode(again, f2)); REQUIRE(diff(f, f2) == ""); }
        }
    }
    // Flips inside strings and numbers decode to other values; the point is
    // that nothing crashed, but some must have gone each way.
    CHECK(decoded > 0);
    CHECK(decoded < 30000);
}

namespace {

double micros_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void round_trip_capture(const std::string& name, bool keep_segments) {
    AnalysisOptions opt;
    opt.keep_segments = keep_segments;
    AnalyzeOutcome o = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/" + name, opt);
    REQUIRE(o.ok);
    const AnalysisResult& r = o.result;
    REQUIRE(!r.calls.empty());
    REQUIRE(!r.connections.empty());
    if (keep_segments) {
        size_t segs = 0;
        for (const Call& c : r.calls) segs += c.segments.size();
        REQUIRE(segs > 0);
    }

    size_t call_bytes = 0;
    for (const Call& c : r.calls) {
        std::string e = encode(c);
        call_bytes += e.size();
        Call back;
        INFO(name << " call " << c.id);
        REQUIRE(spill_decode(e, back));
        CHECK(diff(c, back) == "");
    }
    for (const Connection& c : r.connections) {
        INFO(name << " connection " << c.id);
        CHECK(round_trip_diff(c) == "");
    }
    for (const Finding& f : r.findings) {
        INFO(name << " finding " << f.kind);
        CHECK(round_trip_diff(f) == "");
    }

    // Speed: printed, never asserted. Repeat to get past timer resolution.
    const int reps = 20;
    std::string buf;
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k)
        for (const Call& c : r.calls) { buf.clear(); spill_encode(c, buf); }
    double enc_us = micros_since(t0) / double(reps * r.calls.size());
    std::vector<std::string> encoded;
    for (const Call& c : r.calls) encoded.push_back(encode(c));
    Call back;
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k)
        for (const std::string& e : encoded) spill_decode(e, back);
    double dec_us = micros_since(t0) / double(reps * r.calls.size());
    std::printf("spill %-28s segments %-3s %4zu calls: %6.0f B/call, encode %.2f us, decode %.2f us per call\n",
                name.c_str(), keep_segments ? "on" : "off", r.calls.size(), double(call_bytes) / double(r.calls.size()),
                enc_us, dec_us);
}

} // namespace

TEST_CASE("spill: every call, connection and finding of real captures round-trips", "[spill]") {
    for (const char* name : {"refsvc-apache-soap.pcap", "toolkit-axis.pcap", "toolkit-curl-expect.pcap"})
        for (bool segs : {true, false}) round_trip_capture(name, segs);
}

// The relative encoding is what keeps records small: a timestamp near the
// call's start, or an unset one (0, or -1 for acked_ns), takes a byte or
// two, not the 9 bytes of an absolute nanosecond count.
TEST_CASE("spill: timestamps near their base and unset ones stay short", "[spill]") {
    const int64_t now = 1'700'000'000'000'000'000;
    size_t empty = encode(Call{}).size();
    Call c;
    c.start_ns = now;  // the one absolute timestamp
    CHECK(encode(c).size() <= empty + 9);
    c.end_ns = now + 1000;
    c.request.first_ns = now;
    c.request.last_ns = now + 1000;
    CHECK(encode(c).size() <= empty + 9 + 4);
    size_t before = encode(c).size();
    SegmentInfo s;
    s.ts_ns = now + 500;
    s.frame = 1'000'000;
    s.acked_ns = -1;
    c.segments.assign(100, s);
    // Frame and time deltas of 0 after the first: 15 one-byte fields.
    CHECK(encode(c).size() <= before + 100 * 15 + 8);
    Finding f;
    f.frames = {1'000'000'000, 1'000'000'001, 1'000'000'002, 1'000'000'003};
    CHECK(encode(f).size() <= encode(Finding{}).size() + 5 + 3);
}

// Not run by default: `analyzers_tests "[.bench]"`. Sizes and speed over
// every bundled capture, all segments kept (the GUI's worst case).
TEST_CASE("model round-trip bench over every capture", "[.bench]") {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (auto& e : fs::directory_iterator(STALLSCOPE_TESTDATA_DIR))
        if (e.path().extension() == ".pcap") files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    REQUIRE(!files.empty());
    for (const std::string& f : files)
        for (bool segs : {true, false}) round_trip_capture(f, segs);
}

TEST_CASE("spill: a brief decode is the finding without its text and frames, and refuses what the whole one refuses", "[spill]") {
    Finding big = full_finding();
    big.frames = {1ull << 40, 3, (1ull << 40) + 7, 0, ~0ull};  // multi-byte varints, the sentinel, the top
    Finding small = full_finding();
    small.details.resize(1);
    small.frames.clear();
    auto brief = [](Finding f) {
        f.cost_method.clear(); f.explanation.clear(); f.fix.clear(); f.toolkit.clear(); f.toolkit_fix.clear();
        f.frames.clear();
        return f;
    };
    Finding f = full_finding();  // a reused target that held text and frames
    for (const Finding& x : {big, Finding{}, small, full_finding()}) {
        REQUIRE(spill_decode_brief(encode(x), f));
        CHECK(diff(f, brief(x)) == "");
        CHECK(f.cost_method.empty());
        CHECK(f.frames.empty());
    }
    // The whole decode of the same bytes still has them.
    REQUIRE(spill_decode_into(encode(big), f));
    CHECK(diff(f, big) == "");
    const std::string e = encode(big);
    for (size_t len = 0; len < e.size(); ++len) {
        std::vector<char> prefix(e.begin(), e.begin() + std::ptrdiff_t(len));
        if (spill_decode_brief(std::string_view(prefix.data(), prefix.size()), f))
            FAIL("decoded briefly from a prefix of " << len << " of " << e.size() << " bytes");
    }
    CHECK_FALSE(spill_decode_brief(e + '\0', f));                  // trailing bytes
    CHECK_FALSE(spill_decode_brief(encode(full_call()), f));       // another record type
}

// ResultSpill::seal reads each finding brief, lets the back stage change it
// (counted_ms, a detail) and writes it back with the skipped text and frames
// copied as bytes: the record must be the one a whole encode gives.
TEST_CASE("spill: a brief finding written back with its skipped text is the whole finding's encoding", "[spill]") {
    Finding big = full_finding();
    big.frames = {1ull << 40, 3, (1ull << 40) + 7, 0, ~0ull};
    big.explanation.assign(5000, 'x');  // a length of two varint bytes
    Finding no_text = full_finding();
    no_text.cost_method.clear(); no_text.fix.clear(); no_text.toolkit_fix.clear(); no_text.frames.clear();
    Finding f = full_finding();  // reused, as seal reuses it
    FindingText text;
    for (Finding x : {big, Finding{}, no_text, full_finding()}) {
        const std::string bytes = encode(x);
        REQUIRE(spill_decode_brief(bytes, f, text));
        CHECK(text.count == FindingText::kFields);
        CHECK(f.explanation.empty());
        auto patch = [](Finding& g) {
            g.counted_ms = 7.25;
            g.details.push_back({"alone", "3 of 40"});
            g.calls.push_back(99);
        };
        patch(f);
        patch(x);
        std::string out = "kept";  // appended to, like spill_encode
        spill_encode_brief(f, text, out);
        CHECK(out == "kept" + encode(x));
        Finding back;
        REQUIRE(spill_decode_into(std::string_view(out).substr(4), back));
        CHECK(diff(back, x) == "");
    }
    // Into a buffer emptied for the next record, whose memory the writer
    // reuses: a short record after a long one is the short one's bytes only.
    std::string reused;
    spill_encode(big, reused);
    reused.clear();
    spill_encode(Finding{}, reused);
    CHECK(reused == encode(Finding{}));
    FindingText partial;
    partial.count = 2;
    std::string out;
    CHECK_THROWS_AS(spill_encode_brief(f, partial, out), std::logic_error);
    // A change to what the brief decode skipped would be lost: refused, each field.
    const std::string whole = encode(full_finding());  // `text` views into it
    REQUIRE(spill_decode_brief(whole, f, text));
    for (auto set : std::initializer_list<void (*)(Finding&)>{
             [](Finding& g) { g.explanation = "new"; }, [](Finding& g) { g.fix = "new"; },
             [](Finding& g) { g.toolkit = "new"; }, [](Finding& g) { g.toolkit_fix = "new"; },
             [](Finding& g) { g.frames = {1}; }}) {
        Finding g = f;
        set(g);
        CHECK_THROWS_AS(spill_encode_brief(g, text, out), std::logic_error);
    }
    CHECK_NOTHROW(spill_encode_brief(f, text, out));
    CHECK_FALSE(spill_decode_brief(encode(full_call()), f, text));
}

// ResultSpill::seal reads a finding whose kind's finalize changes nothing
// lean (without details either) and writes its record back as it was with
// counted_ms set: that must be the whole encoding of the finding with it.
TEST_CASE("spill: a lean decode skips the details, and a record with counted_ms set is the finding's encoding with it", "[spill]") {
    Finding big = full_finding();
    big.frames = {1ull << 40, 3, (1ull << 40) + 7, 0, ~0ull};
    big.details.push_back({std::string(300, 'k'), std::string(5000, 'v')});  // lengths of two varint bytes
    big.intervals = {{-5, 7}, {1ll << 50, (1ll << 50) + 3}};
    Finding no_details = full_finding();
    no_details.details.clear();
    Finding f = full_finding();  // reused, as seal reuses it
    for (const Finding& x : {big, Finding{}, no_details, full_finding()}) {
        const std::string bytes = encode(x);
        REQUIRE(spill_decode_lean(bytes, f));
        Finding lean = x;
        lean.cost_method.clear(); lean.explanation.clear(); lean.fix.clear(); lean.toolkit.clear();
        lean.toolkit_fix.clear(); lean.frames.clear(); lean.details.clear();
        CHECK(diff(f, lean) == "");
        for (double counted : {0.0, -1.5, 7.25, 1e300, x.counted_ms}) {
            std::string record = bytes;
            spill_set_counted_ms(record, counted);
            Finding y = x;
            y.counted_ms = counted;
            CHECK(record == encode(y));
        }
        for (size_t len = 0; len < bytes.size(); ++len)
            if (spill_decode_lean(bytes.substr(0, len), f))
                FAIL("decoded lean from a prefix of " << len << " of " << bytes.size() << " bytes");
        CHECK_FALSE(spill_decode_lean(bytes + '\0', f));  // trailing bytes
    }
    CHECK_FALSE(spill_decode_lean(encode(full_call()), f));  // another record type
    std::string call = encode(full_call());
    CHECK_THROWS_AS(spill_set_counted_ms(call, 1.0), std::logic_error);
    std::string empty;
    CHECK_THROWS_AS(spill_set_counted_ms(empty, 1.0), std::logic_error);
}

// A closed connection's calls kept encoded (analyzers/calls/parked_calls.h):
// each comes back whole into a state from the thread's pool, whatever call
// that state held before (a long one, then a short one), with the windows
// take_ready would give; those at the end that never had a request line are
// dropped. Parked through the per-thread buffer: a short call after a long
// one is not the long one's bytes.
TEST_CASE("parked calls: each call back whole into a recycled state, with its window", "[spill]") {
    Call long_call = full_call();
    long_call.uri.assign(3000, 'u');
    long_call.segments.clear();  // as when parked: segments are copied when a call is handed on
    long_call.request.frames.resize(300, 7);
    Call short_call = full_call();
    short_call.uri = "/";
    short_call.segments.clear();
    short_call.soap.operation = "op";
    Call no_line = Call{};
    no_line.method = "PO";
    auto state = [](const Call& c, uint64_t first, uint64_t last, bool start_line) {
        CallStatePtr s = new_call_state();
        s->call = c;
        s->seg_first = first;
        s->seg_last = last;
        s->start_line = start_line;
        return s;
    };
    std::vector<ReadyCall> out;
    for (int round = 0; round < 2; ++round) {  // the second round decodes into states the first used
        Fifo<CallStatePtr> calls;
        calls.push_back(state(long_call, 10, 14, true));
        calls.push_back(state(short_call, 15, 15, true));
        calls.push_back(state(no_line, 17, 18, false));
        ParkedCalls parked;
        parked.park(calls);
        CHECK(calls.empty());
        CHECK(parked.oldest_needed_segment(99) == 10);
        std::vector<Call> provisional;
        parked.provisional(provisional);
        REQUIRE(provisional.size() == 2);
        CHECK(diff(provisional[1], short_call) == "");
        uint32_t started = 3;
        parked.take_all(40, started, out);
        CHECK(started == 2);
        REQUIRE(out.size() == 2);
        CHECK(diff(out[0].call(), long_call) == "");
        CHECK(diff(out[1].call(), short_call) == "");
        CHECK((out[0].seg_first == 10 && out[0].seg_end == 15));  // to where the next call begins
        CHECK((out[1].seg_first == 15 && out[1].seg_end == 40));  // the last one: to the end
        CHECK(out[1].state->done == false);
        CHECK(parked.oldest_needed_segment(99) == 99);
        // Handed on in the other order next round: the short call's state held the long one.
        std::swap(long_call, short_call);
        out.clear();  // the states go back to the pool
    }
}
