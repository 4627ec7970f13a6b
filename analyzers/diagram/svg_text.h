#pragma once
// SVG exports with real text: cairo's SVG surface writes every glyph as an
// outline, so a figure could not be searched, copied or edited as text in
// Inkscape or a LaTeX toolchain. While an SvgTextCollector is alive on a
// thread, draw_text() hands its texts here instead of drawing glyphs, and the
// SVG gets them as <text> elements with the font named ("DejaVu Sans", the
// font the layout measured with), in the same place, size and colour.
// The texts go on top of the drawing, as the exporters draw labels last.
// Internal to analyzers/diagram.
#include <cairo.h>

#include <string>

namespace stallscope::detail {

class SvgTextCollector {
public:
    SvgTextCollector();
    ~SvgTextCollector();
    SvgTextCollector(const SvgTextCollector&) = delete;
    SvgTextCollector& operator=(const SvgTextCollector&) = delete;

    // Puts the collected <text> elements into `svg`, before its </svg>.
    void insert_into(std::string& svg) const;

private:
    std::string elements_;
    SvgTextCollector* outer_;
    friend void svg_text_add(cairo_t* cr, const std::string& text, double x, double y);
};

// True while a collector is alive on this thread.
bool svg_text_active();
// `text` (valid UTF-8, see clean_text) with its baseline's left end at
// (x, y) in user units, in cr's current font, source colour, transformation
// and clip.
void svg_text_add(cairo_t* cr, const std::string& text, double x, double y);

} // namespace stallscope::detail
