#include "app/gui/display_text.h"

#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/ms_text.h"

#include <QObject>
#include <cmath>

namespace stallscope::gui {

QString phaseLabel(PhaseKind k) {
    switch (k) {
    case PhaseKind::Connect: return QStringLiteral("Connect");
    case PhaseKind::RequestHeaders: return QStringLiteral("Request headers");
    case PhaseKind::ContinueWait: return QStringLiteral("100-continue wait");
    case PhaseKind::RequestBody: return QStringLiteral("Request body");
    case PhaseKind::ServerTime: return QStringLiteral("Server time");
    case PhaseKind::ResponseHeaders: return QStringLiteral("Response headers");
    case PhaseKind::ResponseBody: return QStringLiteral("Response body");
    case PhaseKind::Close: return QStringLiteral("Close");
    case PhaseKind::TlsHandshake: return QStringLiteral("TLS handshake");
    }
    return QStringLiteral("?");
}

QString findingKindLabel(const std::string& kind) { return QString::fromStdString(finding_kind_title(kind)); }

QString kindTimeText(const std::string& kind, double ms) {
    if (kind_time(kind) == KindTime::Server) return QObject::tr("%1 server processing").arg(formatMs(ms));
    return ms > 0 ? formatMs(ms) : QObject::tr("none");
}

QString sideLabel(Side s) { return s == Side::Client ? QStringLiteral("client") : QStringLiteral("server"); }

QString formatMs(double ms) { return QString::fromStdString(format_ms(ms)); }   // the reports' and figures' rule

QString formatBytes(uint64_t b) {
    if (b < 1024) return QString::number(b) + QStringLiteral(" B");
    if (b < 1024 * 1024) return QString::number(double(b) / 1024, 'f', 1) + QStringLiteral(" KiB");
    return QString::number(double(b) / (1024.0 * 1024), 'f', 1) + QStringLiteral(" MiB");
}

QString countNoun(uint64_t n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

QString callOperation(const Call& c) {
    if (c.soap.is_soap && !c.soap.operation.empty()) return QString::fromStdString(c.soap.operation);
    QString s = QString::fromStdString(c.method);
    if (!c.uri.empty()) s += QLatin1Char(' ') + QString::fromStdString(c.uri);
    return s;
}

QString statusText(const Call& c) {
    if (c.status == 0) return QStringLiteral("—");
    QString s = QString::number(c.status);
    if (c.soap_response.fault) s += QStringLiteral(" fault");
    return s;
}

QString endpointText(const Endpoint& e) { return QString::fromStdString(e.to_string()); }

std::pair<QString, QString> detailText(const std::string& key, const std::string& value) {
    static const std::pair<const char*, const char*> kWords[] = {
        {"ack_delay_ms", "ACK delay"},           {"ack_to_next_ms", "ACK to next segment"},
        {"armed_nagle_stall_ms", "Nagle hold armed for"}, {"rtt_ms", "Round trip"},
        {"mss", "MSS"},                          {"gzip_saving", "gzip would save"},
        {"gzip_estimate_bytes_per_call", "gzip estimate per call"}, {"xml_elements_per_call", "XML elements per call"},
        {"closed_first_by", "Closed first by"},  {"held_segment", "Held segment"},
        {"write_sizes", "Write sizes (bytes)"},  {"segments_needed", "Segments needed"},
        {"share_of_call", "Share of the call"},  {"handshake_share", "Handshake share"},
        {"markup_share", "Markup share"},        {"zero_windows", "Zero windows"},
    };
    std::string k = key, unit;
    for (const char* suffix : {"_ms", "_bytes"}) {
        const std::string sfx = suffix;
        if (k.size() > sfx.size() && k.compare(k.size() - sfx.size(), sfx.size(), sfx) == 0) {
            unit = sfx == "_ms" ? " ms" : " B";
            break;
        }
    }
    QString label;
    for (const auto& [raw, words] : kWords)
        if (key == raw) label = QString::fromLatin1(words);
    if (label.isEmpty()) {
        std::string base = unit.empty() ? k : k.substr(0, k.rfind('_'));
        label = QString::fromStdString(base).replace(QLatin1Char('_'), QLatin1Char(' '));
        if (!label.isEmpty()) label[0] = label[0].toUpper();
    }
    QString v = QString::fromStdString(value);
    bool numeric = false;
    v.toDouble(&numeric);
    if (numeric && !unit.empty()) v += QString::fromLatin1(unit.c_str());
    return {label, v};
}

QString evidenceFrameText(uint64_t frame, const std::vector<const SegmentInfo*>& segments) {
    const QString id = QStringLiteral("#%1").arg(frame);
    const SegmentInfo* s = nullptr;
    for (const SegmentInfo* x : segments)
        if (x->frame == frame) { s = x; break; }
    if (!s) return id;
    const QString what = s->len > 0 && s->carries == 0 ? QStringLiteral("data") : QString::fromStdString(carries_label(s->carries));
    QString text = s->len > 0 ? QStringLiteral("%1 %2 (%3) from %4").arg(id, what, formatBytes(s->len), sideLabel(s->from))
                              : QStringLiteral("%1 %2 from %3").arg(id, what, sideLabel(s->from));
    // An ACK: how long after the data it acknowledges. Data: how long its ACK took.
    for (const SegmentInfo* d : segments) {
        if (s->len == 0 && d->acked_frame == frame && d->len > 0)
            return text + QStringLiteral(", %1 after #%2").arg(formatMs(double(s->ts_ns - d->ts_ns) / 1e6)).arg(d->frame);
    }
    if (s->len > 0 && s->acked_frame && s->acked_ns >= s->ts_ns)
        text += QStringLiteral(", ACKed %1 later by #%2").arg(formatMs(double(s->acked_ns - s->ts_ns) / 1e6)).arg(s->acked_frame);
    return text;
}

} // namespace stallscope::gui
