// Writes the synthetic demo diagrams (seed Fig. 2 and 3 shapes, a 100-segment
// call, a timeline, an HTML report) into a directory, to look at them.
//   diagram_demo OUT_DIR
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/event_trace_layout.h"
#include "diagram_fixtures.h"

#include <cstdio>
#include <string>

using namespace stallscope;
using namespace stallscope::test;

namespace {

// A varied synthetic capture for the timeline: three connections, one with
// Nagle stalls on every kept-alive call, some 100-continue waits, a pause.
AnalysisResult demo_result() {
    AnalysisResult r = sample_result(0, 3);
    r.capture.file = "synthetic-demo.pcapng";
    int64_t t = kT0;
    uint64_t id = 0;
    for (int i = 0; i < 24; ++i) {
        Call c;
        c.id = ++id;
        c.connection_id = uint64_t(i % 3 + 1);
        c.method = "POST";
        c.uri = "/soap";
        c.soap.operation = i % 4 == 1 ? "getString" : "doNothing";
        c.complete = true;
        c.status = 200;
        if (i == 12) t += 4200 * kMs;   // the client paused
        int64_t s = t;
        auto phase = [&](PhaseKind k, double ms) {
            int64_t e = s + int64_t(ms * 1e6);
            c.phases.push_back({k, s, e, 0, 0});
            s = e;
        };
        if (i < 3) phase(PhaseKind::Connect, 0.3);
        c.start_ns = s;
        phase(PhaseKind::RequestHeaders, 0.05);
        if (i % 7 == 3) phase(PhaseKind::ContinueWait, 1.4);
        bool nagle = c.connection_id == 2 && i >= 3;
        int64_t body_start = s;
        phase(PhaseKind::RequestBody, nagle ? 40.2 : 0.1);
        if (nagle) {
            Finding f;
            f.kind = "nagle_delayed_ack";
            f.connection_id = 2;
            f.calls = {c.id};
            f.start_ns = body_start;
            f.end_ns = s;
            f.cost_ms = 40.1;
            r.findings.push_back(f);
        }
        phase(PhaseKind::ServerTime, 2.0 + (i * 37 % 11));
        phase(PhaseKind::ResponseHeaders, 0.05);
        phase(PhaseKind::ResponseBody, 0.4 + (i * 13 % 5) * 0.6);
        c.end_ns = s;
        c.latency_ms = double(c.end_ns - c.start_ns) / 1e6;
        if (i >= 21) phase(PhaseKind::Close, 0.2);
        r.calls.push_back(c);
        t += (nagle ? 20 : 8) * kMs;
    }
    return r;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    std::string dir = argv[1], err;
    bool ok = true;
    auto out = [&](const EventTraceLayout& L, const std::string& name, const char* fmt) {
        if (!export_event_trace(L, dir + "/" + name + "." + fmt, fmt, err)) {
            std::fprintf(stderr, "%s.%s: %s\n", name.c_str(), fmt, err.c_str());
            ok = false;
        }
    };
    auto fig2 = layout_event_trace(fig2_segments(), {fig2_nagle_finding(), fig2_split_finding()},
                                   "Call 1: POST /soap doNothing \xE2\x80\x94 41.4 ms (synthetic, like the seed's Fig. 2)",
                                   "10.0.0.1:40000", "10.0.0.2:8080");
    for (const char* f : {"png", "svg", "pdf"}) out(fig2, "fig2", f);
    auto fig3 = layout_event_trace(fig3_segments(), {fig3_nagle_finding()},
                                   "Call 1: POST /soap doNothing \xE2\x80\x94 201 ms (synthetic, like the seed's Fig. 3)",
                                   "10.0.0.1:40001", "10.0.0.2:80");
    out(fig3, "fig3", "png");
    auto many = layout_event_trace(many_segments(100), {}, "Call 7: 100 segments (synthetic)", "10.0.0.1:40002",
                                   "10.0.0.2:8080");
    out(many, "many100", "png");
    auto result = demo_result();
    for (const char* f : {"png", "svg"})
        if (!export_timeline(result, dir + "/timeline." + f, f, err)) {
            std::fprintf(stderr, "timeline: %s\n", err.c_str());
            ok = false;
        }
    if (argc > 2) {
        auto huge = layout_event_trace(many_segments(std::stoul(argv[2])), {}, "huge (synthetic)", "c", "s");
        for (const char* f : {"png", "svg", "pdf"}) out(huge, "huge", f);
    }
    return ok ? 0 : 1;
}
