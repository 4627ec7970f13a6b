#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/event_trace_layout.h"
#include "analyzers/diagram/png_stream.h"
#include "diagram_fixtures.h"
#include "export_check.h"

#include <catch2/catch.hpp>

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace stallscope;
using namespace stallscope::test;

namespace {
// cairo writes each stroke as its own <path>; the request-data colour
// (style::kClientData = rgb(12%,38%,75%)) marks request arrows: one stroked
// shaft per arrow (heads and dots are fills), plus one in the legend.
const std::string kClientDataStroke = "stroke:rgb(12%,38%,75%)";

EventTraceLayout fig2_layout() {
    return layout_event_trace(fig2_segments(), {fig2_nagle_finding(), fig2_split_finding()},
                              "Call 1: POST /soap doNothing \xE2\x80\x94 41.4 ms", "10.0.0.1:40000", "10.0.0.2:8080");
}
} // namespace

TEST_CASE("Event trace exports as SVG with every arrow", "[export]") {
    std::string dir = temp_dir();
    auto L = fig2_layout();
    std::string err;
    REQUIRE(export_event_trace(L, dir + "/t.svg", "svg", err));
    std::string svg = read_file(dir + "/t.svg");
    REQUIRE(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    // Request data arrows: frames 4 and 6 -> one stroked shaft each.
    CHECK(count(svg, kClientDataStroke) == 2 + 1);
    if (have_tool("rsvg-convert"))
        CHECK(run("rsvg-convert -o '" + dir + "/t-check.png' '" + dir + "/t.svg' 2>/dev/null") == 0);

    // 5000 segments: all of them in one SVG.
    auto many = many_segments(5000);
    auto big = layout_event_trace(many, {}, "big", "c", "s");
    REQUIRE(export_event_trace(big, dir + "/big.svg", "svg", err));
    std::string bsvg = read_file(dir + "/big.svg");
    size_t client_data = 0;
    for (const auto& s : many) client_data += s.from == Side::Client && s.len > 0;
    CHECK(count(bsvg, kClientDataStroke) == client_data + 1);
    // Server data arrows use their own colour; count them too.
    size_t server_data = 0;
    for (const auto& s : many) server_data += s.from == Side::Server && s.len > 0;
    CHECK(count(bsvg, "stroke:rgb(5%,52%,38%)") == server_data + 1);
}

TEST_CASE("SVG exports carry real text: <text> elements with the labels and the font named", "[export]") {
    std::string dir = temp_dir(), err;
    auto L = fig2_layout();
    L.title += " <&> \"q\"";   // must come out escaped
    REQUIRE(export_event_trace(L, dir + "/t.svg", "svg", err));
    const std::string svg = read_file(dir + "/t.svg");
    // cairo's glyph outlines are gone: no <symbol> glyphs, no <use> of them.
    CHECK(svg.find("<symbol") == std::string::npos);
    CHECK(svg.find("glyph") == std::string::npos);
    CHECK(count(svg, "<text ") >= L.arrows.size());
    CHECK(svg.find("font-family:'DejaVu Sans',sans-serif") != std::string::npos);
    CHECK(svg.find(">Call 1: POST /soap doNothing \xE2\x80\x94 41.4 ms &lt;&amp;&gt; \"q\"</text>") != std::string::npos);
    CHECK(svg.find(">10.0.0.1:40000</text>") != std::string::npos);
    size_t labels = 0, found = 0;
    for (const auto& a : L.arrows)
        if (!a.label.empty()) {
            ++labels;
            found += svg.find(">" + a.label + "</text>") != std::string::npos;
        }
    CHECK(labels > 0);
    CHECK(found == labels);
    // Scaled exports put the texts where the scaled drawing is: font sizes scale too.
    REQUIRE(export_event_trace(L, dir + "/s.svg", "svg", err, 2));
    const std::string scaled = read_file(dir + "/s.svg");
    CHECK(count(scaled, "<text ") == count(svg, "<text "));
    if (have_tool("rsvg-convert"))
        CHECK(run("rsvg-convert -o '" + dir + "/s-check.png' '" + dir + "/s.svg' 2>/dev/null") == 0);
}

TEST_CASE("Event trace exports as PDF, over several pages when long", "[export]") {
    std::string dir = temp_dir();
    std::string err;
    REQUIRE(export_event_trace(fig2_layout(), dir + "/t.pdf", "pdf", err));
    CHECK(read_file(dir + "/t.pdf").rfind("%PDF", 0) == 0);
    int pages = pdf_pages(dir + "/t.pdf");
    if (pages >= 0) CHECK(pages == 1);

    auto big = layout_event_trace(many_segments(2000), {}, "big", "c", "s");
    REQUIRE(export_event_trace(big, dir + "/big.pdf", "pdf", err));
    CHECK(read_file(dir + "/big.pdf").rfind("%PDF", 0) == 0);
    pages = pdf_pages(dir + "/big.pdf");
    if (pages >= 0) {
        CHECK(pages >= int(big.height / 1400));
        CHECK(pages <= int(big.height / 1400 * 1.6) + 2);
    }
}

TEST_CASE("Event trace exports as PNG, tiled into columns beyond 32767 px", "[export]") {
    std::string dir = temp_dir();
    std::string err;
    auto L = fig2_layout();
    REQUIRE(export_event_trace(L, dir + "/t.png", "png", err));
    uint32_t w = 0, h = 0;
    REQUIRE(png_size(dir + "/t.png", w, h));
    CHECK(w == uint32_t(std::ceil(L.width)));
    CHECK(h == uint32_t(std::ceil(L.height)));
    CHECK(png_decodes(dir + "/t.png"));

    auto big = layout_event_trace(many_segments(5000), {}, "big", "c", "s");
    REQUIRE(big.height > 32767);
    REQUIRE(export_event_trace(big, dir + "/big.png", "png", err));
    REQUIRE(png_size(dir + "/big.png", w, h));
    CHECK(h <= 32767);
    CHECK(w <= 32767);
    CHECK(w > big.width * 2);          // several columns, not a squashed single one
    CHECK(w % 1 == 0);
}

TEST_CASE("Export reports bad formats, bad paths and survives hostile text", "[export]") {
    std::string dir = temp_dir();
    std::string err;
    auto L = fig2_layout();
    CHECK_FALSE(export_event_trace(L, dir + "/t.gif", "gif", err));
    CHECK(err.find("gif") != std::string::npos);
    for (const char* fmt : {"svg", "pdf", "png"}) {
        err.clear();
        CHECK_FALSE(export_event_trace(L, dir + "/no/such/dir/t", fmt, err));
        CHECK_FALSE(err.empty());
    }
    // Invalid UTF-8 and control bytes in names from the capture.
    L.title = std::string("bad \xff\xfe title \x01\x02 ") + std::string(5000, 'x');
    L.client_name = "\xc3";
    L.arrows[3].label = "\xed\xa0\x80 surrogate";
    REQUIRE(export_event_trace(L, dir + "/h.png", "png", err));
    CHECK(png_decodes(dir + "/h.png"));
    REQUIRE(export_event_trace(L, dir + "/h.svg", "svg", err));
}

TEST_CASE("Figure sizes: two-column PNG at 300 dpi, PDF in points, SVG scaled", "[export]") {
    std::string dir = temp_dir();
    std::string err;
    auto L = fig2_layout();
    const double k = figure_scale(L.width, "two-column", "png", 300);
    CHECK(k == Approx(7.16 * 300 / L.width));
    REQUIRE(export_event_trace(L, dir + "/two.png", "png", err, k));
    uint32_t w = 0, h = 0;
    REQUIRE(png_size(dir + "/two.png", w, h));
    CHECK(std::abs(double(w) - 7.16 * 300) <= 1);
    CHECK(figure_scale(L.width, "one-column", "pdf", 0) == Approx(3.5 * 72 / L.width));
    CHECK(figure_scale(L.width, "", "png", 192) == Approx(2));
    CHECK(figure_scale(L.width, "", "svg", 0) == 1);
    CHECK(figure_scale(L.width, "A4", "svg", 0) == 0);
    std::string svg;
    REQUIRE(export_event_trace(L, dir + "/s.svg", "svg", err, 0.5));
    svg = read_file(dir + "/s.svg");
    CHECK(svg.find("width=\"" + std::to_string(int(L.width / 2))) != std::string::npos);
}

// PngStream (libpng's png_write_row) writes exactly the pixels it is given,
// strip by strip: decoded again, every pixel's RGB is the source's.
TEST_CASE("PngStream: rows written in strips decode to the same pixels", "[export][png]") {
    const std::string path = temp_dir() + "/strips.png";
    const int w = 37, h = 100, stride = w * 4;
    std::vector<uint32_t> px(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            px[size_t(y) * w + size_t(x)] = 0xff000000u | uint32_t((x * 7) & 0xff) << 16 | uint32_t((y * 3) & 0xff) << 8 |
                                            uint32_t((x ^ y) & 0xff);
    PngStream png;
    std::string err;
    REQUIRE(png.open(path, w, h, err));
    for (int y0 = 0; y0 < h; y0 += 32)   // strips of 32 rows, the last one short
        REQUIRE(png.write_rows(reinterpret_cast<const uint8_t*>(px.data() + size_t(y0) * w), stride, std::min(32, h - y0), err));
    REQUIRE(png.finish(err));

    cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
    REQUIRE(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS);
    REQUIRE(cairo_image_surface_get_width(s) == w);
    REQUIRE(cairo_image_surface_get_height(s) == h);
    const unsigned char* data = cairo_image_surface_get_data(s);
    const int out_stride = cairo_image_surface_get_stride(s);
    size_t differing = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const uint32_t got = reinterpret_cast<const uint32_t*>(data + size_t(y) * size_t(out_stride))[x];
            differing += (got & 0xffffffu) != (px[size_t(y) * w + size_t(x)] & 0xffffffu);
        }
    cairo_surface_destroy(s);
    CHECK(differing == 0);
}

TEST_CASE("PngStream: an unwritable path or a short image is an error, not a file", "[export][png]") {
    std::string err;
    PngStream bad;
    CHECK_FALSE(bad.open("/nonexistent-dir/x.png", 10, 10, err));
    CHECK(err.find("/nonexistent-dir/x.png") != std::string::npos);
    PngStream short_one;
    REQUIRE(short_one.open(temp_dir() + "/short.png", 4, 4, err));
    const uint32_t row[4] = {0, 0, 0, 0};
    REQUIRE(short_one.write_rows(reinterpret_cast<const uint8_t*>(row), 16, 1, err));
    CHECK_FALSE(short_one.finish(err));
    CHECK(err == "PNG incomplete");
}
