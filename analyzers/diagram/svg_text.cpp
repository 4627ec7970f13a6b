#include "analyzers/diagram/svg_text.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::detail {

namespace {

thread_local SvgTextCollector* g_collector = nullptr;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

void append_escaped(std::string& out, const std::string& s) {
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        default: out += c;
        }
    }
}

// The font of cr as CSS: family, weight, style (the exporters use cairo's toy fonts).
std::string font_css(cairo_t* cr) {
    cairo_font_face_t* face = cairo_get_font_face(cr);
    std::string css;
    if (cairo_font_face_get_type(face) == CAIRO_FONT_TYPE_TOY) {
        const std::string family = cairo_toy_font_face_get_family(face);
        const bool mono = family.find("Mono") != std::string::npos;
        css = "font-family:'" + family + "'," + (mono ? "monospace" : "sans-serif");
        if (cairo_toy_font_face_get_weight(face) == CAIRO_FONT_WEIGHT_BOLD) css += ";font-weight:bold";
        if (cairo_toy_font_face_get_slant(face) != CAIRO_FONT_SLANT_NORMAL) css += ";font-style:italic";
    } else {
        css = "font-family:sans-serif";
    }
    return css;
}

std::string fill_css(cairo_t* cr) {
    double r = 0, g = 0, b = 0, a = 1;
    cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);   // not a solid colour: black
    std::string css = ";fill:rgb(" + num(r * 100) + "%," + num(g * 100) + "%," + num(b * 100) + "%)";
    if (a < 1) css += ";fill-opacity:" + num(a);
    return css;
}

} // namespace

SvgTextCollector::SvgTextCollector() : outer_(g_collector) { g_collector = this; }
SvgTextCollector::~SvgTextCollector() { g_collector = outer_; }

void SvgTextCollector::insert_into(std::string& svg) const {
    if (elements_.empty()) return;
    const auto end = svg.rfind("</svg>");
    if (end == std::string::npos) return;
    svg.insert(end, "<g id=\"texts\" xml:space=\"preserve\">\n" + elements_ + "</g>\n");
}

bool svg_text_active() { return g_collector != nullptr; }

void svg_text_add(cairo_t* cr, const std::string& text, double x, double y) {
    if (!g_collector || text.empty()) return;
    // What the clip hides is not drawn (a label of another page, a cut-off strip).
    cairo_text_extents_t e;
    cairo_text_extents(cr, text.c_str(), &e);
    double cx0, cy0, cx1, cy1;
    cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1);
    const double tx0 = x + e.x_bearing, ty0 = y + e.y_bearing;
    if (tx0 + e.width < cx0 || tx0 > cx1 || ty0 + e.height < cy0 || ty0 > cy1) return;

    cairo_matrix_t m, fm;
    cairo_get_matrix(cr, &m);
    cairo_get_font_matrix(cr, &fm);
    std::string el = "<text ";
    if (m.xy == 0 && m.yx == 0 && m.xx == m.yy && m.xx > 0) {
        // Translation and a uniform scale (every export today): plain device coordinates.
        double dx = x, dy = y;
        cairo_user_to_device(cr, &dx, &dy);
        el += "x=\"" + num(dx) + "\" y=\"" + num(dy) + "\" style=\"" + font_css(cr) +
              ";font-size:" + num(fm.yy * m.xx) + "px" + fill_css(cr) + "\">";
    } else {
        el += "x=\"" + num(x) + "\" y=\"" + num(y) + "\" transform=\"matrix(" + num(m.xx) + "," + num(m.yx) + "," +
              num(m.xy) + "," + num(m.yy) + "," + num(m.x0) + "," + num(m.y0) + ")\" style=\"" + font_css(cr) +
              ";font-size:" + num(fm.yy) + "px" + fill_css(cr) + "\">";
    }
    append_escaped(el, text);
    el += "</text>\n";
    g_collector->elements_ += el;
}

} // namespace stallscope::detail
