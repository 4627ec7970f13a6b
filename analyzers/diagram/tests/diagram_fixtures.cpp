#include "diagram_fixtures.h"

#include "capture/packet_decoder.h"

#include <cmath>

namespace stallscope::test {

using namespace carries;
constexpr uint8_t S = tcpflag::kSyn, A = tcpflag::kAck, P = tcpflag::kPsh, F = tcpflag::kFin;

SegmentInfo seg(uint64_t frame, double t_ms, Side from, uint8_t flags, uint32_t len, uint16_t carries) {
    SegmentInfo s;
    s.frame = frame;
    s.ts_ns = kT0 + int64_t(std::llround(t_ms * 1e6));
    s.from = from;
    s.flags = flags;
    s.len = len;
    s.carries = carries;
    return s;
}

std::vector<SegmentInfo> fig2_segments() {
    const Side C = Side::Client, V = Side::Server;
    return {
        seg(1, 0.000, C, S), seg(2, 0.061, V, S | A), seg(3, 0.102, C, A),
        seg(4, 0.512, C, P | A, 231, kRequestHeaders),
        seg(5, 40.730, V, A),                                  // delayed ACK
        seg(6, 40.771, C, P | A, 412, kRequestBody),           // body leaves right after it
        seg(7, 41.902, V, P | A, 178, kResponseHeaders),
        seg(8, 41.950, V, P | A, 377, kResponseBody),
        seg(9, 41.991, C, A),
        seg(10, 42.400, C, F | A), seg(11, 42.450, V, F | A), seg(12, 42.490, C, A),
    };
}

Finding fig2_nagle_finding() {
    Finding f;
    f.kind = "nagle_delayed_ack";
    f.side = Side::Client;
    f.connection_id = 1;
    f.calls = {1};
    f.frames = {4, 5, 6};
    f.start_ns = kT0 + int64_t(0.512 * kMs);
    f.end_ns = kT0 + int64_t(40.771 * kMs);
    f.cost_ms = 40.2;
    f.counted_ms = 40.2;  // as the call ledger fills it
    // What the detector reports as the hold: A.send + one RTT (0.059 ms) -> B.send.
    f.intervals = {{f.end_ns - int64_t(40.2 * kMs), f.end_ns}};
    f.explanation = "The client held the request body until the server's delayed ACK of the headers.";
    f.fix = "Send headers and body in one write, or set TCP_NODELAY on the client.";
    return f;
}

Finding fig2_split_finding() {
    Finding f;
    f.kind = "split_write";
    f.side = Side::Client;
    f.connection_id = 1;
    f.calls = {1};
    f.frames = {4, 6};
    f.explanation = "Request headers and body left in separate segments.";
    f.fix = "Build one buffer or use a gather write.";
    return f;
}

std::vector<SegmentInfo> fig3_segments() {
    const Side C = Side::Client, V = Side::Server;
    return {
        seg(1, 0.000, C, S), seg(2, 0.070, V, S | A), seg(3, 0.110, C, A),
        seg(4, 0.400, C, P | A, 702, kRequestHeaders | kRequestBody),
        seg(5, 1.100, V, P | A, 25, kContinue),
        seg(6, 200.900, C, A),                                 // the client's delayed ACK of the 100
        seg(7, 201.000, V, P | A, 560, kResponseHeaders | kResponseBody),
        seg(8, 201.100, C, A),
    };
}

Finding fig3_nagle_finding() {
    Finding f;
    f.kind = "nagle_delayed_ack";
    f.side = Side::Server;
    f.connection_id = 1;
    f.calls = {1};
    f.frames = {5, 6, 7};
    f.start_ns = kT0 + int64_t(1.100 * kMs);
    f.end_ns = kT0 + int64_t(201.000 * kMs);
    f.cost_ms = 199.8;
    return f;
}

std::vector<SegmentInfo> many_segments(size_t n, int64_t start_ns) {
    std::vector<SegmentInfo> out;
    out.reserve(n);
    int64_t t = start_ns;
    for (size_t i = 0; i < n; ++i) {
        SegmentInfo s;
        s.frame = i + 1;
        // Bursts of back-to-back segments with a few slower gaps in between.
        t += (i % 50 == 49) ? 3 * kMs : int64_t(20'000 + (i * 7919) % 30'000);
        s.ts_ns = t;
        bool ack = i % 3 == 2;
        s.from = i == 0 ? Side::Client : (ack ? Side::Client : Side::Server);
        s.flags = ack ? A : P | A;
        s.len = ack ? 0 : (i == 0 ? 300 : 1448);
        s.carries = ack ? 0 : (i == 0 ? kRequestHeaders | kRequestBody : kResponseBody);
        out.push_back(s);
    }
    return out;
}

AnalysisResult sample_result(size_t ncalls, size_t nconn, const std::string& operation) {
    AnalysisResult r;
    r.capture.file = "synthetic.pcapng";
    r.capture.format = "pcapng";
    nconn = std::max<size_t>(1, nconn);
    for (size_t c = 0; c < nconn; ++c) {
        Connection k;
        k.id = c + 1;
        k.client.addr.family = 4;
        k.client.addr.bytes = {10, 0, 0, 1};
        k.client.port = uint16_t(40000 + c);
        k.server.addr.family = 4;
        k.server.addr.bytes = {10, 0, 0, 2};
        k.server.port = 8080;
        k.http = true;
        r.connections.push_back(k);
    }
    const auto base = fig2_segments();
    for (size_t i = 0; i < ncalls; ++i) {
        Call call;
        call.id = i + 1;
        call.connection_id = i % nconn + 1;
        call.method = "POST";
        call.uri = "/soap";
        call.http_version = "HTTP/1.1";
        call.status = 200;
        call.soap.is_soap = true;
        call.soap.operation = operation;
        const int64_t shift = int64_t(i) * 60 * kMs + (i >= ncalls / 2 ? 5000 * kMs : 0);  // one idle gap
        uint64_t frame_base = i * base.size();
        for (auto s : base) {
            s.ts_ns += shift;
            s.frame += frame_base;
            call.segments.push_back(s);
        }
        auto t = [&](size_t idx) { return call.segments[idx].ts_ns; };
        auto fr = [&](size_t idx) { return call.segments[idx].frame; };
        call.start_ns = t(3);
        call.end_ns = t(7);
        call.latency_ms = double(call.end_ns - call.start_ns) / 1e6;
        call.complete = true;
        call.opened_connection = true;
        call.phases = {
            {PhaseKind::Connect, t(0), t(2), fr(0), fr(2)},
            {PhaseKind::RequestHeaders, t(3), t(3), fr(3), fr(3)},
            {PhaseKind::RequestBody, t(3), t(5), fr(3), fr(5)},
            {PhaseKind::ServerTime, t(5), t(6), fr(5), fr(6)},
            {PhaseKind::ResponseHeaders, t(6), t(6), fr(6), fr(6)},
            {PhaseKind::ResponseBody, t(6), t(7), fr(6), fr(7)},
            {PhaseKind::Close, t(9), t(11), fr(9), fr(11)},
        };
        r.calls.push_back(call);
        Finding f = fig2_nagle_finding();
        f.connection_id = call.connection_id;
        f.calls = {call.id};
        f.frames = {fr(3), fr(4), fr(5)};
        f.start_ns += shift;
        f.end_ns += shift;
        for (auto& iv : f.intervals) iv.start_ns += shift, iv.end_ns += shift;
        r.findings.push_back(f);
    }
    if (!r.calls.empty()) {
        r.capture.first_ns = r.calls.front().segments.front().ts_ns;
        r.capture.last_ns = r.calls.back().segments.back().ts_ns;
    }
    return r;
}

} // namespace stallscope::test
