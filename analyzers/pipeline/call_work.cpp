#include "analyzers/pipeline/call_work.h"

#include "analyzers/accounting/call_ledger.h"

#include <span>

namespace stallscope {

CallWork::CallWork(const std::vector<std::unique_ptr<Detector>>& all) {
    for (const auto& d : all)
        if (d->call_alone()) detectors_.push_back(d.get());
}

void CallWork::run(Call& call, const Connection& conn, std::vector<Finding>& out) const {
    const size_t first_new = out.size();
    const CallScan scan(call, conn);  // the Nagle search, once for every detector
    for (Detector* d : detectors_) d->on_call(call, conn, scan, out);
    account_call(call, conn, scan.where(), std::span<Finding>(out).subspan(first_new));
}

} // namespace stallscope
