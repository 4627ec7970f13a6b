#include "app/gui/event_trace_view.h"

#include "app/gui/event_trace_painter.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>

namespace stallscope::gui {

EventTraceCanvas::EventTraceCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    updateSize();
}

void EventTraceCanvas::setTrace(EventTraceLayout layout) {
    layout_ = std::move(layout);
    updateSize();
    update();
}

void EventTraceCanvas::setHighlightedFrame(uint64_t frame) {
    if (frame == highlighted_) return;
    highlighted_ = frame;
    update();
}

void EventTraceCanvas::setZoom(double z) {
    zoom_ = std::clamp(z, 0.25, 4.0);
    updateSize();
    update();
}

void EventTraceCanvas::updateSize() {
    const QSize s(int(std::ceil(std::max(200.0, layout_.width) * zoom_)),
                  int(std::ceil(std::max(100.0, layout_.height) * zoom_)));
    setFixedSize(s);
}

QSize EventTraceCanvas::sizeHint() const { return size(); }

std::optional<QRectF> EventTraceCanvas::arrowRect(uint64_t frame) const {
    for (const TraceArrow& a : layout_.arrows) {
        if (a.frame != frame) continue;
        const QRectF r = QRectF(arrowStart(layout_, a), arrowEnd(layout_, a)).normalized();
        return QRectF(r.x() * zoom_, r.y() * zoom_, std::max(1.0, r.width() * zoom_), std::max(1.0, r.height() * zoom_));
    }
    return std::nullopt;
}

void EventTraceCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    if (layout_.arrows.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   layout_.title.empty() ? tr("Select a call to see its event trace.")
                                         : QString::fromStdString(layout_.title));
        return;
    }
    p.scale(zoom_, zoom_);
    paintEventTrace(p, layout_, {dark, highlighted_});
}

void EventTraceCanvas::mousePressEvent(QMouseEvent* e) {
    const QPointF pt = e->position() / zoom_;
    if (auto i = arrowAt(layout_, pt, 6.0)) emit arrowClicked(layout_.arrows[*i].frame);
    QWidget::mousePressEvent(e);
}

bool EventTraceCanvas::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QPointF pt = QPointF(he->pos()) / zoom_;
        if (auto i = arrowAt(layout_, pt, 6.0)) {
            const TraceArrow& a = layout_.arrows[*i];
            QToolTip::showText(he->globalPos(), QStringLiteral("%1\n%2 → %3  %4%5")
                .arg(QString::fromStdString(a.label),
                     a.from == Side::Client ? tr("client") : tr("server"),
                     a.from == Side::Client ? tr("server") : tr("client"),
                     QString::fromStdString(a.time_label),
                     a.evidence ? tr("\nevidence of a finding") : QString()), this);
        } else {
            for (const TraceStall& s : layout_.stalls)
                if (pt.y() >= s.y_start && pt.y() <= s.y_end) {
                    QToolTip::showText(he->globalPos(), QString::fromStdString(s.label), this);
                    return true;
                }
            QToolTip::hideText();
            e->ignore();
        }
        return true;
    }
    return QWidget::event(e);
}

EventTraceView::EventTraceView(QWidget* parent) : QScrollArea(parent), canvas_(new EventTraceCanvas) {
    setWidget(canvas_);
    setWidgetResizable(false);
    setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    setBackgroundRole(QPalette::Base);
}

void EventTraceView::setFitWidth(bool on) {
    fit_width_ = on;
    if (on) fitWidth();
}

void EventTraceView::fitWidth() {
    const double w = canvas_->trace().width;
    if (w > 0) canvas_->setZoom(std::min(1.0, std::max(0.2, (viewport()->width() - 2) / w)));
}

void EventTraceView::resizeEvent(QResizeEvent* e) {
    QScrollArea::resizeEvent(e);
    if (fit_width_) fitWidth();
}

bool EventTraceView::highlightFrame(uint64_t frame) {
    canvas_->setHighlightedFrame(frame);
    auto r = canvas_->arrowRect(frame);
    if (!r) return false;
    const QPointF c = r->center();
    ensureVisible(int(c.x()), int(c.y()), int(r->width() / 2) + 20, std::max(60, int(r->height() / 2) + 40));
    return true;
}

void EventTraceView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ControlModifier) {
        const double factor = e->angleDelta().y() > 0 ? 1.15 : 1 / 1.15;
        canvas_->setZoom(canvas_->zoom() * factor);
        e->accept();
        return;
    }
    QScrollArea::wheelEvent(e);
}

EventTracePanel::EventTracePanel(SelectionHub* hub, const GuiBackend* backend, QWidget* parent)
    : QWidget(parent), hub_(hub), backend_(backend), header_(new QLabel), whole_connection_(new QCheckBox(tr("Whole connection"))),
      view_(new EventTraceView) {
    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 4, 6, 0);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(header_, 1);
    top->addWidget(whole_connection_);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(2);
    lay->addLayout(top);
    lay->addWidget(view_, 1);
    whole_connection_->setToolTip(tr("Show every segment of the selected call's connection"));

    connect(whole_connection_, &QCheckBox::toggled, this, &EventTracePanel::rebuild);
    connect(hub_, &SelectionHub::callSelected, this, &EventTracePanel::rebuild);
    connect(hub_, &SelectionHub::connectionSelected, this, &EventTracePanel::rebuild);
    connect(hub_, &SelectionHub::frameHighlighted, this, &EventTracePanel::onFrameHighlighted);
    connect(view_->canvas(), &EventTraceCanvas::arrowClicked, hub_, &SelectionHub::highlightFrame);
    rebuild();
}

bool EventTracePanel::showsConnection() const { return whole_connection_->isChecked(); }
void EventTracePanel::setShowConnection(bool on) { whole_connection_->setChecked(on); }

void EventTracePanel::rebuild() {
    const ResultPtr& r = hub_->result();
    const uint64_t call = hub_->selectedCall(), conn = hub_->selectedConnection();
    EventTraceLayout layout;
    std::string error;
    bool ok = false;
    if (!r || (!call && !conn)) {
        header_->setText(tr("No call selected"));
    } else if (!backend_ || !backend_->call_trace || !backend_->connection_trace) {
        layout.title = tr("This build has no event-trace layout.").toStdString();
        header_->clear();
    } else {
        const bool whole = showsConnection() || !call;
        // Only the connection is read (a spilled result has the rest on disk).
        const AnalysisResult slice = r->slice(conn, whole ? 0 : call);
        ok = whole ? backend_->connection_trace(slice, conn, layout, error) : backend_->call_trace(slice, call, layout, error);
        if (ok) {
            header_->setText(whole ? tr("Connection %1 — %2 segments").arg(conn).arg(layout.arrows.size())
                                   : tr("Call %1 — %2 segments").arg(call).arg(layout.arrows.size()));
        } else {
            header_->setText(whole ? tr("Connection %1").arg(conn) : tr("Call %1").arg(call));
            layout = {};
            layout.title = error;
        }
    }
    view_->canvas()->setTrace(std::move(layout));
    if (hub_->highlightedFrame()) view_->highlightFrame(hub_->highlightedFrame());
}

void EventTracePanel::onFrameHighlighted(quint64 frame) {
    if (frame && !view_->canvas()->arrowRect(frame) && !showsConnection() && hub_->selectedConnection() && backend_ &&
        backend_->connection_trace && hub_->result()) {
        // The frame is outside the call's window: show the whole connection if it has it.
        EventTraceLayout whole;
        std::string error;
        if (backend_->connection_trace(hub_->result()->slice(hub_->selectedConnection()), hub_->selectedConnection(), whole,
                                       error))
            for (const TraceArrow& a : whole.arrows)
                if (a.frame == frame) { setShowConnection(true); break; }
    }
    view_->highlightFrame(frame);
}

} // namespace stallscope::gui
