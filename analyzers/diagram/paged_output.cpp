#include "analyzers/diagram/paged_output.h"

#include "analyzers/diagram/diagram_style.h"
#include "analyzers/diagram/diagram_text.h"
#include "analyzers/diagram/png_stream.h"
#include "analyzers/diagram/svg_text.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace stallscope::detail {
namespace {

void paint_white(cairo_t* cr) {
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_restore(cr);
}

// The text recorder (record_drawn_text): where drawn texts go, the page
// being drawn, and the y of the PNG strip being rendered.
thread_local std::vector<DrawnText>* g_drawn = nullptr;
thread_local int g_drawn_page = 0;
thread_local double g_drawn_offset_y = 0;
thread_local double g_clip_y0 = -1e300, g_clip_y1 = 1e300;   // the page part being drawn, in user units (what shows)

// One page: header at the top, then body range r right below it.
void draw_page(cairo_t* cr, const PagedDrawing& d, const PageRange& r, int page, int pages,
               double vis_top = -1e300, double vis_bottom = 1e300) {
    g_drawn_page = page;
    if (vis_top < d.header) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, 0, d.width, d.header);
        cairo_clip(cr);
        g_clip_y0 = 0, g_clip_y1 = d.header;
        d.draw_header(cr, page, pages);
        cairo_restore(cr);
    }
    g_clip_y0 = r.y0, g_clip_y1 = r.y1;
    cairo_save(cr);
    cairo_rectangle(cr, 0, d.header, d.width, r.y1 - r.y0);
    cairo_clip(cr);
    cairo_translate(cr, 0, d.header - r.y0);
    double v0 = std::max(r.y0, r.y0 + (vis_top - d.header));
    double v1 = std::min(r.y1, r.y0 + (vis_bottom - d.header));
    if (v1 >= v0) d.draw_body(cr, v0, v1, r);
    cairo_restore(cr);
}

bool check(cairo_surface_t* s, const std::string& what, std::string& error) {
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS) return true;
    error = what + ": " + cairo_status_to_string(st);
    return false;
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int len) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), len);
    return CAIRO_STATUS_SUCCESS;
}

// The SVG as a string: cairo draws the graphics, the texts become <text>
// elements (svg_text.h).
bool write_svg(const PagedDrawing& d, std::string& out, const std::string& what, std::string& error) {
    out.clear();
    cairo_surface_t* s = cairo_svg_surface_create_for_stream(append_to_string, &out, d.width * d.scale, d.height * d.scale);
    if (!check(s, what, error)) { cairo_surface_destroy(s); return false; }
    cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
    cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);   // 1.16 defaults to pt (a third larger)
    SvgTextCollector texts;
    cairo_t* cr = cairo_create(s);
    paint_white(cr);
    cairo_scale(cr, d.scale, d.scale);
    draw_page(cr, d, {d.header, d.height}, 0, 1);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    bool ok = check(s, what, error);
    cairo_surface_destroy(s);
    if (ok) texts.insert_into(out);
    return ok;
}

} // namespace

std::vector<PageRange> paginate(const PagedDrawing& d, double max_body) {
    std::vector<PageRange> pages;
    double end = std::max(d.height, d.header + 1);
    double s = d.header;
    max_body = std::max(max_body, 50.0);
    while (end - s > max_body) {
        double limit = s + max_body;
        // The last cut that fits, if it leaves the page at least a third full.
        auto it = std::upper_bound(d.cuts.begin(), d.cuts.end(), limit);
        double e = limit;
        if (it != d.cuts.begin() && *std::prev(it) > s + max_body / 3) e = *std::prev(it);
        pages.push_back({s, e});
        s = e;
    }
    pages.push_back({s, end});
    return pages;
}

bool write_svg_file(const PagedDrawing& d, const std::string& path, std::string& error) {
    std::string svg;
    if (!write_svg(d, svg, path, error)) return false;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    const bool written = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    if (std::fclose(f) != 0 || !written) {
        error = path + ": write error";
        return false;
    }
    return true;
}

bool write_svg_string(const PagedDrawing& d, std::string& out, std::string& error) {
    return write_svg(d, out, "SVG", error);
}

bool write_pdf_file(const PagedDrawing& d, const std::string& path, double page_height, std::string& error) {
    const double k = d.scale;   // page_height is in output points
    auto pages = paginate(d, page_height / k - d.header);
    cairo_surface_t* s = cairo_pdf_surface_create(path.c_str(), d.width * k, (d.header + (pages[0].y1 - pages[0].y0)) * k);
    if (!check(s, path, error)) { cairo_surface_destroy(s); return false; }
    cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "StallScope");
    cairo_t* cr = cairo_create(s);
    for (size_t i = 0; i < pages.size(); ++i) {
        cairo_pdf_surface_set_size(s, d.width * k, (d.header + (pages[i].y1 - pages[i].y0)) * k);
        paint_white(cr);
        cairo_save(cr);
        cairo_scale(cr, k, k);
        draw_page(cr, d, pages[i], int(i), int(pages.size()));
        cairo_restore(cr);
        cairo_show_page(cr);
    }
    cairo_destroy(cr);
    cairo_surface_finish(s);
    bool ok = check(s, path, error);
    cairo_surface_destroy(s);
    return ok;
}

bool write_png_file(const PagedDrawing& d, const std::string& path, std::string& error, double max_side) {
    // Too tall: tile the body into columns placed side by side, each with the
    // header; if even that is too wide, scale the whole image down.
    const double gap = 24;
    double body = std::max(1.0, d.height - d.header);
    double max_body = max_side / std::max(1.0, d.scale) - d.header;
    size_t ncols = size_t(std::ceil(body / max_body));
    std::vector<PageRange> cols;
    if (ncols <= 1) {
        cols.push_back({d.header, d.height});
    } else {
        // Balance the columns; cuts may shorten a column a little, so allow slack.
        cols = paginate(d, std::min(max_body, body / double(ncols) + 400));
    }
    double col_h = 0;
    for (const auto& c : cols) col_h = std::max(col_h, d.header + (c.y1 - c.y0));
    double full_w = double(cols.size()) * d.width + double(cols.size() - 1) * gap;
    double scale = std::min({d.scale, max_side / full_w, max_side / col_h});
    auto img_w = uint32_t(std::max(1.0, std::ceil(full_w * scale)));
    auto img_h = uint32_t(std::max(1.0, std::ceil(col_h * scale)));

    PngStream png;
    if (!png.open(path, img_w, img_h, error)) return false;
    const uint32_t strip = 1024;
    cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, int(img_w), int(std::min(strip, img_h)));
    if (!check(s, path, error)) { cairo_surface_destroy(s); return false; }
    for (uint32_t r0 = 0; r0 < img_h; r0 += strip) {
        uint32_t rows = std::min(strip, img_h - r0);
        cairo_t* cr = cairo_create(s);
        paint_white(cr);
        cairo_translate(cr, 0, -double(r0));
        cairo_scale(cr, scale, scale);
        double vis_top = double(r0) / scale - 2, vis_bottom = double(r0 + rows) / scale + 2;
        g_drawn_offset_y = double(r0);
        for (size_t c = 0; c < cols.size(); ++c) {
            double h = d.header + (cols[c].y1 - cols[c].y0);
            if (vis_top > h) continue;
            cairo_save(cr);
            cairo_translate(cr, double(c) * (d.width + gap), 0);
            cairo_rectangle(cr, 0, 0, d.width, h);
            cairo_clip(cr);
            draw_page(cr, d, cols[c], int(c), int(cols.size()), vis_top, vis_bottom);
            cairo_restore(cr);
            if (c + 1 < cols.size()) {   // a thin divider between columns
                cairo_save(cr);
                cairo_set_source_rgb(cr, style::kGrid.r, style::kGrid.g, style::kGrid.b);
                cairo_rectangle(cr, double(c + 1) * (d.width + gap) - gap / 2 - 1, 0, 2, col_h);
                cairo_fill(cr);
                cairo_restore(cr);
            }
        }
        cairo_destroy(cr);
        cairo_surface_flush(s);
        if (!png.write_rows(cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s), int(rows), error)) {
            cairo_surface_destroy(s);
            return false;
        }
    }
    cairo_surface_destroy(s);
    g_drawn_offset_y = 0;
    return png.finish(error);
}

void record_drawn_text(std::vector<DrawnText>* sink) { g_drawn = sink; }

namespace {
// Records the box of s drawn at (x0, y), in output units, as far as the page shows it.
void record_text(cairo_t* cr, const std::string& s, double x0, double y) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, clean_text(s).c_str(), &e);
    const double bx[2] = {x0 + e.x_bearing, x0 + e.x_bearing + e.width};
    // Only what the page shows (a label cut off by the page's edge is drawn on the next).
    const double by[2] = {std::max(y + e.y_bearing, g_clip_y0), std::min(y + e.y_bearing + e.height, g_clip_y1)};
    if (by[1] <= by[0]) return;
    DrawnText t{s, g_drawn_page, 1e300, 1e300, -1e300, -1e300};
    for (double px : bx)
        for (double py : by) {
            double dx = px, dy = py;
            cairo_user_to_device(cr, &dx, &dy);
            dy += g_drawn_offset_y;
            t.x0 = std::min(t.x0, dx), t.x1 = std::max(t.x1, dx);
            t.y0 = std::min(t.y0, dy), t.y1 = std::max(t.y1, dy);
        }
    g_drawn->push_back(std::move(t));
}
} // namespace

void set_font(cairo_t* cr, double size, bool bold, bool mono, bool italic) {
    cairo_select_font_face(cr, mono ? style::kMonoFont : style::kFont,
                           italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& s) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, clean_text(s).c_str(), &e);
    return e.x_advance;
}

double draw_text(cairo_t* cr, const std::string& s, double x, double y, Align a) {
    double w = text_width(cr, s);
    double x0 = a == Align::Left ? x : a == Align::Centre ? x - w / 2 : x - w;
    if (g_drawn && !s.empty()) record_text(cr, s, x0, y);
    if (svg_text_active()) {   // an SVG export: a <text> element, not glyph outlines
        svg_text_add(cr, clean_text(s), x0, y);
        return w;
    }
    cairo_move_to(cr, x0, y);
    cairo_show_text(cr, clean_text(s).c_str());
    cairo_new_path(cr);
    return w;
}

std::string elide(cairo_t* cr, const std::string& s, double max_w) {
    if (text_width(cr, s) <= max_w) return s;
    std::string t = clean_text(s);
    // Hostile input can be megabytes long: start from a bounded prefix.
    if (t.size() > 400) {
        t.resize(400);
        while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
        if (!t.empty() && static_cast<unsigned char>(t.back()) >= 0xC0) t.pop_back();
    }
    while (!t.empty()) {
        t.pop_back();
        // Do not cut a UTF-8 sequence in half.
        while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
        if (!t.empty() && static_cast<unsigned char>(t.back()) >= 0xC0) t.pop_back();
        if (text_width(cr, t + "\u2026") <= max_w) return t + "\u2026";
    }
    return "";
}

} // namespace stallscope::detail
