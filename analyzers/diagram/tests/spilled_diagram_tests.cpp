// A call's or a connection's event trace from a big analysis, whose calls
// are on disk, is the one drawn from the same analysis kept in memory:
// `export` spills as `analyze` does and reads just what the diagram needs.
#include "analyzers/analyze.h"
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/event_trace_layout.h"
#include "analyzers/result_spill.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

// Everything a drawing is made of, as text (cairo's SVG numbers its surfaces
// per process, so two drawings of one layout differ in their ids).
std::string layout_text(const EventTraceLayout& L) {
    std::ostringstream o;
    o << L.title << '|' << L.client_name << '|' << L.server_name << '|' << L.width << 'x' << L.height << '\n';
    for (const TraceArrow& a : L.arrows)
        o << "arrow " << a.frame << ' ' << a.ts_ns << ' ' << int(a.from) << ' ' << a.y_from << ' ' << a.y_to << ' '
          << int(a.flags) << ' ' << a.len << ' ' << a.evidence << ' ' << a.label << ' ' << a.time_label << '\n';
    for (const TraceStall& t : L.stalls)
        o << "stall " << t.kind << ' ' << t.label << ' ' << t.y_start << ' ' << t.y_end << ' ' << t.cost_ms << ' '
          << t.column << '\n';
    for (const TraceBreak& b : L.breaks) o << "break " << b.label << ' ' << b.y << ' ' << b.y_end << '\n';
    return o.str();
}

std::vector<std::string> bundled_captures() {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(STALLSCOPE_TESTDATA_DIR)) {
        auto ext = e.path().extension();
        if (ext == ".pcap" || ext == ".pcapng") out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("event traces of a spilled analysis are those of the analysis in memory", "[spill]") {
    size_t calls = 0, connections = 0;
    for (const std::string& p : bundled_captures()) {
        INFO(p);
        AnalysisOptions opt;
        opt.keep_segments = true;
        AnalyzeOutcome mem = analyze_file(p, opt);
        opt.spill_after_calls = 2;  // everything past the second call goes to disk
        AnalyzeOutcome disk = analyze_file(p, opt);
        REQUIRE(mem.ok == disk.ok);
        if (!mem.ok || mem.result.calls.size() <= 2) continue;
        REQUIRE(disk.result.spill);
        REQUIRE(disk.result.calls.empty());
        for (size_t i = 0; i < mem.result.calls.size() && i < 40; ++i) {
            const uint64_t id = mem.result.calls[i].id;
            EventTraceLayout a, b;
            std::string ea, eb;
            const bool oka = call_event_trace(mem.result, id, a, ea), okb = call_event_trace(disk.result, id, b, eb);
            CHECK(oka == okb);
            CHECK(ea == eb);
            if (oka && okb) CHECK(layout_text(a) == layout_text(b));
            ++calls;
        }
        for (size_t i = 0; i < mem.result.connections.size() && i < 10; ++i) {
            const uint64_t id = mem.result.connections[i].id;
            EventTraceLayout a, b;
            std::string ea, eb;
            const bool oka = connection_event_trace(mem.result, id, a, ea);
            const bool okb = connection_event_trace(disk.result, id, b, eb);
            CHECK(oka == okb);
            CHECK(ea == eb);
            if (oka && okb) CHECK(layout_text(a) == layout_text(b));
            ++connections;
        }
        // Asking for what is not there names the real totals.
        EventTraceLayout none;
        std::string e1, e2;
        CHECK_FALSE(call_event_trace(disk.result, 999999, none, e1));
        CHECK(e1 == "no call 999999 (the capture has " + std::to_string(mem.result.calls.size()) + " calls)");
        CHECK_FALSE(connection_event_trace(disk.result, 999999, none, e2));
        CHECK(e2 == "no connection 999999 (the capture has " + std::to_string(mem.result.connections.size()) +
                        " connections)");
    }
    CHECK(calls > 100);
    CHECK(connections > 20);
}
