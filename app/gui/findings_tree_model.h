#pragma once
// The Overview's findings, Expert-Information style: one row per kind and
// side (count, calls, time lost, severity, the fix and what fixing it would
// buy), expandable to the individual findings, costliest first.
#include "app/gui/analysis_snapshot.h"
#include "app/gui/findings_groups.h"

#include <QAbstractItemModel>
#include <vector>

namespace stallscope::gui {

class FindingsTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Kind, Severity, Count, Calls, Lost, IfFixed, Fix, ColumnCount };
    // FindingIndexRole: the finding of a child row; of a group row, its costliest finding.
    enum Role { FindingIndexRole = Qt::UserRole + 1, IsGroupRole };

    explicit FindingsTreeModel(QObject* parent = nullptr);
    void setResult(ResultPtr result);
    const std::vector<FindingGroup>& groups() const { return groups_; }
    // Index of the row showing this finding (a child row), invalid when none.
    QModelIndex indexOfFinding(int finding_index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    QVariant groupData(const FindingGroup& g, int column, int role) const;
    QVariant findingData(size_t finding_index, int column, int role) const;
    ResultPtr result_;
    std::vector<FindingGroup> groups_;
};

} // namespace stallscope::gui
