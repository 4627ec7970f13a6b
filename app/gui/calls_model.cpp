#include "app/gui/calls_model.h"

#include "app/gui/display_text.h"
#include "analyzers/call_ledger.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <set>
#include <unordered_map>

namespace stallscope::gui {

CallsModel::CallsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CallsModel::setResult(ResultPtr result) {
    beginResetModel();
    result_ = std::move(result);
    kinds_.clear();
    lost_ms_.clear();
    if (result_) {
        std::unordered_map<uint64_t, size_t> row_of;
        for (size_t i = 0; i < result_->calls.size(); ++i) row_of[result_->calls[i].id] = i;
        kinds_.resize(result_->calls.size());
        lost_ms_.assign(result_->calls.size(), 0.0);
        // Time lost is the call ledger's (each millisecond once), as in every report.
        for (size_t i = 0; i < result_->calls.size(); ++i) lost_ms_[i] = stall_ms(result_->calls[i]);
        for (const Finding& f : result_->findings) {
            for (uint64_t id : f.calls) {
                auto it = row_of.find(id);
                if (it == row_of.end()) continue;
                auto& k = kinds_[it->second];
                if (std::find(k.begin(), k.end(), f.kind) == k.end()) k.push_back(f.kind);
            }
        }
    }
    endResetModel();
}

int CallsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : int(result_->calls.size());
}

int CallsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int CallsModel::rowOfCall(uint64_t id) const {
    if (!result_) return -1;
    // Calls are numbered 1.. in order; fall back to a scan if that ever changes.
    if (id >= 1 && id <= result_->calls.size() && result_->calls[id - 1].id == id) return int(id - 1);
    for (size_t i = 0; i < result_->calls.size(); ++i)
        if (result_->calls[i].id == id) return int(i);
    return -1;
}

static QString kindsText(const std::vector<std::string>& kinds) {
    QStringList l;
    for (const auto& k : kinds) l << findingKindLabel(k);
    return l.join(QStringLiteral(", "));
}

QVariant CallsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const Call& c = call(index.row());
    const int row = index.row();
    const double start_s = double(c.start_ns - result_->capture.first_ns) / 1e9;
    if (role == CallIdRole) return QVariant::fromValue<quint64>(c.id);
    if (role == SortRole) {
        switch (index.column()) {
        case Id: return QVariant::fromValue<quint64>(c.id);
        case Connection: return QVariant::fromValue<quint64>(c.connection_id);
        case Operation: return callOperation(c);
        case Status: return c.status;
        case Latency: return c.latency_ms;
        case Start: return QVariant::fromValue<qint64>(c.start_ns);
        case RequestSize: return QVariant::fromValue<quint64>(c.request.header_bytes + c.request.body_bytes);
        case ResponseSize: return QVariant::fromValue<quint64>(c.response.header_bytes + c.response.body_bytes);
        case Findings: return int(kinds_[size_t(row)].size());
        case TimeLost: return lost_ms_[size_t(row)];
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Id: return QVariant::fromValue<quint64>(c.id);
        case Connection: return QVariant::fromValue<quint64>(c.connection_id);
        case Operation: return callOperation(c);
        case Status: return statusText(c);
        case Latency: return c.complete ? formatMs(c.latency_ms) : QStringLiteral("incomplete");
        case Start: return QString::number(start_s, 'f', 6) + QStringLiteral(" s");
        case RequestSize: return formatBytes(c.request.header_bytes + c.request.body_bytes);
        case ResponseSize: return formatBytes(c.response.header_bytes + c.response.body_bytes);
        case Findings: return kindsText(kinds_[size_t(row)]);
        case TimeLost: return lost_ms_[size_t(row)] > 0 ? formatMs(lost_ms_[size_t(row)]) : QString();
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
        if (index.column() == Status && (c.status >= 400 || c.soap_response.fault)) return QBrush(QColor(0xd3, 0x2f, 0x2f));
        if (index.column() == Findings && !kinds_[size_t(row)].empty()) return QBrush(QColor(0xe0, 0x6c, 0x00));
    }
    if (role == Qt::ToolTipRole) {
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
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
    case Id: return tr("Call");
    case Connection: return tr("Conn");
    case Operation: return tr("Operation");
    case Status: return tr("Status");
    case Latency: return tr("Latency");
    case Start: return tr("Start");
    case RequestSize: return tr("Request");
    case ResponseSize: return tr("Response");
    case Findings: return tr("Findings");
    case TimeLost: return tr("Time lost");
    }
    return {};
}

QStringList CallsModel::allFindingKinds() const {
    std::set<std::string> s;
    for (const auto& k : kinds_) s.insert(k.begin(), k.end());
    QStringList l;
    for (const auto& k : s) l << QString::fromStdString(k);
    return l;
}

QStringList CallsModel::allOperations() const {
    std::set<QString> s;
    if (result_)
        for (const Call& c : result_->calls) s.insert(callOperation(c));
    return QStringList(s.begin(), s.end());
}

} // namespace stallscope::gui
