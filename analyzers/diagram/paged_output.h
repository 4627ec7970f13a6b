#pragma once
// Format plumbing shared by the diagram exporters: a drawing that can be cut
// into pages (a header repeated on each page, a body cut at safe places)
// goes out as one SVG, a multi-page PDF, or a PNG whose too-tall body is
// tiled into side-by-side columns and rendered in strips (no size cap).
// Internal to analyzers/diagram.
#include <cairo.h>

#include <functional>
#include <string>
#include <vector>

namespace stallscope::detail {

struct PageRange { double y0, y1; };

struct PagedDrawing {
    double width = 0, height = 0;   // the whole drawing, one page
    double header = 0;              // [0, header) is drawn on every page
    double scale = 1;               // output units (SVG px, PDF pt, PNG px) per drawing px
    std::vector<double> cuts;       // body y positions where a page may end (sorted)
    // Draws the header; page is 0-based.
    std::function<void(cairo_t*, int page, int pages)> draw_header;
    // Draws body content in absolute drawing coordinates; elements outside
    // [vis_y0, vis_y1] may be skipped (they are clipped anyway). `page` is
    // the body range of the page (PDF page, PNG column) being drawn: what a
    // label is kept inside. The visible range is smaller when a PNG is
    // rendered in strips; a label placed by it would move with each strip
    // and be drawn twice.
    std::function<void(cairo_t*, double vis_y0, double vis_y1, PageRange page)> draw_body;
};

// Body ranges of at most max_body each, cut at the nearest cut point.
std::vector<PageRange> paginate(const PagedDrawing& d, double max_body);

bool write_svg_file(const PagedDrawing& d, const std::string& path, std::string& error);
bool write_svg_string(const PagedDrawing& d, std::string& out, std::string& error);
bool write_pdf_file(const PagedDrawing& d, const std::string& path, double page_height, std::string& error);
// max_side: the largest width/height (cairo's own limit is 32767).
bool write_png_file(const PagedDrawing& d, const std::string& path, std::string& error,
                    double max_side = 32767);

// Text helpers (cairo toy API with DejaVu).
enum class Align { Left, Centre, Right };
void set_font(cairo_t* cr, double size, bool bold = false, bool mono = false, bool italic = false);
double text_width(cairo_t* cr, const std::string& s);
// Draws s with its baseline at y; returns the drawn width.
double draw_text(cairo_t* cr, const std::string& s, double x, double y, Align a);
// Every text the exporters draw, as a box in output units (SVG px, PDF pt,
// PNG px; PNG y from the image's top), for tests that check no label is
// drawn twice or over another. Off (nullptr) by default; per thread.
struct DrawnText {
    std::string text;
    int page = 0;   // PDF page (PNG columns share one image)
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
void record_drawn_text(std::vector<DrawnText>* sink);

// Shortens s with an ellipsis until it fits max_w.
std::string elide(cairo_t* cr, const std::string& s, double max_w);

} // namespace stallscope::detail
