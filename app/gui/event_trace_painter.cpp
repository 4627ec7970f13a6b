#include "app/gui/event_trace_painter.h"

#include "app/gui/display_text.h"
#include "app/gui/theme.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QPainter>
#include <QPainterPath>
#include <cmath>

namespace stallscope::gui {

QPointF arrowStart(const EventTraceLayout& l, const TraceArrow& a) {
    return {a.from == Side::Client ? l.client_x : l.server_x, a.y_from};
}

QPointF arrowEnd(const EventTraceLayout& l, const TraceArrow& a) {
    return {a.from == Side::Client ? l.server_x : l.client_x, a.y_to};
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
        const double d = distanceToSegment(pt, arrowStart(l, l.arrows[i]), arrowEnd(l, l.arrows[i]));
        if (d <= best_d) { best_d = d; best = i; }
    }
    return best;
}

static void drawArrowHead(QPainter& p, QPointF from, QPointF to, double size) {
    const QLineF line(to, from);
    const double angle = std::atan2(-line.dy(), line.dx());
    const QPointF a = to + QPointF(std::cos(angle + M_PI / 7) * size, -std::sin(angle + M_PI / 7) * size);
    const QPointF b = to + QPointF(std::cos(angle - M_PI / 7) * size, -std::sin(angle - M_PI / 7) * size);
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(a);
    head.lineTo(b);
    head.closeSubpath();
    p.fillPath(head, p.pen().color());
}

void paintEventTrace(QPainter& p, const EventTraceLayout& l, const TracePaintStyle& st) {
    const QColor fg = st.dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    const QColor muted = st.dark ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x70, 0x70, 0x70);
    const QColor lane = st.dark ? QColor(0x70, 0x74, 0x7a) : QColor(0x90, 0x90, 0x90);
    const QColor data = st.dark ? QColor(0x6c, 0xb4, 0xff) : QColor(0x1a, 0x5f, 0xb4);
    const QColor ack = muted;
    const QColor stall = stallColor(st.dark);
    const QColor highlight(0xff, 0xc1, 0x07);

    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    QFont base = p.font();
    base.setPointSizeF(9);
    p.setFont(base);

    // Title and lane names above time zero.
    QFont title_font = base;
    title_font.setBold(true);
    title_font.setPointSizeF(10.5);
    p.setFont(title_font);
    p.setPen(fg);
    const double header_y = std::max(14.0, l.top - 34);
    p.drawText(QRectF(0, header_y - 24, l.width, 18), Qt::AlignHCenter | Qt::AlignVCenter,
               QString::fromStdString(l.title));
    p.setFont(base);
    QFont lane_font = base;
    lane_font.setBold(true);
    p.setFont(lane_font);
    p.drawText(QRectF(l.client_x - 150, header_y - 4, 300, 18), Qt::AlignCenter, QString::fromStdString(l.client_name));
    p.drawText(QRectF(l.server_x - 150, header_y - 4, 300, 18), Qt::AlignCenter, QString::fromStdString(l.server_name));
    p.setFont(base);

    // Lanes.
    p.setPen(QPen(lane, 2));
    p.drawLine(QPointF(l.client_x, l.top), QPointF(l.client_x, l.height - 8));
    p.drawLine(QPointF(l.server_x, l.top), QPointF(l.server_x, l.height - 8));

    // Stalls: a red bar beside the lane that waited, with its label.
    for (const TraceStall& s : l.stalls) {
        const double x = s.side == Side::Client ? l.client_x : l.server_x;
        const double dir = s.side == Side::Client ? -1 : 1;   // outside the lanes
        QColor fill = stall;
        fill.setAlpha(st.dark ? 70 : 45);
        const QRectF band(std::min(l.client_x, l.server_x), s.y_start, std::fabs(l.server_x - l.client_x),
                          std::max(1.0, s.y_end - s.y_start));
        p.fillRect(band, fill);
        p.setPen(QPen(stall, 4, Qt::SolidLine, Qt::FlatCap));
        p.drawLine(QPointF(x + dir * 6, s.y_start), QPointF(x + dir * 6, s.y_end));
        p.setPen(stall);
        QFont bold = base;
        bold.setBold(true);
        p.setFont(bold);
        const QRectF label_box = dir < 0 ? QRectF(4, (s.y_start + s.y_end) / 2 - 9, x - 16, 18)
                                         : QRectF(x + 14, (s.y_start + s.y_end) / 2 - 9, l.width - x - 18, 18);
        p.drawText(label_box, (dir < 0 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                   QString::fromStdString(s.label));
        p.setFont(base);
    }

    // Cut-out idle stretches.
    for (const TraceBreak& b : l.breaks) {
        p.setPen(QPen(muted, 1, Qt::DashLine));
        p.drawLine(QPointF(l.client_x - 30, b.y), QPointF(l.server_x + 30, b.y));
        p.setPen(muted);
        const QRectF box((l.client_x + l.server_x) / 2 - 120, b.y - 9, 240, 18);
        p.fillRect(box.adjusted(40, 2, -40, -2), st.dark ? QColor(0x1e, 0x1f, 0x22) : Qt::white);
        p.drawText(box, Qt::AlignCenter, QString::fromStdString(b.label));
    }

    // Arrows: data solid, pure ACKs thin; evidence in the stall colour.
    const QFontMetricsF fm(base);
    for (const TraceArrow& a : l.arrows) {
        const QPointF s = arrowStart(l, a), e = arrowEnd(l, a);
        const bool is_data = a.len > 0;
        const bool hl = st.highlighted_frame && a.frame == st.highlighted_frame;
        QColor c = a.evidence ? stall : (is_data ? data : ack);
        if (hl) {
            p.setPen(QPen(highlight, 9, Qt::SolidLine, Qt::RoundCap));
            p.drawLine(s, e);
        }
        QPen pen(c, is_data ? 1.8 : 1.0, a.retransmission ? Qt::DashLine : Qt::SolidLine);
        if (a.evidence) pen.setWidthF(2.4);
        p.setPen(pen);
        p.drawLine(s, e);
        p.setPen(QPen(c, 1));
        drawArrowHead(p, s, e, is_data ? 9 : 7);

        // Label along the middle of the arrow, on the side it travels from.
        const QString label = QString::fromStdString(a.label);
        const QPointF mid = (s + e) / 2;
        const double angle = std::atan2(e.y() - s.y(), e.x() - s.x()) * 180 / M_PI;
        p.save();
        p.translate(mid);
        double rot = angle;
        if (rot > 90) rot -= 180;
        if (rot < -90) rot += 180;
        p.rotate(rot);
        const double w = fm.horizontalAdvance(label);
        p.setPen(a.evidence ? stall : fg);
        if (hl) {
            QFont b = base;
            b.setBold(true);
            p.setFont(b);
        }
        p.drawText(QPointF(-w / 2, -4), label);
        p.restore();
        p.setFont(base);

        // Time beside the sender's lane.
        p.setPen(muted);
        const QString t = QString::fromStdString(a.time_label);
        if (a.from == Side::Client)
            p.drawText(QRectF(0, s.y() - 8, l.client_x - 10, 16), Qt::AlignRight | Qt::AlignVCenter, t);
        else
            p.drawText(QRectF(l.server_x + 10, s.y() - 8, l.width - l.server_x - 10, 16), Qt::AlignLeft | Qt::AlignVCenter, t);
    }
    p.restore();
}

} // namespace stallscope::gui
