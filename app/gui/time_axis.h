#pragma once
// Time <-> pixel mapping of the timeline: pure arithmetic, no Qt, so zoom and
// pan can be unit-tested without a display. Absolute times are int64 ns
// (epoch ns do not fit a double exactly), so the axis keeps an int64 origin
// and works in double offsets from it.
#include <cstdint>
#include <vector>

namespace stallscope::gui {

struct AxisTick {
    double x = 0;          // pixel
    double offset_ns = 0;  // time since the data start
    bool major = true;
};

class TimeAxis {
public:
    // The data extent [start, end]; resets the view to show all of it.
    void setDataRange(int64_t start_ns, int64_t end_ns);
    // Drawing area: pixels [left, left + width).
    void setViewport(double left_px, double width_px);
    void fitAll();

    double toPixel(int64_t ns) const;
    double offsetToPixel(double offset_ns) const;   // offset from the data start
    double pixelToOffset(double px) const;
    int64_t pixelToTime(double px) const;

    // factor > 1 zooms in; the time under anchor_px stays under it.
    void zoomAt(double anchor_px, double factor);
    // Positive dx moves the content right (shows earlier times).
    void panBy(double dx_px);

    double nsPerPixel() const { return ns_per_px_; }
    double viewStartOffset() const { return view_start_; }
    double viewSpan() const { return ns_per_px_ * width_; }
    int64_t dataStart() const { return origin_; }
    double dataSpan() const { return span_; }
    double left() const { return left_; }
    double width() const { return width_; }

    // Ticks at 1-2-5 steps, at least min_spacing_px apart, inside the viewport.
    std::vector<AxisTick> ticks(double min_spacing_px) const;
    static double niceStep(double raw_ns);

    static constexpr double kMinNsPerPixel = 0.5;   // deepest zoom: ~1 ns per 2 px

private:
    void clamp();
    double maxNsPerPixel() const;

    int64_t origin_ = 0;
    double span_ = 1;          // data span in ns (>= 1)
    double left_ = 0, width_ = 100;
    double ns_per_px_ = 0.01;
    double view_start_ = 0;    // offset of the left edge from origin_
};

} // namespace stallscope::gui
