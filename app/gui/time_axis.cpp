#include "app/gui/time_axis.h"

#include <algorithm>
#include <cmath>

namespace stallscope::gui {

void TimeAxis::setDataRange(int64_t start_ns, int64_t end_ns) {
    if (end_ns < start_ns) std::swap(start_ns, end_ns);
    origin_ = start_ns;
    span_ = std::max<double>(1.0, double(end_ns - start_ns));
    fitAll();
}

void TimeAxis::setViewport(double left_px, double width_px) {
    const double keep_start = view_start_, keep_span = viewSpan();
    left_ = left_px;
    width_ = std::max(1.0, width_px);
    ns_per_px_ = keep_span / width_;
    view_start_ = keep_start;
    clamp();
}

void TimeAxis::fitAll() {
    // A little air on both sides so the first and last phases are not glued to the edges.
    const double pad = span_ * 0.02;
    ns_per_px_ = (span_ + 2 * pad) / width_;
    view_start_ = -pad;
    clamp();
}

double TimeAxis::offsetToPixel(double offset_ns) const {
    return left_ + (offset_ns - view_start_) / ns_per_px_;
}

double TimeAxis::toPixel(int64_t ns) const { return offsetToPixel(double(ns - origin_)); }

double TimeAxis::pixelToOffset(double px) const { return view_start_ + (px - left_) * ns_per_px_; }

int64_t TimeAxis::pixelToTime(double px) const {
    return origin_ + int64_t(std::llround(pixelToOffset(px)));
}

void TimeAxis::zoomAt(double anchor_px, double factor) {
    if (!(factor > 0) || !std::isfinite(factor)) return;
    const double anchor_offset = pixelToOffset(anchor_px);
    ns_per_px_ = std::clamp(ns_per_px_ / factor, kMinNsPerPixel, maxNsPerPixel());
    view_start_ = anchor_offset - (anchor_px - left_) * ns_per_px_;
    clamp();
}

void TimeAxis::panBy(double dx_px) {
    view_start_ -= dx_px * ns_per_px_;
    clamp();
}

double TimeAxis::maxNsPerPixel() const { return std::max(kMinNsPerPixel, span_ * 1.5 / width_); }

void TimeAxis::clamp() {
    ns_per_px_ = std::clamp(ns_per_px_, kMinNsPerPixel, maxNsPerPixel());
    // Keep at least half of the view over the data.
    const double half = viewSpan() / 2;
    view_start_ = std::clamp(view_start_, -half, std::max(-half, span_ - half));
}

double TimeAxis::niceStep(double raw_ns) {
    if (!(raw_ns > 0)) return 1;
    const double mag = std::pow(10.0, std::floor(std::log10(raw_ns)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw_ns) return m * mag;
    return 10 * mag;
}

std::vector<AxisTick> TimeAxis::ticks(double min_spacing_px) const {
    std::vector<AxisTick> out;
    const double step = niceStep(std::max(1.0, min_spacing_px) * ns_per_px_);
    const double first = std::ceil(view_start_ / step) * step;
    const double last = view_start_ + viewSpan();
    for (double t = first; t <= last && out.size() < 1000; t += step)
        out.push_back({offsetToPixel(t), t, true});
    return out;
}

} // namespace stallscope::gui
