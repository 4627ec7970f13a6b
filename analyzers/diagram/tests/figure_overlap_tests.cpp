// Exported figures have no label drawn twice or over another, at any size,
// time axis, scale or DPI (issue 27): every text the exporter draws is
// recorded as a box in output units and the boxes are checked pairwise.
// A PNG is rendered in strips of 1024 rows; a label the strip moved would
// show up twice at different places, which this catches.
#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/paged_output.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/result/result_spill.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace stallscope;
using detail::DrawnText;
namespace fs = std::filesystem;

namespace {

// The texts drawn, each once (a PNG strip redraws what straddles it at the
// same place), and every pair of them that overlaps by more than `slack`.
std::vector<std::string> overlaps(std::vector<DrawnText> drawn, double slack) {
    std::set<std::tuple<std::string, int, long, long, long, long>> seen;
    std::vector<DrawnText> once;
    for (const DrawnText& t : drawn) {
        auto key = std::make_tuple(t.text, t.page, std::lround(t.x0 * 10), std::lround(t.y0 * 10), std::lround(t.x1 * 10),
                                   std::lround(t.y1 * 10));
        if (seen.insert(key).second) once.push_back(t);
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < once.size(); ++i)
        for (size_t j = i + 1; j < once.size(); ++j) {
            const DrawnText &a = once[i], &b = once[j];
            if (a.page != b.page) continue;
            const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
            if (w > slack && h > slack)
                out.push_back("'" + a.text + "' at (" + std::to_string(a.x0) + "," + std::to_string(a.y0) + ") and '" + b.text +
                              "' at (" + std::to_string(b.x0) + "," + std::to_string(b.y0) + ")");
        }
    return out;
}

std::vector<DrawnText> render(const EventTraceLayout& L, const std::string& format, double scale) {
    const fs::path out = fs::temp_directory_path() / ("stallscope-overlap-test." + format);
    std::vector<DrawnText> drawn;
    std::string error;
    detail::record_drawn_text(&drawn);
    const bool ok = export_event_trace(L, out.string(), format, error, scale);
    detail::record_drawn_text(nullptr);
    fs::remove(out);
    INFO(error);
    REQUIRE(ok);
    return drawn;
}

// The call with the most stall time (several stalls when it can), and its connection.
uint64_t stalled_call(const AnalysisResult& r) {
    uint64_t best = 0;
    double most = 0;
    for_each_finding(r, [&](const Finding& f) {
        if (!f.calls.empty() && f.counted_ms > most && f.kind != "server_time") {
            most = f.counted_ms;
            best = f.calls.front();
        }
        return true;
    });
    return best;
}

} // namespace

TEST_CASE("exported event traces draw no label twice or over another at any size, axis, scale or DPI", "[figure]") {
    int figures = 0, stall_labels = 0;
    for (const char* name : {"toolkit-soaplite-keepalive.pcap", "toolkit-curl-soaplite-expect.pcap", "refsvc-xsoap.pcap"}) {
        AnalysisOptions ao;
        ao.keep_segments = true;
        AnalyzeOutcome a = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/" + name, ao);
        REQUIRE(a.ok);
        const uint64_t call = stalled_call(a.result);
        REQUIRE(call != 0);
        uint64_t conn = 0;
        for_each_call(a.result, [&](const Call& c) {
            if (c.id == call) conn = c.connection_id;
            return conn == 0;
        });
        for (bool linear : {false, true})
            for (bool whole_connection : {false, true}) {
                EventTraceOptions opt;
                opt.linear_time = linear;
                EventTraceLayout L;
                std::string error;
                REQUIRE((whole_connection ? connection_event_trace(a.result, conn, L, error, opt)
                                          : call_event_trace(a.result, call, L, error, opt)));
                stall_labels += int(L.stalls.size());
                // Sizes: PNG at 96, 150 and 300 dpi, --scale 2 (PNG and PDF), and SVG.
                const std::vector<std::pair<std::string, double>> outputs = {
                    {"png", figure_scale(L.width, "", "png", 96)},  {"png", figure_scale(L.width, "", "png", 150)},
                    {"png", figure_scale(L.width, "", "png", 300)}, {"png", 2.0},
                    {"pdf", 2.0},                                   {"svg", 1.0}};
                for (const auto& [format, scale] : outputs) {
                    INFO(name << (whole_connection ? " connection " : " call ") << (linear ? "linear " : "rows ") << format
                              << " scale " << scale);
                    const std::vector<DrawnText> drawn = render(L, format, scale);
                    REQUIRE(drawn.size() > 10);
                    const std::vector<std::string> bad = overlaps(drawn, 0.5 * scale);
                    for (const std::string& b : bad) UNSCOPED_INFO(b);
                    CHECK(bad.empty());
                    // Each stall's label is drawn, and in one place: as many
                    // places as stalls of that name (a PNG strip must not move one).
                    for (const TraceStall& st : L.stalls) {
                        const std::string what = st.label.substr(0, st.label.rfind(": "));
                        size_t stalls_named = 0;
                        for (const TraceStall& o : L.stalls) stalls_named += o.label.substr(0, o.label.rfind(": ")) == what;
                        std::set<std::pair<long, long>> at;
                        for (const DrawnText& t : drawn) {
                            const bool elided = t.text.size() > 3 && t.text.compare(t.text.size() - 3, 3, "\u2026") == 0 &&
                                                what.compare(0, t.text.size() - 3, t.text, 0, t.text.size() - 3) == 0;
                            if (t.text == what || elided) at.insert({std::lround(t.x0), std::lround(t.y0)});
                        }
                        INFO(what);
                        CHECK(at.size() >= 1);
                        CHECK(at.size() <= stalls_named);
                    }
                    ++figures;
                }
            }
    }
    CHECK(figures == 3 * 4 * 6);
    CHECK(stall_labels > 0);
}
