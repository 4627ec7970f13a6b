#include "app/gui/display_text.h"

#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/ms_text.h"

#include <QObject>
#include <QStringList>
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
        {"xml_sampled_calls", "XML figures from calls"},
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
        QStringList words = QString::fromStdString(base).split(QLatin1Char('_'), Qt::SkipEmptyParts);
        for (QString& w : words)  // acronyms as people write them ("TLS handshake", not "Tls handshake")
            for (const char* a : {"tls", "http", "soap", "xml", "rtt", "ack", "syn", "tcp", "mss"})
                if (w == QLatin1String(a)) w = w.toUpper();
        label = words.join(QLatin1Char(' '));
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

QString tlsNotDecryptedWhy(const ConnectionTls& t) {
    if (t.decrypted) return {};
    const std::string& r = t.reason;
    auto starts = [&](const char* token) { return r.rfind(token, 0) == 0; };
    QString why;
    // Longer tokens first: no_key_log before no_key.
    if (starts("no_key_log")) why = QObject::tr("no key log (File > Open Key Log…)");
    else if (starts("no_key")) why = QObject::tr("its client random is not in the key log");
    else if (starts("rsa_no_key")) why = QObject::tr("RSA key exchange and no key-log line (RSA private keys are not supported)");
    else if (starts("handshake_missing")) why = QObject::tr("the handshake was not captured");
    else if (starts("unsupported_cipher_suite")) why = QObject::tr("a cipher suite StallScope does not decrypt");
    else if (starts("auth_failed")) why = QObject::tr("a record failed authentication (wrong key?)");
    else if (starts("gap")) why = QObject::tr("a gap in the TLS stream");
    else if (starts("http2")) why = QObject::tr("HTTP/2 (ALPN h2) is not analysed");
    else why = QString::fromStdString(r.substr(0, r.find(':')));
    // "... from frame N: ..." says where it stopped.
    const size_t at = r.find(" from frame ");
    if (at != std::string::npos) why += QObject::tr(" from frame %1").arg(QString::fromStdString(r.substr(at + 12, r.find(':', at) - at - 12)));
    return why;
}

QString tlsSummary(const ConnectionTls& t) {
    QStringList parts;
    parts << (t.version.empty() ? QStringLiteral("TLS") : QString::fromStdString(t.version));
    if (t.resumed) parts << QObject::tr("resumed");
    parts << (t.decrypted ? QObject::tr("decrypted") : QObject::tr("encrypted, not decrypted: %1").arg(tlsNotDecryptedWhy(t)));
    return parts.join(QStringLiteral(" · "));
}

QString tlsDetails(const ConnectionTls& t) {
    QStringList l;
    l << QObject::tr("%1 %2").arg(t.version.empty() ? QObject::tr("TLS (no ServerHello captured)") : QString::fromStdString(t.version),
                                  QString::fromStdString(t.cipher_suite));
    if (!t.sni.empty()) l << QObject::tr("SNI: %1").arg(QString::fromStdString(t.sni));
    if (!t.alpn.empty()) l << QObject::tr("ALPN: %1").arg(QString::fromStdString(t.alpn));
    l << (t.resumed ? QObject::tr("resumed handshake")
                    : t.resumption_offered ? QObject::tr("full handshake (the client offered a session)")
                                           : QObject::tr("full handshake"));
    if (t.handshake_end_ns > t.handshake_start_ns)
        l << QObject::tr("handshake %1 (frames %2 → %3)")
                 .arg(formatMs(double(t.handshake_end_ns - t.handshake_start_ns) / 1e6))
                 .arg(t.handshake_first_frame)
                 .arg(t.handshake_last_frame);
    if (t.server_flight_bytes)
        l << QObject::tr("server's first flight: %1 in %2 segments").arg(formatBytes(t.server_flight_bytes)).arg(t.server_flight_segments);
    l << (t.decrypted ? QObject::tr("decrypted: the HTTP inside is analysed")
                      : QObject::tr("encrypted, not decrypted: %1; calls from the TLS records and their timing "
                                    "(operation and status unknown)").arg(tlsNotDecryptedWhy(t)));
    return l.join(QLatin1Char('\n'));
}

} // namespace stallscope::gui
