#pragma once
// What is done to a finished call that is a function of the call and its
// connection alone: the findings of the detectors that keep nothing between
// calls (Detector::call_alone: the Nagle search and what shares it, server
// time, retransmissions, ...) and the call ledger over them (attribution,
// savings, the findings' counted time). One thread runs it in AnalysisBack;
// with several threads each worker runs it on its calls while their data is
// in its cache, and the merge takes the results (AnalysisBack::call_worked).
#include "analyzers/detectors/detector.h"

#include <memory>
#include <vector>

namespace stallscope {

class CallWork {
public:
    // The call_alone detectors of `all`, in their order (`all` owns them).
    explicit CallWork(const std::vector<std::unique_ptr<Detector>>& all);
    // Their findings on `call` appended to `out`, then the ledger over those
    // findings (account_call): the call's attribution, savings and view.
    void run(Call& call, const Connection& conn, std::vector<Finding>& out) const;

private:
    std::vector<Detector*> detectors_;
};

} // namespace stallscope
