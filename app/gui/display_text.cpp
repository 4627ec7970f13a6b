#include "app/gui/display_text.h"

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
    }
    return QStringLiteral("?");
}

QString findingKindLabel(const std::string& kind) {
    if (kind == "nagle_delayed_ack") return QStringLiteral("Nagle / delayed ACK");
    if (kind == "split_write") return QStringLiteral("Split header/body write");
    if (kind == "expect_continue") return QStringLiteral("Expect: 100-continue wait");
    if (kind == "connection_per_call") return QStringLiteral("Connection per call");
    // Unknown kinds: "some_kind" -> "Some kind".
    QString s = QString::fromStdString(kind).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!s.isEmpty()) s[0] = s[0].toUpper();
    return s;
}

QString sideLabel(Side s) { return s == Side::Client ? QStringLiteral("client") : QStringLiteral("server"); }

QString formatMs(double ms) {
    const double a = std::fabs(ms);
    if (a == 0) return QStringLiteral("0 ms");
    if (a >= 1000) return QString::number(ms / 1000, 'f', a >= 10000 ? 1 : 2) + QStringLiteral(" s");
    if (a >= 100) return QString::number(ms, 'f', 0) + QStringLiteral(" ms");
    if (a >= 10) return QString::number(ms, 'f', 1) + QStringLiteral(" ms");
    if (a >= 1) return QString::number(ms, 'f', 2) + QStringLiteral(" ms");
    if (a >= 0.001 || a == 0) return QString::number(ms, 'f', 3) + QStringLiteral(" ms");
    return QString::number(ms * 1e6, 'f', 0) + QStringLiteral(" ns");
}

QString formatBytes(uint64_t b) {
    if (b < 1024) return QString::number(b) + QStringLiteral(" B");
    if (b < 1024 * 1024) return QString::number(double(b) / 1024, 'f', 1) + QStringLiteral(" KiB");
    return QString::number(double(b) / (1024.0 * 1024), 'f', 1) + QStringLiteral(" MiB");
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

} // namespace stallscope::gui
