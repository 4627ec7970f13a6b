#include "app/gui/calls_filter_model.h"

#include "app/gui/calls_model.h"
#include "app/gui/display_text.h"

#include <algorithm>

namespace stallscope::gui {

CallsFilterModel::CallsFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(CallsModel::SortRole);
    setDynamicSortFilter(true);
}

void CallsFilterModel::setCallsModel(CallsModel* model) {
    calls_ = model;
    setSourceModel(model);
}

void CallsFilterModel::setFilter(const CallFilter& f) {
    filter_ = f;
    invalidateFilter();
    emit filterApplied();
}

bool CallsFilterModel::filterAcceptsRow(int row, const QModelIndex&) const {
    if (!calls_ || !calls_->result()) return false;
    // Keys only: filtering 200k spilled calls reads nothing from disk.
    const LoadedResult& r = *calls_->result();
    const CallKey& c = r.callKey(size_t(row));
    const CallFilter& f = filter_;
    if (!f.operation.isEmpty() && !r.operationOf(c).contains(f.operation, Qt::CaseInsensitive)) return false;
    if (f.connection && c.connection_id != f.connection) return false;
    switch (f.status) {
    case StatusFilter::Any: break;
    case StatusFilter::Success: if (c.status < 200 || c.status >= 400 || c.fault()) return false; break;
    case StatusFilter::ClientError: if (c.status < 400 || c.status >= 500) return false; break;
    case StatusFilter::ServerError: if (c.status < 500) return false; break;
    case StatusFilter::Fault: if (!c.fault()) return false; break;
    case StatusFilter::Incomplete: if (c.complete()) return false; break;
    }
    if (f.min_latency_ms && c.latency_ms < *f.min_latency_ms) return false;
    if (f.max_latency_ms && c.latency_ms > *f.max_latency_ms) return false;
    if (!f.finding_kind.isEmpty()) {
        if (f.finding_kind == QLatin1String("none")) return c.kinds == 0;
        if (f.finding_kind == QLatin1String("any")) return c.kinds != 0;
        const auto& kinds = r.kinds();
        const auto k = std::find(kinds.begin(), kinds.end(), f.finding_kind.toStdString());
        if (k == kinds.end() || k - kinds.begin() >= 64 || !(c.kinds & (uint64_t(1) << (k - kinds.begin())))) return false;
    }
    return true;
}

bool CallsFilterModel::lessThan(const QModelIndex& a, const QModelIndex& b) const {
    if (!calls_ || !calls_->result()) return QSortFilterProxyModel::lessThan(a, b);
    return calls_->lessThan(a.row(), b.row(), a.column());
}

} // namespace stallscope::gui
