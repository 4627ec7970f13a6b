#include "app/gui/event_trace_view.h"

#include "app/gui/display_text.h"
#include "app/gui/event_trace_painter.h"
#include "app/gui/selection_hub.h"
#include "app/gui/theme.h"
#include "app/gui/zoom_gestures.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>

namespace stallscope::gui {

EventTraceCanvas::EventTraceCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    updateSize();
}

void EventTraceCanvas::setTrace(EventTraceLayout layout, std::vector<CallMark> marks) {
    layout_ = std::move(layout);
    marks_ = std::move(marks);
    updateSize();
    update();
}

void EventTraceCanvas::setHighlightedFrame(uint64_t frame) {
    if (frame == highlighted_) return;
    highlighted_ = frame;
    update();
}

void EventTraceCanvas::setZoom(double z) {
    zoom_ = std::clamp(z, 0.1, 4.0);
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
    if (marks_.empty()) return;
    // Unscaled, so the call's name stays readable at any zoom.
    p.resetTransform();
    QColor line = palette().color(QPalette::Text);
    line.setAlpha(110);
    QFont f = font();
    f.setBold(true);
    p.setFont(f);
    const QFontMetricsF fm(f);
    for (const CallMark& m : marks_) {
        const double y = m.y * zoom_;
        p.setPen(QPen(line, 1, Qt::DashLine));
        p.drawLine(QPointF(4, y), QPointF(layout_.width * zoom_ - 4, y));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(6, y - fm.descent() - 1), m.label);
    }
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
    setFocusPolicy(Qt::StrongFocus);
    setWidget(canvas_);
    setWidgetResizable(false);
    setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    setBackgroundRole(QPalette::Base);
}

void EventTraceView::setFitWidth(bool on) {
    fit_width_ = on;
    if (on) {
        fit_window_ = false;
        fitWidth();
    }
}

void EventTraceView::setFitWindow(bool on) {
    fit_window_ = on;
    if (on) fit_width_ = false;
    refit();
    emit zoomChanged(canvas_->zoom(), fit_window_);
}

void EventTraceView::refit() {
    const EventTraceLayout& l = canvas_->trace();
    if (fit_width_) fitWidth();
    if (!fit_window_ || l.width <= 0 || l.height <= 0) return;
    const double w = (viewport()->width() - 2) / l.width, h = (viewport()->height() - 2) / l.height;
    canvas_->setZoom(std::clamp(std::min(w, h), kFitMinZoom, 1.0));
}

void EventTraceView::zoomAround(double z, QPointF anchor) {
    const double old = canvas_->zoom();
    const QPointF content(horizontalScrollBar()->value() + anchor.x(), verticalScrollBar()->value() + anchor.y());
    fit_window_ = fit_width_ = false;
    canvas_->setZoom(z);
    const double k = canvas_->zoom() / old;
    horizontalScrollBar()->setValue(int(content.x() * k - anchor.x()));
    verticalScrollBar()->setValue(int(content.y() * k - anchor.y()));
    emit zoomChanged(canvas_->zoom(), false);
}

void EventTraceView::zoomTo(double z) { zoomAround(z, QPointF(viewport()->width() / 2.0, 0)); }
void EventTraceView::zoomIn() { zoomTo(canvas_->zoom() * zoom_gestures::kKeyStep); }
void EventTraceView::zoomOut() { zoomTo(canvas_->zoom() / zoom_gestures::kKeyStep); }

void EventTraceView::keyPressEvent(QKeyEvent* e) {
    switch (zoom_gestures::keyOf(e)) {
    case zoom_gestures::Key::ZoomIn: zoomIn(); return;
    case zoom_gestures::Key::ZoomOut: zoomOut(); return;
    case zoom_gestures::Key::Fit: setFitWindow(true); return;
    default: QScrollArea::keyPressEvent(e);   // arrows scroll
    }
}

void EventTraceView::fitWidth() {
    const double w = canvas_->trace().width;
    if (w > 0) canvas_->setZoom(std::min(1.0, std::max(0.2, (viewport()->width() - 2) / w)));
}

void EventTraceView::resizeEvent(QResizeEvent* e) {
    QScrollArea::resizeEvent(e);
    refit();
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
        if (e->angleDelta().y() != 0) zoomAround(canvas_->zoom() * zoom_gestures::wheelFactor(e), e->position());
        e->accept();
        return;
    }
    QScrollArea::wheelEvent(e);
}

// In a whole connection, a mark above each call's first request segment,
// halfway to the segment before it.
static std::vector<CallMark> callMarks(const AnalysisResult& slice, const EventTraceLayout& layout) {
    std::vector<CallMark> marks;
    if (slice.calls.size() < 2) return marks;   // one call: nothing to tell apart
    for (const Call& c : slice.calls) {
        for (size_t i = 0; i < layout.arrows.size(); ++i) {
            if (layout.arrows[i].frame != c.request_first_frame) continue;
            const double y = layout.arrows[i].y_from;
            const double above = i > 0 ? std::min(layout.arrows[i - 1].y_from, layout.arrows[i - 1].y_to) : layout.lanes_top;
            marks.push_back({std::max(layout.lanes_top, (above + y) / 2), QObject::tr("Call %1 \u00b7 %2").arg(c.id).arg(callOperation(c))});
            break;
        }
    }
    std::sort(marks.begin(), marks.end(), [](const CallMark& a, const CallMark& b) { return a.y < b.y; });
    return marks;
}

EventTracePanel::EventTracePanel(SelectionHub* hub, const GuiBackend* backend, QWidget* parent)
    : QWidget(parent), hub_(hub), backend_(backend), header_(new QLabel), zoom_label_(new QLabel),
      whole_connection_(new QCheckBox(tr("Whole connection"))), view_(new EventTraceView) {
    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 4, 6, 0);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(header_, 1);
    // Zoom: the same keys and steps as the timeline (zoom_gestures.h).
    auto tool = [this, top](const QString& text, const QString& name, const QString& tip, auto slot) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setObjectName(name);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, view_, slot);
        top->addWidget(b);
        return b;
    };
    tool(QStringLiteral("\u2212"), QStringLiteral("traceZoomOut"), tr("Zoom out (-, Ctrl+wheel)"), &EventTraceView::zoomOut);
    zoom_label_->setObjectName(QStringLiteral("traceZoomLabel"));
    zoom_label_->setMinimumWidth(zoom_label_->fontMetrics().horizontalAdvance(QStringLiteral("100 % (fit)")));
    zoom_label_->setAlignment(Qt::AlignCenter);
    top->addWidget(zoom_label_);
    tool(QStringLiteral("+"), QStringLiteral("traceZoomIn"), tr("Zoom in (+, Ctrl+wheel)"), &EventTraceView::zoomIn);
    tool(tr("Fit"), QStringLiteral("traceFit"), tr("Fit to window (0): as much as fits at 75–100 %"),
         [this] { view_->setFitWindow(true); });
    tool(QStringLiteral("1:1"), QStringLiteral("traceActualSize"), tr("Actual size (100 %)"), [this] { view_->zoomTo(1.0); });
    top->addSpacing(8);
    top->addWidget(whole_connection_);
    auto show_zoom = [this](double z, bool fit) {
        zoom_label_->setText(fit ? tr("%1 % (fit)").arg(qRound(z * 100)) : tr("%1 %").arg(qRound(z * 100)));
    };
    connect(view_, &EventTraceView::zoomChanged, this, show_zoom);
    show_zoom(view_->canvas()->zoom(), view_->fitsWindow());
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
    std::vector<CallMark> marks;
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
        if (ok && whole) marks = callMarks(slice, layout);
        if (ok) {
            header_->setText(whole ? tr("Connection %1 — %2 segments").arg(conn).arg(layout.arrows.size())
                                   : tr("Call %1 — %2 segments").arg(call).arg(layout.arrows.size()));
        } else {
            header_->setText(whole ? tr("Connection %1").arg(conn) : tr("Call %1").arg(call));
            layout = {};
            layout.title = error;
        }
    }
    view_->canvas()->setTrace(std::move(layout), std::move(marks));
    view_->refit();
    emit view_->zoomChanged(view_->canvas()->zoom(), view_->fitsWindow());
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
