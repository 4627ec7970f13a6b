#pragma once
// Sorting and filtering of the calls table: operation text, connection,
// status class, latency range and finding kind. All criteria combine (AND).
#include <QSortFilterProxyModel>
#include <optional>

namespace stallscope::gui {

class CallsModel;

enum class StatusFilter { Any, Success, ClientError, ServerError, Fault, Incomplete };

struct CallFilter {
    QString operation;                  // case-insensitive substring; empty = any
    quint64 connection = 0;             // 0 = any
    StatusFilter status = StatusFilter::Any;
    std::optional<double> min_latency_ms, max_latency_ms;
    QString finding_kind;               // "" = any, "none" = calls without findings, else a kind
};

class CallsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit CallsFilterModel(QObject* parent = nullptr);
    void setCallsModel(CallsModel* model);
    void setFilter(const CallFilter& f);
    const CallFilter& filter() const { return filter_; }

signals:
    void filterApplied();

protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;
    bool lessThan(const QModelIndex& a, const QModelIndex& b) const override;

private:
    CallsModel* calls_ = nullptr;
    CallFilter filter_;
};

} // namespace stallscope::gui
