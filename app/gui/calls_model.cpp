#include "app/gui/calls_model.h"
#include "app/gui/capture_point_text.h"

#include "app/gui/display_text.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <bit>
#include <set>

namespace stallscope::gui {

CallsModel::CallsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CallsModel::setResult(ResultPtr result) {
    beginResetModel();
    result_ = std::move(result);
    latency_header_ = tr("Latency");
    latency_tip_.clear();
    if (result_) {
        const CapturePointText t = capturePointText(summarize_capture_point(*result_));
        if (!t.client_view) latency_header_ = tr("Latency (%1)").arg(t.view);
        latency_tip_ = tr("Latencies are %1").arg(t.view_long);
    }
    tls_cache_.clear();
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, Latency, Latency);
}

int CallsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : int(result_->callCount());
}

int CallsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int CallsModel::rowOfCall(uint64_t id) const { return result_ ? result_->rowOfCall(id) : -1; }

bool CallsModel::lessThan(int a, int b, int column) const {
    const CallKey& x = key(a);
    const CallKey& y = key(b);
    switch (column) {
    case Id: return x.id < y.id;
    case Connection: return x.connection_id < y.connection_id;
    case Operation: return result_->operationOf(x) < result_->operationOf(y);
    case Status: return x.status < y.status;
    case Latency: return x.latency_ms < y.latency_ms;
    case Start: return x.start_ns < y.start_ns;
    case RequestSize: return x.request_bytes < y.request_bytes;
    case ResponseSize: return x.response_bytes < y.response_bytes;
    case Findings: return std::popcount(x.kinds) < std::popcount(y.kinds);
    case TimeLost: return x.lost_ms < y.lost_ms;
    case Tls: return tlsText(x.connection_id) < tlsText(y.connection_id);
    }
    return x.id < y.id;
}

static QString kindsText(const std::vector<std::string>& kinds) {
    QStringList l;
    for (const auto& k : kinds) l << findingKindLabel(k);
    return l.join(QStringLiteral(", "));
}

QVariant CallsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const int row = index.row();
    const CallKey& k = key(row);
    if (role == CallIdRole) return QVariant::fromValue<quint64>(k.id);
    if (role == SortRole) {
        switch (index.column()) {
        case Id: return QVariant::fromValue<quint64>(k.id);
        case Connection: return QVariant::fromValue<quint64>(k.connection_id);
        case Operation: return result_->operationOf(k);
        case Status: return k.status;
        case Latency: return k.latency_ms;
        case Start: return QVariant::fromValue<qint64>(k.start_ns);
        case RequestSize: return QVariant::fromValue<quint64>(k.request_bytes);
        case ResponseSize: return QVariant::fromValue<quint64>(k.response_bytes);
        case Findings: return std::popcount(k.kinds);
        case TimeLost: return k.lost_ms;
        case Tls: return tlsText(k.connection_id);
        }
    }
    if (role == Qt::DisplayRole) {
        const double start_s = double(k.start_ns - result_->capture.first_ns) / 1e9;
        switch (index.column()) {
        case Id: return QVariant::fromValue<quint64>(k.id);
        case Connection: return QVariant::fromValue<quint64>(k.connection_id);
        case Operation: return result_->operationOf(k);
        case Status: return statusText(*call(row));
        case Latency: return k.complete() ? formatMs(k.latency_ms) : QStringLiteral("incomplete");
        case Start: return QString::number(start_s, 'f', 6) + QStringLiteral(" s");
        case RequestSize: return formatBytes(k.request_bytes);
        case ResponseSize: return formatBytes(k.response_bytes);
        case Findings: return kindsText(findingKinds(row));
        case TimeLost: return k.lost_ms > 0 ? formatMs(k.lost_ms) : QString();
        case Tls: return tlsText(k.connection_id);
        }
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Id: case Connection: case Latency: case Start: case RequestSize: case ResponseSize: case TimeLost:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default: return int(Qt::AlignLeft | Qt::AlignVCenter);
        }
    }
    if (role == Qt::ForegroundRole) {
        if (index.column() == Status && (k.status >= 400 || k.fault())) return QBrush(QColor(0xd3, 0x2f, 0x2f));
        // Orange only where a stall lost time (1 ms or more, as the timeline draws): a zero-cost note,
        // server processing or a loopback handshake is no warning.
        if (index.column() == Findings && k.stalled()) return QBrush(QColor(0xe0, 0x6c, 0x00));
    }
    if (role == Qt::ForegroundRole && index.column() == Tls && tlsUndecrypted(k.connection_id))
        return QBrush(QColor(0x8a, 0x5a, 0x00));
    if (role == Qt::ToolTipRole && index.column() == Tls) return tlsToolTip(k.connection_id);
    if (role == Qt::ToolTipRole && (index.column() == Operation || index.column() == Status)) {
        const auto call_ptr = call(row);
        const Call& c = *call_ptr;
        if (index.column() == Operation)
            return QStringLiteral("%1 %2\nSOAPAction: %3\nUser-Agent: %4\nServer: %5")
                .arg(QString::fromStdString(c.method), QString::fromStdString(c.uri),
                     QString::fromStdString(c.soap_action), QString::fromStdString(c.user_agent),
                     QString::fromStdString(c.server));
        if (index.column() == Status && c.soap_response.fault)
            return QString::fromStdString(c.soap_response.fault_code + ": " + c.soap_response.fault_string);
    }
    return {};
}

QVariant CallsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == Latency && !latency_tip_.isEmpty()) return latency_tip_;
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
    case Id: return tr("Call");
    case Connection: return tr("Conn");
    case Operation: return tr("Operation");
    case Status: return tr("Status");
    case Latency: return latency_header_.isEmpty() ? tr("Latency") : latency_header_;
    case Start: return tr("Start");
    case RequestSize: return tr("Request");
    case ResponseSize: return tr("Response");
    case Findings: return tr("Findings");
    case TimeLost: return tr("Time lost");
    case Tls: return tr("TLS");
    }
    return {};
}

std::shared_ptr<const ConnectionTls> CallsModel::tlsOf(uint64_t connection_id) const {
    if (!result_) return nullptr;
    auto it = tls_cache_.find(connection_id);
    if (it != tls_cache_.end()) return it->second;
    std::shared_ptr<const ConnectionTls> t;
    if (auto conn = result_->connection(connection_id); conn && conn->tls)
        t = std::make_shared<const ConnectionTls>(*conn->tls);
    if (tls_cache_.size() > 4096) tls_cache_.clear();  // bounded: rows on screen come back quickly
    tls_cache_.emplace(connection_id, t);
    return t;
}

bool CallsModel::tlsUndecrypted(uint64_t connection_id) const {
    auto t = tlsOf(connection_id);
    return t && !t->decrypted;
}

QString CallsModel::tlsText(uint64_t connection_id) const {
    auto t = tlsOf(connection_id);
    return t ? tlsSummary(*t) : QString();
}

QString CallsModel::tlsToolTip(uint64_t connection_id) const {
    auto t = tlsOf(connection_id);
    if (!t) return tr("plain TCP (no TLS record on this connection)");
    return tlsDetails(*t);
}

QStringList CallsModel::allFindingKinds() const {
    std::set<std::string> s;
    if (result_) s.insert(result_->kinds().begin(), result_->kinds().end());
    QStringList l;
    for (const auto& k : s) l << QString::fromStdString(k);
    return l;
}

QStringList CallsModel::allOperations() const {
    std::set<QString> s;
    if (result_) s.insert(result_->operations().begin(), result_->operations().end());
    return QStringList(s.begin(), s.end());
}

} // namespace stallscope::gui
