#pragma once
// One row per call of the result snapshot. Display text in DisplayRole, raw
// sortable values in SortRole, the call id in CallIdRole.
#include "app/gui/analysis_snapshot.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

namespace stallscope::gui {

class CallsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Connection, Operation, Status, Latency, Start, RequestSize, ResponseSize, TimeLost, Findings, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, CallIdRole };

    explicit CallsModel(QObject* parent = nullptr);

    void setResult(ResultPtr result);
    const ResultPtr& result() const { return result_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    const Call& call(int row) const { return result_->calls[size_t(row)]; }
    int rowOfCall(uint64_t id) const;                        // -1 when unknown
    const std::vector<std::string>& findingKinds(int row) const { return kinds_[size_t(row)]; }
    double timeLostMs(int row) const { return lost_ms_[size_t(row)]; }
    QStringList allFindingKinds() const;                     // kinds present, sorted
    QStringList allOperations() const;

private:
    ResultPtr result_;
    std::vector<std::vector<std::string>> kinds_;   // per row: distinct finding kinds
    std::vector<double> lost_ms_;                   // per row: summed finding cost
};

} // namespace stallscope::gui
