#include "app/gui/timeline_widget.h"

#include "app/gui/zoom_gestures.h"

#include "app/gui/display_text.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace stallscope::gui {

TimelineWidget::TimelineWidget(SelectionHub* hub, QWidget* parent) : QAbstractScrollArea(parent), hub_(hub) {
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    verticalScrollBar()->setSingleStep(kRowHeight);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
    connect(hub_, &SelectionHub::resultChanged, this, &TimelineWidget::onResult);
    connect(hub_, &SelectionHub::callSelected, this, &TimelineWidget::onCallSelected);
    connect(hub_, &SelectionHub::findingSelected, viewport(), qOverload<>(&QWidget::update));
    setMinimumHeight(120);
}

void TimelineWidget::onResult(const ResultPtr& r) {
    result_ = r;
    only_.clear();
    all_ = true;
    rebuildRows();
}

void TimelineWidget::setVisibleCalls(const std::unordered_set<uint64_t>& ids, bool all) {
    only_ = ids;
    all_ = all;
    rebuildRows();
}

void TimelineWidget::setMinimumSpan(double span_ns) {
    min_span_ns_ = std::max(0.0, span_ns);
    rebuildRows();
}

void TimelineWidget::rebuildRows() {
    rows_ = result_ ? TimelineRows::build(*result_, only_, all_) : TimelineRows{};
    axis_.setViewport(kLabelWidth, std::max(1, viewport()->width() - kLabelWidth - 8));
    axis_.setDataRange(rows_.start_ns, std::max(rows_.end_ns, rows_.start_ns + int64_t(min_span_ns_)));
    updateScrollBars();
    viewport()->update();
}

void TimelineWidget::updateScrollBars() {
    const int content = int(rows_.rows.size()) * kRowHeight;
    const int page = std::max(0, viewport()->height() - kHeaderHeight - kLegendHeight);
    verticalScrollBar()->setPageStep(page);
    verticalScrollBar()->setRange(0, std::max(0, content - page));
}

void TimelineWidget::resizeEvent(QResizeEvent* e) {
    QAbstractScrollArea::resizeEvent(e);
    axis_.setViewport(kLabelWidth, std::max(1, viewport()->width() - kLabelWidth - 8));
    updateScrollBars();
}

void TimelineWidget::onCallSelected(quint64 id) {
    if (auto row = rows_.rowOfCall(id)) {
        const int y = int(*row) * kRowHeight;
        const int page = std::max(kRowHeight, viewport()->height() - kHeaderHeight - kLegendHeight);
        QScrollBar* sb = verticalScrollBar();
        if (y < sb->value()) sb->setValue(y);
        else if (y + kRowHeight > sb->value() + page) sb->setValue(y + kRowHeight - page);
    }
    viewport()->update();
}

void TimelineWidget::zoomIn() { axis_.zoomAt(axis_.left() + axis_.width() / 2, zoom_gestures::kKeyStep); viewport()->update(); }
void TimelineWidget::zoomOut() { axis_.zoomAt(axis_.left() + axis_.width() / 2, 1 / zoom_gestures::kKeyStep); viewport()->update(); }
void TimelineWidget::fitAll() { axis_.fitAll(); viewport()->update(); }

static QString tickLabel(double offset_ns, double step_ns) {
    if (step_ns >= 1e9) return QString::number(offset_ns / 1e9, 'f', 0) + QStringLiteral(" s");
    if (step_ns >= 1e8) return QString::number(offset_ns / 1e9, 'f', 1) + QStringLiteral(" s");
    if (step_ns >= 1e6) return QString::number(offset_ns / 1e6, 'f', 0) + QStringLiteral(" ms");
    if (step_ns >= 1e5) return QString::number(offset_ns / 1e6, 'f', 1) + QStringLiteral(" ms");
    if (step_ns >= 1e3) return QString::number(offset_ns / 1e3, 'f', 0) + QStringLiteral(" µs");
    return QString::number(offset_ns, 'f', 0) + QStringLiteral(" ns");
}

void TimelineWidget::paintRows(QPainter& p, const TimeAxis& axis, int first, int last, int y0, int width, int height) const {
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    const QColor text = pal.color(QPalette::Text), grid = pal.color(QPalette::Mid);
    p.fillRect(QRect(0, 0, width, height), pal.color(QPalette::Base));
    if (!result_ || rows_.rows.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRect(0, 0, width, height), Qt::AlignCenter,
                   result_ ? tr("No calls to show") : tr("Open a capture (Ctrl+O) or drop one here"));
        return;
    }
    // Grid lines and tick labels.
    const auto ticks = axis.ticks(90);
    const double step = ticks.size() >= 2 ? ticks[1].offset_ns - ticks[0].offset_ns : axis.viewSpan();
    p.setPen(QPen(grid, 1, Qt::DotLine));
    for (const AxisTick& t : ticks) p.drawLine(QPointF(t.x, kHeaderHeight), QPointF(t.x, height));
    const uint64_t sel_call = hub_->selectedCall();
    const int sel_finding = hub_->selectedFinding();
    p.setClipRect(QRect(0, kHeaderHeight, width, height - kHeaderHeight - kLegendHeight));
    for (int i = first; i <= last; ++i) {
        const TimelineRow& row = rows_.rows[size_t(i)];
        const auto call = result_->call(row.call);   // only the rows painted are fetched
        const Call& c = *call;
        const int y = y0 + i * kRowHeight;
        if (row.call_id == sel_call) p.fillRect(QRect(0, y, width, kRowHeight), selectionColor(dark));
        else if (i % 2) p.fillRect(QRect(0, y, width, kRowHeight), pal.color(QPalette::AlternateBase));
        // Label.
        p.setPen(text);
        const QString label = QStringLiteral("#%1  %2").arg(c.id).arg(callOperation(c));
        p.drawText(QRect(6, y, kLabelWidth - 12, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(label, Qt::ElideRight, kLabelWidth - 12));
        p.save();
        p.setClipRect(QRect(kLabelWidth, std::max(y, kHeaderHeight), width - kLabelWidth, kRowHeight));
        // Phases (at least 1 px wide so short ones stay visible).
        const int bar_y = y + 4, bar_h = kRowHeight - 8;
        if (c.phases.empty()) {
            const double x0 = axis.toPixel(c.start_ns), x1 = axis.toPixel(std::max(c.start_ns, c.end_ns));
            p.fillRect(QRectF(x0, bar_y, std::max(1.0, x1 - x0), bar_h), grid);
        }
        for (const Phase& ph : c.phases) {
            const double x0 = axis.toPixel(ph.start_ns), x1 = axis.toPixel(ph.end_ns);
            if (x1 < kLabelWidth || x0 > width) continue;
            p.fillRect(QRectF(x0, bar_y, std::max(1.0, x1 - x0), bar_h), phaseColor(ph.kind, dark));
        }
        // Stalls over the phases: hatched band in the stall colour.
        for (const TimelineStall& s : row.stalls) {
            const double x0 = axis.toPixel(s.start_ns), x1 = axis.toPixel(s.end_ns);
            // Lower half of the row: the phases stay readable above it.
            const QRectF r(x0, y + kRowHeight / 2, std::max(2.0, x1 - x0), kRowHeight / 2 - 2);
            QColor fill = stallColor(dark);
            fill.setAlpha(200);
            p.fillRect(r, fill);
            p.fillRect(r, QBrush(stallColor(dark).darker(130), Qt::BDiagPattern));
            p.setPen(QPen(stallColor(dark), 1));
            p.drawRect(r);
            if (int(s.finding) == sel_finding) {
                p.setPen(QPen(text, 2));
                p.drawRect(r);
            }
        }
        p.restore();
    }
    p.setClipping(false);
    // Axis header on top.
    p.fillRect(QRect(0, 0, width, kHeaderHeight), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(6, 0, kLabelWidth - 12, kHeaderHeight), Qt::AlignLeft | Qt::AlignVCenter,
               countNoun(rows_.rows.size(), tr("call"), tr("calls")));
    for (const AxisTick& t : ticks) {
        if (t.x < kLabelWidth) continue;
        p.drawLine(QPointF(t.x, kHeaderHeight - 6), QPointF(t.x, kHeaderHeight));
        p.drawText(QRectF(t.x + 3, 2, 120, kHeaderHeight - 6), Qt::AlignLeft | Qt::AlignVCenter,
                   tickLabel(t.offset_ns, step));
    }
    p.setPen(grid);
    p.drawLine(0, kHeaderHeight - 1, width, kHeaderHeight - 1);
    p.drawLine(kLabelWidth - 1, kHeaderHeight, kLabelWidth - 1, height);
    paintLegend(p, QRect(0, height - kLegendHeight, width, kLegendHeight));
}

void TimelineWidget::paintLegend(QPainter& p, const QRect& area) const {
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    p.fillRect(area, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(area.topLeft(), area.topRight());
    int x = area.left() + 8;
    const int y = area.top() + (area.height() - 10) / 2;
    auto item = [&](const QColor& c, const QString& text, bool hatch) {
        const QRect sw(x, y, 18, 10);
        p.fillRect(sw, c);
        if (hatch) p.fillRect(sw, QBrush(c.darker(130), Qt::BDiagPattern));
        p.setPen(pal.color(QPalette::WindowText));
        const int w = p.fontMetrics().horizontalAdvance(text);
        p.drawText(QRect(x + 22, area.top(), w + 4, area.height()), Qt::AlignVCenter | Qt::AlignLeft, text);
        x += 22 + w + 16;
    };
    for (PhaseKind k : {PhaseKind::Connect, PhaseKind::RequestHeaders, PhaseKind::ContinueWait, PhaseKind::RequestBody,
                        PhaseKind::ServerTime, PhaseKind::ResponseHeaders, PhaseKind::ResponseBody, PhaseKind::Close})
        item(phaseColor(k, dark), phaseLabel(k), false);
    QColor s = stallColor(dark);
    s.setAlpha(160);
    item(s, tr("stall (finding)"), true);
    p.setPen(pal.color(QPalette::PlaceholderText));
    // The longest hint that fits whole beside the legend; none rather than a clipped one.
    const QRect room(x, area.top(), std::max(0, area.right() - x - 8), area.height());
    for (const QString& hint : {tr("wheel: zoom · drag: pan · Shift+wheel: scroll · 0: fit"), tr("wheel: zoom · 0: fit")})
        if (p.fontMetrics().horizontalAdvance(hint) + 12 <= room.width()) {
            p.drawText(room, Qt::AlignVCenter | Qt::AlignRight, hint);
            break;
        }
}

void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const int scroll = verticalScrollBar()->value();
    const int n = int(rows_.rows.size());
    const int first = std::clamp(scroll / kRowHeight, 0, std::max(0, n - 1));
    const int last = std::min(n - 1, (scroll + viewport()->height()) / kRowHeight + 1);
    paintRows(p, axis_, first, last, kHeaderHeight - scroll, viewport()->width(), viewport()->height());
}

QSize TimelineWidget::exportSize(int width) const {
    return {width, kHeaderHeight + std::max(1, int(rows_.rows.size())) * kRowHeight + 4 + kLegendHeight};
}

void TimelineWidget::renderAll(QPainter& p, int width) const {
    TimeAxis axis = axis_;
    axis.setViewport(kLabelWidth, width - kLabelWidth - 8);
    axis.fitAll();
    const QSize s = exportSize(width);
    paintRows(p, axis, 0, int(rows_.rows.size()) - 1, kHeaderHeight, s.width(), s.height());
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ShiftModifier) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - e->angleDelta().y() / 120 * 3 * kRowHeight);
    } else {
        axis_.zoomAt(e->position().x(), zoom_gestures::wheelFactor(e));
        viewport()->update();
    }
    e->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) {
        dragging_ = true;
        drag_last_ = press_pos_ = e->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
    if (!dragging_) return;
    const QPoint pos = e->position().toPoint();
    axis_.panBy(pos.x() - drag_last_.x());
    const int dy = pos.y() - drag_last_.y();
    if (dy) verticalScrollBar()->setValue(verticalScrollBar()->value() - dy);
    drag_last_ = pos;
    viewport()->update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
    if (!dragging_) return;
    dragging_ = false;
    viewport()->unsetCursor();
    const QPoint pos = e->position().toPoint();
    if (zoom_gestures::isClick(press_pos_, pos)) {
        if (auto row = rowAtY(pos.y() + verticalScrollBar()->value(), kHeaderHeight, kRowHeight, rows_.rows.size())) {
            const TimelineRow& r = rows_.rows[*row];
            if (auto s = stallAt(r, axis_.pixelToTime(pos.x()), int64_t(axis_.nsPerPixel() * 2)); s && pos.x() >= kLabelWidth)
                hub_->selectFinding(int(r.stalls[*s].finding));
            else
                hub_->selectCall(r.call_id);
        }
    }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* e) {
    if (auto row = rowAtY(e->position().y() + verticalScrollBar()->value(), kHeaderHeight, kRowHeight, rows_.rows.size())) {
        hub_->selectCall(rows_.rows[*row].call_id);
        emit callActivated(rows_.rows[*row].call_id);
    } else {
        fitAll();
    }
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
    switch (zoom_gestures::keyOf(e)) {
    case zoom_gestures::Key::ZoomIn: zoomIn(); return;
    case zoom_gestures::Key::ZoomOut: zoomOut(); return;
    case zoom_gestures::Key::Fit: fitAll(); return;
    case zoom_gestures::Key::PanLeft: axis_.panBy(axis_.width() / 10); viewport()->update(); return;
    case zoom_gestures::Key::PanRight: axis_.panBy(-axis_.width() / 10); viewport()->update(); return;
    case zoom_gestures::Key::None: break;
    }
    switch (e->key()) {
    case Qt::Key_Up: case Qt::Key_Down: {
        if (rows_.rows.empty()) return;
        auto cur = rows_.rowOfCall(hub_->selectedCall());
        int row = cur ? int(*cur) + (e->key() == Qt::Key_Down ? 1 : -1) : 0;
        row = std::clamp(row, 0, int(rows_.rows.size()) - 1);
        hub_->selectCall(rows_.rows[size_t(row)].call_id);
        return;
    }
    default: QAbstractScrollArea::keyPressEvent(e);
    }
}

QString TimelineWidget::tooltipAt(QPoint pos) const {
    if (!result_ || pos.x() < kLabelWidth) return {};
    auto row = rowAtY(pos.y() + verticalScrollBar()->value(), kHeaderHeight, kRowHeight, rows_.rows.size());
    if (!row) return {};
    const TimelineRow& r = rows_.rows[*row];
    const auto call = result_->call(r.call);
    const Call& c = *call;
    const int64_t t = axis_.pixelToTime(pos.x());
    QString tip = QStringLiteral("<b>Call %1</b> — %2<br>latency %3").arg(c.id).arg(callOperation(c).toHtmlEscaped(), formatMs(c.latency_ms));
    if (auto s = stallAt(r, t, int64_t(axis_.nsPerPixel() * 2))) {
        const auto found = result_->finding(r.stalls[*s].finding);
        const Finding& f = *found;   // time lost: the ledger's, each millisecond once
        tip += QStringLiteral("<br><span style='color:#d32f2f'><b>%1</b> (%2): %3 lost</span>")
                   .arg(findingKindLabel(f.kind), sideLabel(f.side), formatMs(f.counted_ms));
    }
    if (auto ph = phaseAt(c, t)) {
        const Phase& p = c.phases[*ph];
        tip += QStringLiteral("<br>%1: %2 (frames %3–%4)").arg(phaseLabel(p.kind), formatMs(p.duration_ms()))
                   .arg(p.start_frame).arg(p.end_frame);
    }
    return tip;
}

bool TimelineWidget::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString tip = tooltipAt(he->pos());
        if (tip.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(he->globalPos(), tip, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

} // namespace stallscope::gui
