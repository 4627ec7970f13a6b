#include "app/gui/findings_model.h"

#include "analyzers/result/finding_kinds.h"
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
        for (size_t i = 0; i < result_->findingCount(); ++i) {
            const FindingKey& k = result_->findingKey(i);
            if (call_filter_) {   // the keys rule most findings out; the rest are read
                if (k.calls == 0 || call_filter_ < k.min_call || call_filter_ > k.max_call) continue;
                if (k.calls > 2) {
                    const auto f = result_->finding(i);
                    if (std::find(f->calls.begin(), f->calls.end(), call_filter_) == f->calls.end()) continue;
                } else if (call_filter_ != k.first_call && call_filter_ != k.last_call) {
                    continue;
                }
            }
            rows_.push_back(i);
        }
        std::stable_sort(rows_.begin(), rows_.end(),
                         [&](size_t a, size_t b) {
                             const FindingKey &x = result_->findingKey(a), &y = result_->findingKey(b);
                             const bool sx = result_->isStall(x), sy = result_->isStall(y);
                             return sx != sy ? sx : x.counted_ms > y.counted_ms;   // time lost first
                         });
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
    if (role == FindingIndexRole) return int(fi);
    const auto found = result_->finding(fi);
    const Finding& f = *found;
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case Kind: return findingKindLabel(f.kind);
        case Cost:   // "Time lost": server processing sorts after every stall
            return role == SortRole ? QVariant(is_stall_kind(f.kind) ? f.counted_ms : -1 - f.counted_ms)
                                    : QVariant(kindTimeText(f.kind, f.counted_ms));
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
