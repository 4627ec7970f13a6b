#include "analyzers/diagram/diagram_export.h"
#include "analyzers/diagram/diagram_style.h"
#include "analyzers/diagram/diagram_text.h"
#include "analyzers/diagram/paged_output.h"

#include <algorithm>

namespace stallscope {
using namespace detail;

style::Rgb style::phase_colour(PhaseKind k) {
    switch (k) {
    case PhaseKind::Connect: return {0.55, 0.61, 0.69};
    case PhaseKind::RequestHeaders: return {0.50, 0.70, 0.90};
    case PhaseKind::ContinueWait: return {0.71, 0.54, 0.84};
    case PhaseKind::RequestBody: return {0.18, 0.44, 0.77};
    case PhaseKind::ServerTime: return {0.80, 0.77, 0.71};   // neutral: where the time went, not a stall
    case PhaseKind::ResponseHeaders: return {0.53, 0.81, 0.65};
    case PhaseKind::ResponseBody: return {0.18, 0.60, 0.42};
    case PhaseKind::Close: return {0.72, 0.72, 0.72};
    case PhaseKind::TlsHandshake: return {0.62, 0.55, 0.75};
    }
    return {0.5, 0.5, 0.5};
}

namespace {

void set_rgb(cairo_t* cr, style::Rgb c, double a = 1) { cairo_set_source_rgba(cr, c.r, c.g, c.b, a); }

void draw_timeline_header(cairo_t* cr, const TimelineLayout& L, int page, int pages) {
    set_rgb(cr, style::kInk);
    set_font(cr, 15, true);
    std::string title = L.title;
    if (pages > 1) title += "  (" + std::to_string(page + 1) + "/" + std::to_string(pages) + ")";
    draw_text(cr, elide(cr, title, L.width - 32), 16, 28, Align::Left);

    // Legend: the phases, then the stall overlay and the break mark.
    set_font(cr, 10.5);
    double x = 16, y = 56;
    const PhaseKind kinds[] = {PhaseKind::Connect, PhaseKind::RequestHeaders, PhaseKind::ContinueWait,
                               PhaseKind::RequestBody, PhaseKind::ServerTime, PhaseKind::ResponseHeaders,
                               PhaseKind::ResponseBody, PhaseKind::Close};
    for (PhaseKind k : kinds) {
        std::string name = phase_title(k);
        double w = 14 + 6 + text_width(cr, name) + 16;
        if (x + w > L.width - 16) { x = 16; y += 20; }
        set_rgb(cr, style::phase_colour(k));
        cairo_rectangle(cr, x, y - 10, 14, 12);
        cairo_fill(cr);
        set_rgb(cr, style::kInk);
        draw_text(cr, name, x + 20, y, Align::Left);
        x += w;
    }
    double w = 14 + 6 + text_width(cr, "stall (finding)") + 16;
    if (x + w > L.width - 16) { x = 16; y += 20; }
    set_rgb(cr, style::kStall, 0.25);
    cairo_rectangle(cr, x, y - 10, 14, 12);
    cairo_fill_preserve(cr);
    set_rgb(cr, style::kStall);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    set_rgb(cr, style::kInk);
    draw_text(cr, "stall (finding)", x + 20, y, Align::Left);
    set_font(cr, 10, false, false, true);
    set_rgb(cr, style::kMuted);
    draw_text(cr, "one row per call on one time axis; idle stretches between calls are cut out (grey bands)",
              16, y + 20, Align::Left);

    // Axis ticks just above the rows.
    set_font(cr, 9.5, false, true);
    for (const auto& t : L.ticks) {
        set_rgb(cr, style::kMuted);
        draw_text(cr, t.label, t.x, L.rows_top - 10, Align::Centre);
        cairo_move_to(cr, t.x, L.rows_top - 6);
        cairo_line_to(cr, t.x, L.rows_top);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
    }
    set_font(cr, 10.5, true);
    set_rgb(cr, style::kInk);
    draw_text(cr, "call", 16, L.rows_top - 26, Align::Left);
    draw_text(cr, "latency", L.plot_left - 10, L.rows_top - 26, Align::Right);
}

void draw_timeline_body(cairo_t* cr, const TimelineLayout& L, double v0, double v1) {
    double bottom = L.rows.empty() ? L.rows_top + 20 : L.rows.back().y + L.rows.back().height + 3;
    double top = std::max(L.rows_top, v0 - 20), bot = std::min(bottom, v1 + 20);
    // Grid lines at the ticks, and the breaks as grey bands.
    set_rgb(cr, style::kGrid);
    cairo_set_line_width(cr, 1);
    for (const auto& t : L.ticks) {
        cairo_move_to(cr, t.x, top);
        cairo_line_to(cr, t.x, bot);
        cairo_stroke(cr);
    }
    for (const auto& b : L.breaks) {
        set_rgb(cr, style::kMuted, 0.14);
        cairo_rectangle(cr, b.x0 + 2, top, std::max(1.0, b.x1 - b.x0 - 4), bot - top);
        cairo_fill(cr);
    }
    auto first = std::lower_bound(L.rows.begin(), L.rows.end(), v0 - 30,
                                  [](const TimelineRow& r, double v) { return r.y + r.height < v; });
    size_t index = size_t(first - L.rows.begin());
    for (auto it = first; it != L.rows.end() && it->y <= v1 + 30; ++it, ++index) {
        const TimelineRow& row = *it;
        if (index % 2 == 1) {
            cairo_set_source_rgba(cr, 0.2, 0.3, 0.5, 0.045);
            cairo_rectangle(cr, 0, row.y - 3, L.width, row.height + 6);
            cairo_fill(cr);
        }
        double base = row.y + row.height - 4;
        set_font(cr, 11);
        set_rgb(cr, style::kInk);
        draw_text(cr, elide(cr, row.label, L.plot_left - 100), 16, base, Align::Left);
        set_font(cr, 10.5, false, true);
        set_rgb(cr, row.latency_label == "incomplete" ? style::kMuted : style::kInk);
        draw_text(cr, row.latency_label, L.plot_left - 10, base, Align::Right);
        for (const auto& b : row.phases) {
            set_rgb(cr, style::phase_colour(b.kind));
            cairo_rectangle(cr, b.x0, row.y, b.x1 - b.x0, row.height);
            cairo_fill(cr);
        }
        // Stalls: an outline over the phases they delay, and a solid strip
        // along the bottom, so the phase colours stay visible.
        for (const auto& s : row.stalls) {
            set_rgb(cr, style::kStall);
            cairo_rectangle(cr, s.x0, row.y + row.height - 4, s.x1 - s.x0, 5.5);
            cairo_fill(cr);
            cairo_set_line_width(cr, 1.4);
            cairo_rectangle(cr, s.x0 - 0.7, row.y - 1.7, s.x1 - s.x0 + 1.4, row.height + 3.4);
            cairo_stroke(cr);
        }
        // The stalls' names after the call's last bar; those with no room
        // there go before its first bar; any left are counted at the right
        // edge ("+2 stalls"), never dropped without a word.
        double x = 0, first = L.width;
        for (const auto& b : row.phases) x = std::max(x, b.x1), first = std::min(first, b.x0);
        for (const auto& s : row.stalls) x = std::max(x, s.x1), first = std::min(first, s.x0);
        x += 8;
        first -= 8;
        set_font(cr, 9.5, true);
        cairo_set_source_rgb(cr, 0.62, 0.08, 0.08);
        size_t left_out = 0;
        const double more_w = text_width(cr, "+99 stalls") + 8;
        for (size_t i = 0; i < row.stalls.size(); ++i) {
            const auto& s = row.stalls[i];
            const double w = text_width(cr, s.label);
            const double reserve = i + 1 < row.stalls.size() ? more_w : 0;   // room for "+N stalls" after it
            if (x + w <= L.width - 4 - reserve) {
                x += draw_text(cr, s.label, x, base, Align::Left) + 12;
            } else if (first - w >= L.plot_left + 4) {
                first -= draw_text(cr, s.label, first, base, Align::Right) + 12;
            } else {
                ++left_out;
            }
        }
        if (left_out)
            draw_text(cr, "+" + std::to_string(left_out) + (left_out == 1 ? " stall" : " stalls"), L.width - 4, base, Align::Right);
    }
    // Break lengths under the rows.
    if (bottom <= v1 + 40) {
        set_font(cr, 9.5, false, false, true);
        set_rgb(cr, style::kMuted);
        double last = -1e9;
        for (const auto& b : L.breaks) {
            double cx = (b.x0 + b.x1) / 2;
            if (cx - last < 60) continue;
            draw_text(cr, b.label, cx, bottom + 14, Align::Centre);
            last = cx;
        }
    }
    if (L.rows.size() < L.calls_total && bottom <= v1 + 40) {
        set_font(cr, 10.5, false, false, true);
        set_rgb(cr, style::kMuted);
        draw_text(cr, !L.left_out.empty() ? "\u2026 " + L.left_out
                                          : "\u2026 and " + std::to_string(L.calls_total - L.rows.size()) + " more calls not shown",
                  16, bottom + 30, Align::Left);
    }
}

PagedDrawing timeline_drawing(const TimelineLayout& L) {
    PagedDrawing d;
    d.width = L.width;
    d.height = L.height;
    d.header = L.rows_top;
    for (const auto& r : L.rows) d.cuts.push_back(r.y - 3);
    d.draw_header = [&L](cairo_t* cr, int page, int pages) { draw_timeline_header(cr, L, page, pages); };
    d.draw_body = [&L](cairo_t* cr, double v0, double v1, PageRange) { draw_timeline_body(cr, L, v0, v1); };
    return d;
}

} // namespace

bool export_timeline_layout(const TimelineLayout& L, const std::string& path, const std::string& format,
                            std::string& error) {
    PagedDrawing d = timeline_drawing(L);
    if (format == "svg") return write_svg_file(d, path, error);
    if (format == "png") return write_png_file(d, path, error);
    if (format == "pdf") return write_pdf_file(d, path, 1400, error);
    error = "unknown timeline format '" + format + "' (svg or png)";
    return false;
}

bool export_timeline(const AnalysisResult& r, const std::string& path, const std::string& format,
                     std::string& error) {
    return export_timeline_layout(layout_timeline(r), path, format, error);
}

bool timeline_svg(const TimelineLayout& L, std::string& svg, std::string& error) {
    return write_svg_string(timeline_drawing(L), svg, error);
}

} // namespace stallscope
