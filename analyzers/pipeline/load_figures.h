#pragma once
// The overview's figures for the calls an analysis has finished so far, for
// a front end to show while a big capture loads (the desktop app's Overview
// fills in from them, issue 27). Small and bounded whatever the capture:
// latency counts per log bin, the call ledger's partition summed by cause,
// time counted per finding kind. The back stage adds each finished call
// (one thread, also with --threads N: the merge feeds it); a front end
// copies them from another thread. At the end they are the result's.
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>

namespace stallscope {

// The log latency bin of `ms` with `per_decade` bins a decade: bin k holds
// [10^(k / per_decade), 10^((k + 1) / per_decade)) ms. For ms > 0 only.
int log_latency_bin(double ms, int per_decade);

struct LoadFigures {
    static constexpr int kBinsPerDecade = 4;   // the Overview histogram's
    uint64_t complete_calls = 0;               // calls with a latency (the ones below are of these)
    std::map<int, uint64_t> latency_bins;      // complete calls per log_latency_bin (at most ~2,600 bins)
    uint64_t latency_not_positive = 0;         // latency 0 (the histogram's first bin)
    double latency_max_ms = 0;
    double latency_total_ms = 0;
    LedgerTotals ledger;                       // the partition summed: the summary's avoidable, server, transfer
    struct Kind {
        uint64_t findings = 0;                 // findings on a complete call
        double lost_ms = 0;                    // their counted time (so far: lost_us; at the end the summary's)
        int64_t lost_us = 0;                   // so far: each finding's, floored to the microsecond
    };
    std::map<std::string, Kind> kinds;         // by finding kind
    bool ended = false;                        // the result's figures: the analysis ended
};

class LoadFiguresSoFar {
public:
    // A finished call and the findings the detectors just made (counted as the
    // summary counts them; a finding on a call not yet finished counts at the end).
    // `complete_calls(f)`: how many of f.calls have finished complete.
    template <class CompleteCalls>
    void add(const Call* call, std::span<const Finding> findings, CompleteCalls&& complete_calls);
    // The result's own per-kind figures, once the analysis ended.
    void finish(const SummaryGroup& overall);
    LoadFigures get() const;

private:
    void add_call_locked(const Call& c);
    void add_finding_locked(const Finding& f, size_t complete_calls);

    mutable std::mutex mu_;
    LoadFigures f_;
};

template <class CompleteCalls>
void LoadFiguresSoFar::add(const Call* call, std::span<const Finding> findings, CompleteCalls&& complete_calls) {
    std::lock_guard lock(mu_);
    if (call) add_call_locked(*call);
    for (const Finding& f : findings) add_finding_locked(f, complete_calls(f));
}

} // namespace stallscope
