#include "analyzers/pipeline/load_figures.h"

#include "analyzers/pipeline/analyze_capture.h"

#include <algorithm>
#include <cmath>

namespace stallscope {

LoadCounters::LoadCounters() : figures(std::make_unique<LoadFiguresSoFar>()) {}
LoadCounters::~LoadCounters() = default;

int log_latency_bin(double ms, int per_decade) {
    return int(std::floor(std::log10(ms) * per_decade + 1e-9));   // 1e-9: an exact edge is its own bin's start
}

// As SummaryBuilder::add_call: complete calls only, the ledger's sums.
void LoadFiguresSoFar::add_call_locked(const Call& c) {
    if (!c.complete || c.id == 0) return;
    ++f_.complete_calls;
    if (c.latency_ms > 0) ++f_.latency_bins[log_latency_bin(c.latency_ms, LoadFigures::kBinsPerDecade)];
    else ++f_.latency_not_positive;
    f_.latency_max_ms = std::max(f_.latency_max_ms, c.latency_ms);
    f_.latency_total_ms += c.latency_ms;
    f_.ledger.add(c);
}

// As SummaryBuilder::add_finding: a finding counts when one of its calls is
// complete, with the time account_finding gives it. Whole microseconds,
// floored, so the sum so far stays below the summary's exact one.
void LoadFiguresSoFar::add_finding_locked(const Finding& f, size_t complete_calls) {
    if (complete_calls == 0) return;
    Finding counted = f;
    account_finding(counted, complete_calls);
    LoadFigures::Kind& k = f_.kinds[f.kind];
    ++k.findings;
    k.lost_us += int64_t(std::floor(counted.counted_ms * 1000.0));
    k.lost_ms = double(k.lost_us) / 1000.0;
}

void LoadFiguresSoFar::finish(const SummaryGroup& overall) {
    std::lock_guard lock(mu_);
    f_.kinds.clear();
    for (const KindLoss& k : overall.losses) f_.kinds[k.kind] = {k.findings, k.lost_ms, int64_t(std::floor(k.lost_ms * 1000.0))};
    f_.ended = true;
}

LoadFigures LoadFiguresSoFar::get() const {
    std::lock_guard lock(mu_);
    return f_;
}

} // namespace stallscope
