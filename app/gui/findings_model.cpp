#include "app/gui/findings_model.h"

#include "app/gui/display_text.h"

#include <algorithm>

namespace stallscope::gui {

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setResult(ResultPtr result) {
    result_ = std::move(result);
    call_filter_ = 0;
    rebuild();
}

void FindingsModel::setCallFilter(quint64 call_id) {
    if (call_id == call_filter_) return;
    call_filter_ = call_id;
    rebuild();
}

void FindingsModel::rebuild() {
    beginResetModel();
    rows_.clear();
    if (result_) {
        for (size_t i = 0; i < result_->findings.size(); ++i) {
            const auto& calls = result_->findings[i].calls;
            if (call_filter_ && std::find(calls.begin(), calls.end(), call_filter_) == calls.end()) continue;
            rows_.push_back(i);
        }
        const auto& f = result_->findings;
        std::stable_sort(rows_.begin(), rows_.end(), [&](size_t a, size_t b) { return f[a].cost_ms > f[b].cost_ms; });
    }
    endResetModel();
}

int FindingsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int FindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int FindingsModel::rowOfFinding(int finding_index) const {
    for (size_t r = 0; r < rows_.size(); ++r)
        if (int(rows_[r]) == finding_index) return int(r);
    return -1;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const size_t fi = rows_[size_t(index.row())];
    const Finding& f = result_->findings[fi];
    if (role == FindingIndexRole) return int(fi);
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case Kind: return findingKindLabel(f.kind);
        case Cost: return role == SortRole ? QVariant(f.cost_ms) : QVariant(formatMs(f.cost_ms));
        case Side: return sideLabel(f.side);
        case Connection: return QVariant::fromValue<quint64>(f.connection_id);
        case Calls: {
            QStringList l;
            for (size_t i = 0; i < f.calls.size() && i < 6; ++i) l << QString::number(f.calls[i]);
            if (f.calls.size() > 6) l << QStringLiteral("… (%1)").arg(f.calls.size());
            return l.join(QStringLiteral(", "));
        }
        case Explanation: return QString::fromStdString(f.explanation);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Explanation) return QString::fromStdString(f.explanation);
    if (role == Qt::TextAlignmentRole && index.column() == Cost) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
    case Kind: return tr("Finding");
    case Cost: return tr("Time lost");
    case Side: return tr("Caused by");
    case Connection: return tr("Conn");
    case Calls: return tr("Calls");
    case Explanation: return tr("Explanation");
    }
    return {};
}

} // namespace stallscope::gui
