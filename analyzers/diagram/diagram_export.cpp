#include "analyzers/diagram/diagram_export.h"

#include "analyzers/diagram/diagram_style.h"
#include "analyzers/diagram/diagram_text.h"
#include "analyzers/diagram/paged_output.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <cmath>

namespace stallscope {
using namespace detail;
namespace {

constexpr double kPdfPageHeight = 1400;   // points; about A3 proportions at 960 wide

void set_rgb(cairo_t* cr, style::Rgb c, double alpha = 1) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

style::Rgb arrow_colour(const TraceArrow& a) {
    if (a.flags & tcpflag::kRst) return style::kReset;
    if (a.retransmission) return style::kRetransmit;
    if (a.carries & carries::kContinue) return style::kContinue;
    if (a.pure_ack) return style::kPureAck;
    if (a.len == 0) return style::kControl;        // SYN, FIN
    return a.from == Side::Client ? style::kClientData : style::kServerData;
}

void arrow_head(cairo_t* cr, double x0, double y0, double x1, double y1, double size) {
    double ang = std::atan2(y1 - y0, x1 - x0);
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x1 - size * std::cos(ang - 0.38), y1 - size * std::sin(ang - 0.38));
    cairo_line_to(cr, x1 - size * std::cos(ang + 0.38), y1 - size * std::sin(ang + 0.38));
    cairo_close_path(cr);
    cairo_fill(cr);
}

// Legend sample + text; returns the x after it.
double legend_item(cairo_t* cr, double x, double y, const char* text, int kind) {
    cairo_save(cr);
    switch (kind) {
    case 0: case 1: case 2: case 3: {   // arrows
        style::Rgb c = kind == 0 ? style::kClientData : kind == 1 ? style::kServerData
                     : kind == 2 ? style::kContinue : style::kPureAck;
        set_rgb(cr, c);
        cairo_set_line_width(cr, kind == 2 ? 2.2 : 1.6);
        if (kind == 3) { double d[] = {4, 3}; cairo_set_dash(cr, d, 2, 0); }
        cairo_move_to(cr, x, y - 4);
        cairo_line_to(cr, x + 24, y - 2);
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0);
        arrow_head(cr, x, y - 4, x + 26, y - 2, 7);
        break;
    }
    case 4:   // stall
        set_rgb(cr, style::kStall, 0.10);
        cairo_rectangle(cr, x, y - 10, 26, 12);
        cairo_fill(cr);
        set_rgb(cr, style::kStall);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, x + 4, y - 10); cairo_line_to(cr, x, y - 10); cairo_line_to(cr, x, y + 2);
        cairo_line_to(cr, x + 4, y + 2);
        cairo_stroke(cr);
        break;
    case 5:   // evidence
        set_rgb(cr, style::kEvidence);
        cairo_rectangle(cr, x, y - 10, 26, 13);
        cairo_fill(cr);
        break;
    }
    cairo_restore(cr);
    set_rgb(cr, style::kInk);
    return x + 32 + draw_text(cr, text, x + 32, y, Align::Left) + 18;
}

void draw_trace_header(cairo_t* cr, const EventTraceLayout& L, int page, int pages) {
    set_font(cr, 15, true);
    set_rgb(cr, style::kInk);
    std::string title = L.title.empty() ? "Event trace" : L.title;
    if (pages > 1) title += "  (" + std::to_string(page + 1) + "/" + std::to_string(pages) + ")";
    draw_text(cr, elide(cr, title, L.width - 32), 16, 28, Align::Left);

    set_font(cr, 10.5);
    double x = 16, y = 56;
    const char* names[] = {"request data", "response data", "100 Continue", "pure ACK", "stall", "evidence frame"};
    // "evidence frame" only when some frame is marked (not with --no-highlight).
    const bool marked = std::any_of(L.arrows.begin(), L.arrows.end(), [](const TraceArrow& a) { return a.evidence; });
    for (int k = 0; k < (marked ? 6 : 5); ++k) x = legend_item(cr, x, y, names[k], k);
    set_rgb(cr, style::kMuted);
    set_font(cr, 10, false, false, true);
    draw_text(cr, time_axis_note(L), 16, 76, Align::Left);

    // Lane headers.
    for (int side = 0; side < 2; ++side) {
        double cx = side == 0 ? L.client_x : L.server_x;
        const std::string& name = side == 0 ? L.client_name : L.server_name;
        double w = std::min(2 * L.label_zone, 2 * std::min(cx, L.width - cx) - 8);
        cairo_save(cr);
        set_rgb(cr, style::kInk);
        set_font(cr, 12.5, true);
        draw_text(cr, side == 0 ? "Client" : "Server", cx, L.lanes_top - 16, Align::Centre);
        set_font(cr, 10);
        set_rgb(cr, style::kMuted);
        if (!name.empty()) draw_text(cr, elide(cr, name, w), cx, L.lanes_top - 3, Align::Centre);
        cairo_restore(cr);
    }
}

void draw_break_mark(cairo_t* cr, double x, double ya, double yb) {
    // White gap in the lane with two zig-zags.
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, x - 6, ya, 12, yb - ya);
    cairo_fill(cr);
    set_rgb(cr, style::kMuted);
    cairo_set_line_width(cr, 1.2);
    for (double yy : {ya, yb}) {
        cairo_move_to(cr, x - 8, yy + 2);
        cairo_line_to(cr, x - 3, yy - 2);
        cairo_line_to(cr, x + 3, yy + 2);
        cairo_line_to(cr, x + 8, yy - 2);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

constexpr double kDrawMargin = 40;  // px beyond the visible range still drawn (strokes and labels reach over)

// Stall bands between the lanes (under everything else), the lanes, and idle breaks.
void draw_trace_lanes(cairo_t* cr, const EventTraceLayout& L, double v0, double v1) {
    const double margin = kDrawMargin;
    for (const auto& st : L.stalls) {
        if (st.y_end < v0 - margin || st.y_start > v1 + margin) continue;
        set_rgb(cr, style::kStall, 0.07);
        cairo_rectangle(cr, L.client_x, st.y_start, L.server_x - L.client_x, st.y_end - st.y_start);
        cairo_fill(cr);
    }
    cairo_set_line_width(cr, 1.6);
    set_rgb(cr, style::kInk);
    for (double x : {L.client_x, L.server_x}) {
        cairo_move_to(cr, x, std::max(L.lanes_top, v0 - margin));
        cairo_line_to(cr, x, std::min(L.lanes_bottom, v1 + margin));
        cairo_stroke(cr);
    }
    for (const auto& br : L.breaks) {
        if (br.y_end < v0 - margin || br.y > v1 + margin) continue;
        draw_break_mark(cr, L.client_x, br.y, br.y_end);
        draw_break_mark(cr, L.server_x, br.y, br.y_end);
        set_font(cr, 10.5, false, false, true);
        set_rgb(cr, style::kMuted);
        draw_text(cr, br.label, (L.client_x + L.server_x) / 2, (br.y + br.y_end) / 2 + 4, Align::Centre);
    }
}

// One segment: sender dot, line (dashed for pure ACKs and retransmissions),
// head, its label above the middle (evidence highlighted) and its time.
void draw_trace_arrow(cairo_t* cr, const EventTraceLayout& L, const TraceArrow& a) {
    const double span = std::abs(L.server_x - L.client_x);
    style::Rgb c = arrow_colour(a);
    double dir = a.x_to > a.x_from ? 1 : -1;
    double xa = a.x_from + dir * 1, xb = a.x_to - dir * 1;
    set_rgb(cr, c);
    cairo_arc(cr, a.x_from, a.y_from, 2.4, 0, 2 * M_PI);
    cairo_fill(cr);
    cairo_set_line_width(cr, a.evidence ? 2.6 : (a.carries & carries::kContinue) ? 2.2 : 1.5);
    if (a.pure_ack) { double d[] = {5, 3.5}; cairo_set_dash(cr, d, 2, 0); }
    else if (a.retransmission) { double d[] = {9, 3}; cairo_set_dash(cr, d, 2, 0); }
    cairo_move_to(cr, xa, a.y_from);
    cairo_line_to(cr, xb - dir * 6, a.y_to - (a.y_to - a.y_from) * 6 / span);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
    arrow_head(cr, xa, a.y_from, xb, a.y_to, 9);

    set_font(cr, 11, a.evidence || (a.carries & carries::kContinue));
    double mx = (a.x_from + a.x_to) / 2, my = (a.y_from + a.y_to) / 2 - 5;
    std::string label = elide(cr, a.label, span - 24);
    if (a.evidence && !label.empty()) {
        double w = text_width(cr, label);
        set_rgb(cr, style::kEvidence);
        cairo_rectangle(cr, mx - w / 2 - 4, my - 11, w + 8, 14.5);
        cairo_fill(cr);
    }
    set_rgb(cr, a.pure_ack && !a.evidence ? style::kMuted : style::kInk);
    draw_text(cr, label, mx, my, Align::Centre);

    set_font(cr, 9.5, false, true);
    set_rgb(cr, style::kMuted);
    draw_text(cr, a.time_label, L.time_label_x, a.y_from + 3.5, Align::Right);
}

// A stall bracket on the waiting side, and its label: kind on one line,
// time on the next, where the layout put it (apart from the others). The
// label goes on the one page its place is on (a PDF page, a PNG column),
// nudged inside when it straddles the page's edge, never moved by the strip
// being rendered (it would be drawn once per strip); other pages draw the
// bracket only.
void draw_trace_stall(cairo_t* cr, const EventTraceLayout& L, const TraceStall& st, double v0, double v1,
                      PageRange page) {
    const double margin = kDrawMargin;
    double ly = st.label_y;
    const bool label_here = page.y0 <= ly && ly < page.y1;
    if (label_here) ly = std::clamp(ly, page.y0 + 12, std::max(page.y0 + 12, page.y1 - 18));
    if (std::max(st.y_end, ly + 18) < v0 - margin || std::min(st.y_start, ly - 12) > v1 + margin) return;
    bool left = st.side == Side::Client;
    double tick = left ? 6 : -6;
    set_rgb(cr, style::kStall);
    cairo_set_line_width(cr, 2.2);
    cairo_move_to(cr, st.x + tick, st.y_start);
    cairo_line_to(cr, st.x, st.y_start);
    cairo_line_to(cr, st.x, st.y_end);
    cairo_line_to(cr, st.x + tick, st.y_end);
    cairo_stroke(cr);
    if (!label_here) return;
    double lx = left ? st.x - 7 : st.x + 7;
    double room = left ? lx - L.time_label_x - 8 : L.width - lx - 8;
    auto colon = st.label.rfind(": ");
    std::string what = colon == std::string::npos ? st.label : st.label.substr(0, colon);
    std::string how = colon == std::string::npos ? "" : st.label.substr(colon + 2);
    Align al = left ? Align::Right : Align::Left;
    set_font(cr, 11, true);
    draw_text(cr, elide(cr, what, room), lx, ly, al);
    set_font(cr, 11);
    draw_text(cr, how, lx, ly + 14, al);
}

void draw_trace_body(cairo_t* cr, const EventTraceLayout& L, double v0, double v1, PageRange page) {
    draw_trace_lanes(cr, L, v0, v1);
    // Arrows in the visible range (they are in y order).
    auto first = std::lower_bound(L.arrows.begin(), L.arrows.end(), v0 - kDrawMargin,
                                  [](const TraceArrow& a, double v) { return a.y_to < v; });
    for (auto it = first; it != L.arrows.end() && it->y_from <= v1 + kDrawMargin; ++it) draw_trace_arrow(cr, L, *it);
    for (const auto& st : L.stalls) draw_trace_stall(cr, L, st, v0, v1, page);
}

PagedDrawing trace_drawing(const EventTraceLayout& L) {
    PagedDrawing d;
    d.width = L.width;
    d.height = L.height;
    d.header = L.lanes_top;
    d.cuts.reserve(L.arrows.size() + L.breaks.size());
    for (const auto& a : L.arrows) d.cuts.push_back(a.y_from - 19);   // above its label
    for (const auto& b : L.breaks) d.cuts.push_back((b.y + b.y_end) / 2 + 12);
    std::sort(d.cuts.begin(), d.cuts.end());
    d.draw_header = [&L](cairo_t* cr, int page, int pages) { draw_trace_header(cr, L, page, pages); };
    d.draw_body = [&L](cairo_t* cr, double v0, double v1, PageRange page) { draw_trace_body(cr, L, v0, v1, page); };
    return d;
}

} // namespace

double figure_scale(double layout_width, const std::string& page, const std::string& format, double dpi) {
    double inches = 0;
    if (page == "one-column") inches = 3.5;
    else if (page == "two-column") inches = 7.16;
    else if (!page.empty()) return 0;
    const double per_inch = format == "pdf" ? 72 : format == "svg" ? 96 : (dpi > 0 ? dpi : 300);
    if (inches > 0) return inches * per_inch / std::max(1.0, layout_width);
    return format == "png" && dpi > 0 ? dpi / 96 : 1;   // PNG at the layout's size is 96 dpi
}

bool export_event_trace(const EventTraceLayout& L, const std::string& path, const std::string& format,
                        std::string& error, double scale) {
    PagedDrawing d = trace_drawing(L);
    d.scale = scale > 0 ? scale : 1;
    if (format == "svg") return write_svg_file(d, path, error);
    if (format == "pdf") return write_pdf_file(d, path, kPdfPageHeight, error);
    if (format == "png") return write_png_file(d, path, error);
    error = "unknown diagram format '" + format + "' (svg, pdf or png)";
    return false;
}

bool event_trace_svg(const EventTraceLayout& L, std::string& svg, std::string& error) {
    return write_svg_string(trace_drawing(L), svg, error);
}

} // namespace stallscope
