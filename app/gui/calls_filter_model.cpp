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
    const Call& c = calls_->call(row);
    const CallFilter& f = filter_;
    if (!f.operation.isEmpty() && !callOperation(c).contains(f.operation, Qt::CaseInsensitive)) return false;
    if (f.connection && c.connection_id != f.connection) return false;
    switch (f.status) {
    case StatusFilter::Any: break;
    case StatusFilter::Success: if (c.status < 200 || c.status >= 400 || c.soap_response.fault) return false; break;
    case StatusFilter::ClientError: if (c.status < 400 || c.status >= 500) return false; break;
    case StatusFilter::ServerError: if (c.status < 500) return false; break;
    case StatusFilter::Fault: if (!c.soap_response.fault) return false; break;
    case StatusFilter::Incomplete: if (c.complete) return false; break;
    }
    if (f.min_latency_ms && c.latency_ms < *f.min_latency_ms) return false;
    if (f.max_latency_ms && c.latency_ms > *f.max_latency_ms) return false;
    if (!f.finding_kind.isEmpty()) {
        const auto& kinds = calls_->findingKinds(row);
        if (f.finding_kind == QLatin1String("none")) return kinds.empty();
        if (f.finding_kind == QLatin1String("any")) return !kinds.empty();
        const std::string k = f.finding_kind.toStdString();
        if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) return false;
    }
    return true;
}

} // namespace stallscope::gui
