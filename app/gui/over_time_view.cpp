#include "app/gui/over_time_view.h"

#include "app/gui/zoom_gestures.h"

#include "app/gui/display_text.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>

namespace stallscope::gui {

namespace {
constexpr double kLeft = 70, kRight = 16, kTop = 30, kAxis = 34, kGap = 10;
constexpr double kScatterShare = 0.55;   // of the plot height; three bands share the rest
constexpr double kHitRadius = 6;

QString secondsLabel(double offset_ns, double step_ns) {
    const double s = offset_ns / 1e9;
    const int decimals = step_ns >= 1e9 ? 0 : step_ns >= 1e8 ? 1 : step_ns >= 1e7 ? 2 : step_ns >= 1e6 ? 3 : 6;
    return QString::number(s, 'f', decimals) + QStringLiteral(" s");
}
} // namespace

OverTimeView::OverTimeView(SelectionHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 300);
    connect(hub_, &SelectionHub::resultChanged, this, &OverTimeView::onResult);
    connect(hub_, &SelectionHub::callSelected, this, [this] { update(); });
    onResult(hub_->result());
}

void OverTimeView::onResult(const ResultPtr& r) {
    series_ = r ? OverTimeSeries::build(*r) : OverTimeSeries{};
    // A margin of a twentieth of a decade: a call of exactly 1 or 100 ms is a
    // dot inside the plot, not one cut by its border.
    lo_decade_ = series_.points.empty() ? -1 : int(std::floor(std::log10(series_.min_ms) - 0.05));
    hi_decade_ = series_.points.empty() ? 3 : int(std::ceil(std::log10(series_.max_ms) + 0.05));
    if (hi_decade_ <= lo_decade_) hi_decade_ = lo_decade_ + 1;
    axis_.setDataRange(series_.origin_ns, series_.end_ns);
    updateViewport();
    axis_.fitAll();
    update();
}

void OverTimeView::updateViewport() { axis_.setViewport(kLeft, std::max(10.0, width() - kLeft - kRight)); }
void OverTimeView::resizeEvent(QResizeEvent*) { updateViewport(); }

QRectF OverTimeView::scatterRect() const {
    const double plot_h = std::max(60.0, height() - kTop - kAxis - 3 * kGap);
    return QRectF(kLeft, kTop, axis_.width(), plot_h * kScatterShare);
}

double OverTimeView::yOf(double ms) const {
    const QRectF r = scatterRect();
    const double f = (std::log10(std::max(ms, 1e-9)) - lo_decade_) / double(hi_decade_ - lo_decade_);
    return r.bottom() - std::clamp(f, 0.0, 1.0) * r.height();
}

double OverTimeView::intervalNs() const {
    // About one bar per 8 px, at a 1-2-5 step.
    return TimeAxis::niceStep(std::max(1.0, axis_.viewSpan() / std::max(1.0, axis_.width() / 8)));
}

std::optional<QPointF> OverTimeView::pointOf(uint64_t id) const {
    for (const LatencyPoint& p : series_.points)
        if (p.call_id == id) {
            const double x = axis_.offsetToPixel(p.offset_ns);
            if (x < axis_.left() || x > axis_.left() + axis_.width()) return std::nullopt;
            return QPointF(x, yOf(p.latency_ms));
        }
    return std::nullopt;
}

std::optional<uint64_t> OverTimeView::callAt(QPointF pos) const {
    const auto& pts = series_.points;
    const double t0 = axis_.pixelToOffset(pos.x() - kHitRadius), t1 = axis_.pixelToOffset(pos.x() + kHitRadius);
    auto it = std::lower_bound(pts.begin(), pts.end(), t0, [](const LatencyPoint& p, double t) { return p.offset_ns < t; });
    std::optional<uint64_t> best;
    double best_d = kHitRadius * kHitRadius;
    for (; it != pts.end() && it->offset_ns <= t1; ++it) {
        const double dx = axis_.offsetToPixel(it->offset_ns) - pos.x(), dy = yOf(it->latency_ms) - pos.y();
        if (dx * dx + dy * dy <= best_d) { best_d = dx * dx + dy * dy; best = it->call_id; }
    }
    return best;
}

// The latency dots over the decade grid; stalled calls in the stall colour,
// drawn last so they show; the selected call ringed.
void OverTimeView::paintScatter(QPainter& p, const PaintColours& c) const {
    const QColor &text = c.text, &grid = c.grid, &normal = c.normal, &stalled = c.stalled;
    const QRectF sr = scatterRect();
    const double view0 = axis_.viewStartOffset(), view1 = view0 + axis_.viewSpan();
    // Decade grid and labels.
    for (int d = lo_decade_; d <= hi_decade_; ++d) {
        const double ms = std::pow(10.0, d);
        const double y = yOf(ms);
        p.setPen(grid);
        p.drawLine(QPointF(sr.left(), y), QPointF(sr.right(), y));
        p.setPen(text);
        p.drawText(QRectF(0, y - 9, kLeft - 6, 18), Qt::AlignRight | Qt::AlignVCenter, formatMs(ms));
    }
    // The dots: stalled calls in the stall colour, drawn last so they show.
    p.save();
    p.setClipRect(sr.adjusted(-3, -3, 3, 3));
    const auto& pts = series_.points;
    const double dot = pts.size() < 5000 ? 5 : 3;   // big dots while they do not pile up
    auto first = std::lower_bound(pts.begin(), pts.end(), view0, [](const LatencyPoint& q, double t) { return q.offset_ns < t; });
    for (int pass = 0; pass < 2; ++pass)
        for (auto it = first; it != pts.end() && it->offset_ns <= view1; ++it) {
            if (it->stalled != (pass == 1)) continue;
            p.fillRect(QRectF(axis_.offsetToPixel(it->offset_ns) - dot / 2, yOf(it->latency_ms) - dot / 2, dot, dot), pass ? stalled : normal);
        }
    if (auto sel = pointOf(hub_->selectedCall())) {
        p.setPen(QPen(text, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(*sel, 6, 6);
    }
    p.restore();

}

// The bands under the dots: stalls, time lost and calls per second per
// interval. Returns where the time axis goes.
double OverTimeView::paintBands(QPainter& p, const PaintColours& c) const {
    const QColor &text = c.text, &muted = c.muted, &grid = c.grid, &normal = c.normal, &stalled = c.stalled;
    const bool dark = c.dark;
    const QRectF sr = scatterRect();
    const double view0 = axis_.viewStartOffset(), view1 = view0 + axis_.viewSpan();
    const double interval = intervalNs();
    const auto buckets = series_.buckets(std::floor(view0 / interval) * interval, view1, interval);
    const double band_h = (height() - kTop - kAxis - 3 * kGap - sr.height()) / 3;
    struct Band { QString title; std::function<double(const IntervalBucket&)> value; QColor colour; QString unit; };
    const double per_s = 1e9 / interval;
    const Band bands[] = {
        {tr("Stalls per %1").arg(formatMs(interval / 1e6)), [](const IntervalBucket& b) { return double(b.stalls); }, stalled, QString()},
        {tr("Time lost per %1").arg(formatMs(interval / 1e6)), [](const IntervalBucket& b) { return b.lost_ms; }, stalled.darker(dark ? 80 : 130), QStringLiteral("ms")},
        {tr("Calls per second"), [per_s](const IntervalBucket& b) { return b.calls * per_s; }, normal, QString()},
    };
    double y0 = sr.bottom() + kGap;
    for (const Band& band : bands) {
        // The band's title in a strip of its own above the bars, which rise to a round top (1-2-5).
        constexpr double kTitle = 16;
        const QRectF br(sr.left(), y0 + kTitle, sr.width(), std::max(8.0, band_h - kTitle));
        double peak = 0;
        for (const auto& b : buckets) peak = std::max(peak, band.value(b));
        if (peak > 0) peak = TimeAxis::niceStep(peak);
        p.setPen(grid);
        p.drawLine(br.bottomLeft(), br.bottomRight());
        p.save();
        p.setClipRect(br);
        for (const auto& b : buckets) {
            const double v = band.value(b);
            if (v <= 0 || peak <= 0) continue;
            const double x0 = axis_.offsetToPixel(b.start_ns), x1 = axis_.offsetToPixel(b.start_ns + interval);
            const double h = v / peak * br.height();
            p.fillRect(QRectF(x0, br.bottom() - h, std::max(1.0, x1 - x0 - 1), h), band.colour);
        }
        p.restore();
        p.setPen(text);
        const QString peak_text = band.unit == QLatin1String("ms") ? formatMs(peak) : QString::number(peak, 'g', 4);
        p.drawText(QRectF(0, br.top() - 6, kLeft - 6, 16), Qt::AlignRight, peak_text);
        p.drawText(QRectF(0, br.bottom() - 12, kLeft - 6, 16), Qt::AlignRight, QStringLiteral("0"));
        p.setPen(grid);
        p.drawLine(br.topLeft(), br.topRight());   // the round top the bars are scaled to
        p.setPen(muted);
        p.drawText(QPointF(br.left() + 4, br.top() - 4), band.title);
        y0 += band_h + kGap;
    }
    return y0 - kGap + 2;
}

// The time axis: ticks through every band, labels and its title.
void OverTimeView::paintTimeAxis(QPainter& p, const PaintColours& c, double axis_y) const {
    const QColor &text = c.text, &muted = c.muted, &grid = c.grid;
    const QRectF sr = scatterRect();
    const auto ticks = axis_.ticks(90);
    const double step = ticks.size() > 1 ? ticks[1].offset_ns - ticks[0].offset_ns : axis_.viewSpan();
    for (const AxisTick& t : ticks) {
        p.setPen(grid);
        p.drawLine(QPointF(t.x, kTop), QPointF(t.x, axis_y));
        p.setPen(text);
        p.drawText(QRectF(t.x - 50, axis_y + 2, 100, 16), Qt::AlignHCenter, secondsLabel(t.offset_ns, step));
    }
    p.setPen(muted);
    p.drawText(QRectF(kLeft, axis_y + 16, sr.width(), 16), Qt::AlignHCenter, tr("time since the capture began"));
}

void OverTimeView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    const bool dark = isDarkPalette();
    const QColor text = pal.color(QPalette::Text), muted = pal.color(QPalette::PlaceholderText);
    QColor grid = text;
    grid.setAlpha(dark ? 45 : 35);
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (series_.points.empty()) {
        p.setPen(muted);
        p.drawText(rect(), Qt::AlignCenter, hub_->result() ? tr("No complete calls to plot.") : tr("Open a capture to see its calls over time."));
        return;
    }
    p.setPen(text);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QPointF(kLeft, 18), tr("Latency of every call over capture time (log scale): %1").arg(countNoun(series_.points.size(), tr("call"), tr("calls"))));
    p.setFont(font());
    p.setPen(muted);
    p.drawText(QRectF(0, 4, width() - kRight, 18), Qt::AlignRight,
               tr("wheel zooms · drag pans · click selects · double-click opens the call (elsewhere: fits)"));

    PaintColours c{text, muted, grid, phaseColor(PhaseKind::RequestHeaders, dark), stallColor(dark), dark};
    paintScatter(p, c);
    paintTimeAxis(p, c, paintBands(p, c));
}

void OverTimeView::zoomIn() { axis_.zoomAt(axis_.left() + axis_.width() / 2, zoom_gestures::kKeyStep); update(); }
void OverTimeView::zoomOut() { axis_.zoomAt(axis_.left() + axis_.width() / 2, 1 / zoom_gestures::kKeyStep); update(); }

void OverTimeView::keyPressEvent(QKeyEvent* e) {
    switch (zoom_gestures::keyOf(e)) {
    case zoom_gestures::Key::ZoomIn: zoomIn(); return;
    case zoom_gestures::Key::ZoomOut: zoomOut(); return;
    case zoom_gestures::Key::Fit: fitAll(); return;
    case zoom_gestures::Key::PanLeft: axis_.panBy(axis_.width() / 10); update(); return;
    case zoom_gestures::Key::PanRight: axis_.panBy(-axis_.width() / 10); update(); return;
    case zoom_gestures::Key::None: QWidget::keyPressEvent(e);
    }
}
void OverTimeView::fitAll() { axis_.fitAll(); update(); }

void OverTimeView::wheelEvent(QWheelEvent* e) {
    if (e->angleDelta().y() == 0) return;
    axis_.zoomAt(e->position().x(), zoom_gestures::wheelFactor(e));
    update();
    e->accept();
}

void OverTimeView::mousePressEvent(QMouseEvent* e) {
    press_pos_ = last_pos_ = e->position();
    dragging_ = e->button() == Qt::LeftButton;
}

void OverTimeView::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_ && (e->buttons() & Qt::LeftButton)) {
        axis_.panBy(e->position().x() - last_pos_.x());
        last_pos_ = e->position();
        update();
        return;
    }
    const auto id = callAt(e->position());
    auto c = id ? hub_->call(*id) : nullptr;
    if (!c) { QToolTip::hideText(); return; }
    QToolTip::showText(e->globalPosition().toPoint(),
                       tr("Call %1: %2, %3 at %4 s").arg(c->id).arg(callOperation(*c), formatMs(c->latency_ms))
                           .arg(double(c->start_ns - series_.origin_ns) / 1e9, 0, 'f', 3),
                       this);
}

void OverTimeView::mouseReleaseEvent(QMouseEvent* e) {
    dragging_ = false;
    if (!zoom_gestures::isClick(press_pos_, e->position())) return;
    if (const auto id = callAt(e->position())) hub_->selectCall(*id);
}

void OverTimeView::mouseDoubleClickEvent(QMouseEvent* e) {
    if (const auto id = callAt(e->position())) {
        hub_->selectCall(*id);
        emit callActivated(*id);
    } else {
        fitAll();
    }
}

} // namespace stallscope::gui
