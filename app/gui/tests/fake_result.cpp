#include "app/gui/tests/fake_result.h"

#include <chrono>
#include <thread>

namespace stallscope::gui::test {

static constexpr int64_t kT0 = 1'700'000'000'000'000'000;  // epoch ns: too big for a double's exact range
static constexpr int64_t kMs = 1'000'000;

AnalysisResult makeResult() {
    AnalysisResult r;
    r.capture.file = "/tmp/fake.pcap";
    r.capture.format = "pcap";
    r.capture.packets = 36;
    r.capture.first_ns = kT0;
    r.capture.last_ns = kT0 + 700 * kMs;
    r.capture.warnings.push_back({WarningCode::Other, "TCP gap of 12 bytes", 17, 0, 2});
    for (uint64_t c = 1; c <= 3; ++c) {
        Connection k;
        k.id = c;
        uint8_t cli[4] = {10, 0, 0, 1}, srv[4] = {10, 0, 0, 2};
        k.client = {IpAddress::v4(cli), uint16_t(40000 + c)};
        k.server = {IpAddress::v4(srv), 8080};
        k.calls = 2;
        k.http = true;
        r.connections.push_back(k);
    }
    const char* ops[] = {"GetQuote", "GetQuote", "PlaceOrder", "PlaceOrder", "Ping", "Ping"};
    for (uint64_t id = 1; id <= 6; ++id) {
        Call c;
        c.id = id;
        c.connection_id = (id + 1) / 2;
        c.index_on_connection = uint32_t((id + 1) % 2);
        c.method = "POST";
        c.uri = "/svc";
        c.soap.is_soap = true;
        c.soap.operation = ops[id - 1];
        c.start_ns = kT0 + int64_t(id - 1) * 100 * kMs;
        c.request_first_frame = 10 * id + 1;
        const int64_t latency = id == 2 ? 45 * kMs : int64_t(id) * kMs;
        c.end_ns = c.start_ns + latency;
        c.complete = id != 3;
        c.latency_ms = c.complete ? double(latency) / kMs : 0;
        c.status = id == 3 ? 0 : (id == 6 ? 500 : 200);
        c.soap_response.fault = id == 6;
        c.request = {};
        c.request.header_bytes = 200;
        c.request.body_bytes = 300;
        c.response.header_bytes = 150;
        c.response.body_bytes = 400 * id;
        const int64_t q = latency / 4;
        c.phases = {{PhaseKind::RequestHeaders, c.start_ns, c.start_ns + q, 10 * id + 1, 10 * id + 1},
                    {PhaseKind::RequestBody, c.start_ns + q, c.start_ns + 2 * q, 10 * id + 2, 10 * id + 3},
                    {PhaseKind::ServerTime, c.start_ns + 2 * q, c.start_ns + 3 * q, 10 * id + 3, 10 * id + 4},
                    {PhaseKind::ResponseBody, c.start_ns + 3 * q, c.end_ns, 10 * id + 5, 10 * id + 6}};
        for (uint64_t s = 1; s <= 6; ++s) {
            SegmentInfo seg;
            seg.frame = 10 * id + s;
            seg.ts_ns = c.start_ns + int64_t(s - 1) * latency / 5;
            seg.from = s <= 3 ? Side::Client : Side::Server;
            seg.len = s == 3 ? 0 : 100;
            c.segments.push_back(seg);
        }
        r.calls.push_back(c);
    }
    auto finding = [&](const char* kind, Side side, uint64_t conn, std::vector<uint64_t> calls, double cost, uint64_t first_frame) {
        Finding f;
        f.kind = kind;
        f.side = side;
        f.connection_id = conn;
        f.calls = calls;
        f.frames = {first_frame, first_frame + 1};
        f.cost_ms = cost;
        f.counted_ms = cost;   // no overlaps here
        f.cost_method = "test";
        f.explanation = std::string(kind) + " explained";
        f.fix = "fix it";
        f.toolkit = "TestKit";
        f.toolkit_fix = "kit.setting=1";
        const Call& c = r.calls[calls.front() - 1];
        f.start_ns = c.start_ns + 1 * kMs;
        f.end_ns = f.start_ns + int64_t(cost * kMs);
        r.findings.push_back(f);
    };
    finding("split_write", Side::Client, 2, {4}, 5, 41);
    finding("nagle_delayed_ack", Side::Client, 1, {2}, 40, 21);
    finding("connection_per_call", Side::Client, 3, {5, 6}, 2, 51);
    r.summary.overall.latency = {5, 4, 45, 45, 11.8, 59};
    r.summary.overall.losses = {{"nagle_delayed_ack", 1, 1, 40, 40.0 / 59}, {"split_write", 1, 1, 5, 5.0 / 59},
                                {"connection_per_call", 1, 2, 2, 2.0 / 59}};
    r.summary.overall.predicted_median_ms = 4;
    return r;
}

static EventTraceLayout layoutOf(const std::vector<SegmentInfo>& segs, const std::vector<Finding>& findings,
                                 const std::string& title) {
    EventTraceLayout l;
    l.width = 600;
    l.client_x = 150;
    l.server_x = 450;
    l.top = 60;
    l.title = title;
    l.client_name = "client";
    l.server_name = "server";
    double y = l.top;
    for (const SegmentInfo& s : segs) {
        TraceArrow a;
        a.frame = s.frame;
        a.ts_ns = s.ts_ns;
        a.from = s.from;
        a.y_from = y;
        a.y_to = y + 10;
        a.len = s.len;
        a.label = "#" + std::to_string(s.frame);
        for (const Finding& f : findings)
            for (uint64_t fr : f.frames) a.evidence = a.evidence || fr == s.frame;
        l.arrows.push_back(a);
        y += 40;
    }
    l.height = y + 40;
    return l;
}

GuiBackend fakeBackend() {
    GuiBackend b;
    b.analyze = [](const std::vector<std::string>& paths, const AnalysisOptions& o, const ProgressFn& progress) {
        AnalyzeOutcome out;
        const std::string path = paths.empty() ? std::string() : paths.front();
        if (path == "fake:ok") {
            out.ok = true;
            out.result = makeResult();
            if (!o.keep_segments)   // the GUI must ask for segments
                for (Call& c : out.result.calls) c.segments.clear();
        } else if (path == "fake:slow") {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            for (uint64_t i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
                if (progress && !progress({i % 100, 100, i})) { out.cancelled = true; break; }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            out.ok = true;
        } else {
            out.error = path + ": not a capture file (bad magic 0x3c3f786d)";
        }
        return out;
    };
    b.call_trace = [](const AnalysisResult& r, uint64_t id, EventTraceLayout& out, std::string& err) {
        for (const Call& c : r.calls)
            if (c.id == id) {
                if (c.segments.empty()) { err = "no segments"; return false; }
                std::vector<Finding> fs;
                for (const Finding& f : r.findings)
                    for (uint64_t x : f.calls) if (x == id) fs.push_back(f);
                out = layoutOf(c.segments, fs, "call " + std::to_string(id));
                return true;
            }
        err = "no such call";
        return false;
    };
    b.connection_trace = [](const AnalysisResult& r, uint64_t id, EventTraceLayout& out, std::string& err) {
        std::vector<SegmentInfo> segs;
        for (const Call& c : r.calls)
            if (c.connection_id == id) segs.insert(segs.end(), c.segments.begin(), c.segments.end());
        if (segs.empty()) { err = "no segments"; return false; }
        std::vector<Finding> fs;
        for (const Finding& f : r.findings) if (f.connection_id == id) fs.push_back(f);
        out = layoutOf(segs, fs, "connection " + std::to_string(id));
        return true;
    };
    b.report_json = [](const AnalysisResult& r) { return "{\"calls\": " + std::to_string(r.calls.size()) + "}\n"; };
    return b;
}

} // namespace stallscope::gui::test
