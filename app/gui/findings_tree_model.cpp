#include "app/gui/findings_tree_model.h"

#include "app/gui/display_text.h"
#include "app/gui/fix_prediction.h"

#include <QLocale>

namespace stallscope::gui {

// Group rows have internalId 0; a finding row has its group's index + 1.
FindingsTreeModel::FindingsTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void FindingsTreeModel::setResult(ResultPtr result) {
    beginResetModel();
    result_ = std::move(result);
    groups_ = result_ ? groupFindings(*result_) : std::vector<FindingGroup>{};
    endResetModel();
}

QModelIndex FindingsTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount) return {};
    if (!parent.isValid()) return row < int(groups_.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0) return {};
    const auto& g = groups_[size_t(parent.row())];
    return row < int(g.findings.size()) ? createIndex(row, column, quintptr(parent.row() + 1)) : QModelIndex();
}

QModelIndex FindingsTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int FindingsTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return int(groups_.size());
    if (parent.internalId() != 0 || parent.column() != 0) return 0;
    return int(groups_[size_t(parent.row())].findings.size());
}

int FindingsTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QModelIndex FindingsTreeModel::indexOfFinding(int finding_index) const {
    for (size_t g = 0; g < groups_.size(); ++g) {
        const auto& f = groups_[g].findings;
        for (size_t i = 0; i < f.size(); ++i)
            if (int(f[i]) == finding_index) return createIndex(int(i), 0, quintptr(g + 1));
    }
    return {};
}

static QString countText(uint64_t n) { return QLocale::system().toString(qulonglong(n)); }

QVariant FindingsTreeModel::groupData(const FindingGroup& g, int column, int role) const {
    if (role == FindingIndexRole) return int(g.findings.front());
    if (role == IsGroupRole) return true;
    if (role == Qt::ToolTipRole) {
        if (column == IfFixed) return fixPredictionToolTip(*result_, g);
        if (column == Fix || column == Kind) return QString::fromStdString(result_->finding(g.findings.front())->fix);
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (column) {
    case Kind: return QStringLiteral("%1 (%2)").arg(findingKindLabel(g.kind), sideLabel(g.side));
    case Severity: return QString::fromLatin1(severityName(g.severity));
    case Count: return countText(g.findings.size());
    case Calls: return g.every_call ? tr("every call (%1)").arg(countText(g.calls)) : countText(g.calls);
    case Lost: return kindTimeText(g.kind, g.lost_ms);
    case IfFixed: return fixPredictionText(*result_, g);
    case Fix: return QString::fromStdString(result_->finding(g.findings.front())->fix);
    }
    return {};
}

QVariant FindingsTreeModel::findingData(size_t fi, int column, int role) const {
    // The keys tell all but the explanation, which is fetched for the rows shown.
    const FindingKey& f = result_->findingKey(fi);
    if (role == FindingIndexRole) return int(fi);
    if (role == IsGroupRole) return false;
    if (role == Qt::ToolTipRole) return QString::fromStdString(result_->finding(fi)->explanation);
    if (role != Qt::DisplayRole) return {};
    switch (column) {
    case Kind: {
        if (f.calls == 0) return tr("connection %1").arg(f.connection_id);
        QString s = f.calls == 1 ? tr("call %1").arg(f.first_call) : tr("calls %1–%2").arg(f.first_call).arg(f.last_call);
        return s + tr(", connection %1").arg(f.connection_id);
    }
    case Calls: return countText(f.calls);
    case Lost: return kindTimeText(result_->kinds()[f.kind], f.counted_ms);
    case Fix: return QString::fromStdString(result_->finding(fi)->explanation);
    }
    return {};
}

QVariant FindingsTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_) return {};
    if (role == Qt::TextAlignmentRole) {
        const int c = index.column();
        return c == Count || c == Calls || c == Lost ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (index.internalId() == 0) return groupData(groups_[size_t(index.row())], index.column(), role);
    const FindingGroup& g = groups_[size_t(index.internalId() - 1)];
    return findingData(g.findings[size_t(index.row())], index.column(), role);
}

QVariant FindingsTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractItemModel::headerData(section, o, role);
    switch (section) {
    case Kind: return tr("Finding (caused by)");
    case Severity: return tr("Severity");
    case Count: return tr("Count");
    case Calls: return tr("Calls");
    case Lost: return tr("Time lost");
    case IfFixed: return tr("If fixed");
    case Fix: return tr("Fix / explanation");
    }
    return {};
}

} // namespace stallscope::gui
