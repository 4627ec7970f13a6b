#include "app/gui/event_trace_painter.h"

#include "analyzers/diagram/diagram_style.h"
#include "capture/packet_decoder.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

// Mirrors the cairo exporter (analyzers/diagram/diagram_export.cpp) with the
// same colours (diagram_style.h), so the screen matches SVG/PDF/PNG exports.
// Exports are drawn on light paper; on screen the dark theme gets dark paper
// with light ink, and the arrow colours lightened to keep their contrast.

namespace stallscope::gui {

namespace {

QColor qc(style::Rgb c, double alpha = 1) { return QColor::fromRgbF(float(c.r), float(c.g), float(c.b), float(alpha)); }

// The paper and ink of one theme.
struct Ink {
    bool dark = false;
    QColor paper, ink, muted;
    QColor tone(style::Rgb c, double alpha = 1) const {
        QColor q = qc(c, alpha);
        return dark ? q.lighter(165) : q;
    }
};

Ink inkFor(bool dark) {
    if (!dark) return {false, Qt::white, qc(style::kInk), qc(style::kMuted)};
    return {true, QColor(0x1e, 0x1f, 0x22), QColor(0xe4, 0xe6, 0xea), QColor(0xa2, 0xa6, 0xad)};
}

QColor arrowColour(const TraceArrow& a, const Ink& k) {
    if (a.flags & tcpflag::kRst) return k.tone(style::kReset);
    if (a.retransmission) return k.tone(style::kRetransmit);
    if (a.carries & carries::kContinue) return k.tone(style::kContinue);
    if (a.pure_ack) return k.tone(style::kPureAck);
    if (a.len == 0) return k.dark ? k.muted : qc(style::kControl);
    return a.from == Side::Client ? k.tone(style::kClientData) : k.tone(style::kServerData);
}

QFont font(double px, bool bold = false, bool mono = false, bool italic = false) {
    QFont f(QString::fromLatin1(mono ? style::kMonoFont : style::kFont));
    f.setPixelSize(std::max(1, int(std::lround(px))));   // cairo font sizes are in layout pixels
    f.setBold(bold);
    f.setItalic(italic);
    return f;
}

enum class Align { Left, Centre, Right };

// Draws text with its baseline at y, anchored at x like the cairo helper.
double drawText(QPainter& p, const QString& s, double x, double y, Align al) {
    const double w = QFontMetricsF(p.font()).horizontalAdvance(s);
    const double x0 = al == Align::Left ? x : al == Align::Centre ? x - w / 2 : x - w;
    p.drawText(QPointF(x0, y), s);
    return w;
}

QString elide(QPainter& p, const QString& s, double width) {
    return QFontMetricsF(p.font()).elidedText(s, Qt::ElideRight, std::max(10.0, width));
}

void arrowHead(QPainter& p, QPointF from, QPointF to, double size, const QColor& c) {
    const double ang = std::atan2(to.y() - from.y(), to.x() - from.x());
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(to.x() - size * std::cos(ang - 0.38), to.y() - size * std::sin(ang - 0.38));
    head.lineTo(to.x() - size * std::cos(ang + 0.38), to.y() - size * std::sin(ang + 0.38));
    head.closeSubpath();
    p.fillPath(head, c);
}

double lanesTop(const EventTraceLayout& l) { return l.lanes_top > 0 ? l.lanes_top : l.top; }
double lanesBottom(const EventTraceLayout& l) { return l.lanes_bottom > 0 ? l.lanes_bottom : l.height - 8; }

void legendItem(QPainter& p, double& x, double y, const QString& text, int kind, const Ink& k) {
    p.save();
    if (kind <= 3) {
        const style::Rgb c = kind == 0 ? style::kClientData : kind == 1 ? style::kServerData
                           : kind == 2 ? style::kContinue : style::kPureAck;
        QPen pen(k.tone(c), kind == 2 ? 2.2 : 1.6);
        if (kind == 3) pen.setDashPattern({4 / 1.6, 3 / 1.6});
        p.setPen(pen);
        p.drawLine(QPointF(x, y - 4), QPointF(x + 24, y - 2));
        arrowHead(p, {x, y - 4}, {x + 26, y - 2}, 7, k.tone(c));
    } else if (kind == 4) {
        p.fillRect(QRectF(x, y - 10, 26, 12), k.tone(style::kStall, 0.10));
        p.setPen(QPen(k.tone(style::kStall), 2));
        p.drawPolyline(QPolygonF({QPointF(x + 4, y - 10), QPointF(x, y - 10), QPointF(x, y + 2), QPointF(x + 4, y + 2)}));
    } else {
        p.fillRect(QRectF(x, y - 10, 26, 13), qc(style::kEvidence));
    }
    p.restore();
    p.setPen(k.ink);
    x += 32 + drawText(p, text, x + 32, y, Align::Left) + 18;
}

} // namespace

QPointF arrowStart(const EventTraceLayout& l, const TraceArrow& a) {
    const double x = a.x_from != a.x_to ? a.x_from : (a.from == Side::Client ? l.client_x : l.server_x);
    return {x, a.y_from};
}

QPointF arrowEnd(const EventTraceLayout& l, const TraceArrow& a) {
    const double x = a.x_from != a.x_to ? a.x_to : (a.from == Side::Client ? l.server_x : l.client_x);
    return {x, a.y_to};
}

static double distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF d = b - a;
    const double len2 = d.x() * d.x() + d.y() * d.y();
    double t = len2 > 0 ? ((p.x() - a.x()) * d.x() + (p.y() - a.y()) * d.y()) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const QPointF q = a + t * d;
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

std::optional<size_t> arrowAt(const EventTraceLayout& l, QPointF pt, double max_distance) {
    std::optional<size_t> best;
    double best_d = max_distance;
    for (size_t i = 0; i < l.arrows.size(); ++i) {
        const TraceArrow& a = l.arrows[i];
        // The label sits just above the arrow: count it as part of the arrow.
        const QPointF s = arrowStart(l, a), e = arrowEnd(l, a);
        double d = distanceToSegment(pt, s, e);
        d = std::min(d, distanceToSegment(pt, s - QPointF(0, 8), e - QPointF(0, 8)));
        if (d <= best_d) { best_d = d; best = i; }
    }
    return best;
}

namespace {

// Title, legend, the time-axis note and the lane names.
void paintHeader(QPainter& p, const EventTraceLayout& l, const Ink& k, double top) {
    p.setFont(font(15, true));
    p.setPen(k.ink);
    drawText(p, elide(p, QString::fromStdString(l.title.empty() ? "Event trace" : l.title), l.width - 32), 16, 28, Align::Left);
    if (top >= 100) {   // the real layout leaves room for the legend
        p.setFont(font(10.5));
        double x = 16;
        const QString names[] = {QObject::tr("request data"), QObject::tr("response data"), QObject::tr("100 Continue"),
                                 QObject::tr("pure ACK"), QObject::tr("stall"), QObject::tr("evidence frame")};
        const bool marked = std::any_of(l.arrows.begin(), l.arrows.end(), [](const TraceArrow& a) { return a.evidence; });
        for (int i = 0; i < (marked ? 6 : 5); ++i) legendItem(p, x, 56, names[i], i, k);
        p.setPen(k.muted);
        p.setFont(font(10, false, false, true));
        drawText(p, QString::fromStdString(time_axis_note(l)), 16, 76, Align::Left);
    }
    for (int side = 0; side < 2; ++side) {
        const double cx = side == 0 ? l.client_x : l.server_x;
        const QString name = QString::fromStdString(side == 0 ? l.client_name : l.server_name);
        const double zone = l.label_zone > 0 ? l.label_zone : 150;
        const double w = std::min(2 * zone, 2 * std::min(cx, l.width - cx) - 8);
        p.setPen(k.ink);
        p.setFont(font(12.5, true));
        drawText(p, side == 0 ? QObject::tr("Client") : QObject::tr("Server"), cx, top - 16, Align::Centre);
        p.setFont(font(10));
        p.setPen(k.muted);
        if (!name.isEmpty()) drawText(p, elide(p, name, w), cx, top - 3, Align::Centre);
    }

}

// Stall bands between the lanes (under everything else), the lanes, and breaks.
void paintLanes(QPainter& p, const EventTraceLayout& l, const Ink& k, bool dark, double top, double bottom) {
    for (const TraceStall& s : l.stalls)
        p.fillRect(QRectF(l.client_x, s.y_start, l.server_x - l.client_x, s.y_end - s.y_start), k.tone(style::kStall, dark ? 0.16 : 0.07));
    // Lanes.
    p.setPen(QPen(k.ink, 1.6));
    for (double x : {l.client_x, l.server_x}) p.drawLine(QPointF(x, top), QPointF(x, bottom));
    // Breaks: a white gap with zig-zags in each lane, label in the middle.
    for (const TraceBreak& b : l.breaks) {
        const double y_end = b.y_end > b.y ? b.y_end : b.y + 12;
        for (double x : {l.client_x, l.server_x}) {
            p.fillRect(QRectF(x - 6, b.y, 12, y_end - b.y), k.paper);
            p.setPen(QPen(k.muted, 1.2));
            for (double yy : {b.y, y_end})
                p.drawPolyline(QPolygonF({QPointF(x - 8, yy + 2), QPointF(x - 3, yy - 2), QPointF(x + 3, yy + 2), QPointF(x + 8, yy - 2)}));
        }
        p.setFont(font(10.5, false, false, true));
        p.setPen(k.muted);
        drawText(p, QString::fromStdString(b.label), (l.client_x + l.server_x) / 2, (b.y + y_end) / 2 + 4, Align::Centre);
    }

}

// One arrow: dot, shaft, head, its label above the middle (evidence frames on a
// yellow marker, the highlighted one amber) and its time on the left.
void paintArrow(QPainter& p, const EventTraceLayout& l, const TraceArrow& a, const Ink& k, const TracePaintStyle& st,
                double span) {
    const QColor highlight(255, 170, 0, 110);
    const QPointF s = arrowStart(l, a), e = arrowEnd(l, a);
    const QColor c = arrowColour(a, k);
    const double dir = e.x() > s.x() ? 1 : -1;
    const QPointF sa(s.x() + dir, s.y()), eb(e.x() - dir, e.y());
    const bool hl = st.highlighted_frame && a.frame == st.highlighted_frame;
    if (hl) {   // a broad amber underlay that catches the eye when scrolled to
        p.setPen(QPen(highlight, 14, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(sa, eb);
    }
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawEllipse(s, 2.4, 2.4);
    p.setBrush(Qt::NoBrush);
    const double lw = a.evidence ? 2.6 : (a.carries & carries::kContinue) ? 2.2 : 1.5;
    QPen pen(c, lw, Qt::SolidLine, Qt::FlatCap);
    if (a.pure_ack) pen.setDashPattern({5 / lw, 3.5 / lw});
    else if (a.retransmission) pen.setDashPattern({9 / lw, 3 / lw});
    p.setPen(pen);
    p.drawLine(sa, QPointF(eb.x() - dir * 6, e.y() - (e.y() - s.y()) * 6 / span));
    arrowHead(p, sa, eb, 9, c);

    // Label above the middle; evidence frames get a yellow marker.
    p.setFont(font(11, a.evidence || hl || (a.carries & carries::kContinue)));
    const double mx = (s.x() + e.x()) / 2, my = (s.y() + e.y()) / 2 - 5;
    const QString label = elide(p, QString::fromStdString(a.label), span - 24);
    if (a.evidence || hl) {
        const double w = QFontMetricsF(p.font()).horizontalAdvance(label);
        p.fillRect(QRectF(mx - w / 2 - 4, my - 11, w + 8, 14.5), hl ? QColor(255, 170, 0) : qc(style::kEvidence));
    }
    p.setPen(a.evidence || hl ? qc(style::kInk) : a.pure_ack ? k.muted : k.ink);   // dark ink on the yellow marker
    drawText(p, label, mx, my, Align::Centre);
    p.setFont(font(9.5, false, true));
    p.setPen(k.muted);
    const double tx = l.time_label_x > 0 ? l.time_label_x : l.client_x - 12;
    drawText(p, QString::fromStdString(a.time_label), tx, s.y() + 3.5, Align::Right);
}

// Stall brackets and their two-line labels on the waiting side.
void paintStallBrackets(QPainter& p, const EventTraceLayout& l, const Ink& k) {
    for (const TraceStall& s : l.stalls) {
        const bool left = s.side == Side::Client;
        const double x = s.x != 0 ? s.x : (left ? l.client_x - 14 : l.server_x + 14);
        const double tick = left ? 6 : -6;
        p.setPen(QPen(k.tone(style::kStall), 2.2));
        p.drawPolyline(QPolygonF({QPointF(x + tick, s.y_start), QPointF(x, s.y_start), QPointF(x, s.y_end), QPointF(x + tick, s.y_end)}));
        const double ly = s.label_y != 0 ? s.label_y : (s.y_start + s.y_end) / 2;
        const double lx = left ? x - 7 : x + 7;
        const double tlx = l.time_label_x > 0 ? l.time_label_x : 0;
        const double room = left ? lx - tlx - 8 : l.width - lx - 8;
        const QString label = QString::fromStdString(s.label);
        const int colon = label.lastIndexOf(QStringLiteral(": "));
        const QString what = colon < 0 ? label : label.left(colon), how = colon < 0 ? QString() : label.mid(colon + 2);
        const Align al = left ? Align::Right : Align::Left;
        p.setFont(font(11, true));
        drawText(p, elide(p, what, room), lx, ly, al);
        p.setFont(font(11));
        drawText(p, how, lx, ly + 14, al);
    }
}

} // namespace

void paintEventTrace(QPainter& p, const EventTraceLayout& l, const TracePaintStyle& st) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    const Ink k = inkFor(st.dark);
    p.fillRect(QRectF(0, 0, l.width, l.height), k.paper);
    const double top = lanesTop(l), bottom = lanesBottom(l);
    paintHeader(p, l, k, top);
    paintLanes(p, l, k, st.dark, top, bottom);
    const double span = std::max(1.0, std::abs(l.server_x - l.client_x));
    for (const TraceArrow& a : l.arrows) paintArrow(p, l, a, k, st, span);
    paintStallBrackets(p, l, k);
    p.restore();
}
} // namespace stallscope::gui
