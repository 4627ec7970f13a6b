#pragma once
// One row per call of the result snapshot. Display text in DisplayRole, raw
// sortable values in SortRole, the call id in CallIdRole. Sorting and
// filtering read only the compact keys (LoadedResult::callKey); a whole call
// is fetched for the rows on screen.
#include "app/gui/analysis_snapshot.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>
#include <unordered_map>
#include <vector>

namespace stallscope::gui {

class CallsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Tls last: the column order of saved header states stays valid.
    enum Column { Id, Connection, Operation, Status, Latency, Start, RequestSize, ResponseSize, TimeLost, Findings, Tls, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, CallIdRole };

    explicit CallsModel(QObject* parent = nullptr);

    void setResult(ResultPtr result);
    const ResultPtr& result() const { return result_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    std::shared_ptr<const Call> call(int row) const { return result_->call(size_t(row)); }
    const CallKey& key(int row) const { return result_->callKey(size_t(row)); }
    int rowOfCall(uint64_t id) const;                        // -1 when unknown
    std::vector<std::string> findingKinds(int row) const { return result_->kindsOf(key(row)); }
    double timeLostMs(int row) const { return key(row).lost_ms; }
    QStringList allFindingKinds() const;                     // kinds present, sorted
    QStringList allOperations() const;
    // The order of SortRole, straight from the keys (no QVariant per compare).
    bool lessThan(int row_a, int row_b, int column) const;

private:
    // The call's connection's TLS state (null: not TLS), cached per connection.
    std::shared_ptr<const ConnectionTls> tlsOf(uint64_t connection_id) const;
    QString tlsText(uint64_t connection_id) const;
    QString tlsToolTip(uint64_t connection_id) const;
    bool tlsUndecrypted(uint64_t connection_id) const;

    ResultPtr result_;
    // Whose view the latencies are (capture_point_text.h): the Latency
    // header names it when it is not the client's, its tooltip always.
    QString latency_header_, latency_tip_;
    mutable std::unordered_map<uint64_t, std::shared_ptr<const ConnectionTls>> tls_cache_;
};

} // namespace stallscope::gui
