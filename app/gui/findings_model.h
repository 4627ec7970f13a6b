#pragma once
// Findings ranked by time lost (largest first), optionally only those that
// touch one call. FindingIndexRole gives the index into the result's findings.
#include "app/gui/analysis_snapshot.h"

#include <QAbstractTableModel>
#include <vector>

namespace stallscope::gui {

class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, Cost, Side, Connection, Calls, Explanation, ColumnCount };
    enum Role { FindingIndexRole = Qt::UserRole + 1, SortRole };

    explicit FindingsModel(QObject* parent = nullptr);
    void setResult(ResultPtr result);
    void setCallFilter(quint64 call_id);   // 0 = all findings

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    int findingIndex(int row) const { return int(rows_[size_t(row)]); }
    int rowOfFinding(int finding_index) const;   // -1 when not shown

private:
    void rebuild();
    ResultPtr result_;
    quint64 call_filter_ = 0;
    std::vector<size_t> rows_;   // indexes into result_->findings, ranked
};

} // namespace stallscope::gui
