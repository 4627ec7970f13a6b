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
    auto result = sample_result(24, 3);
    result.capture.file = "synthetic-demo.pcapng";
    for (size_t i = 0; i < result.calls.size(); i += 5) result.calls[i].soap.operation = "getString";
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
