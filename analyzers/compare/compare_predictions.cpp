#include "analyzers/compare/compare_predictions.h"

#include "analyzers/accounting/summary.h"

#include <algorithm>
#include <unordered_map>

namespace stallscope {

namespace {

// Share of the capture's calls that findings of (kind, side) name.
double share_hit(const CompareInput& r, const std::string& kind, const std::string& side) {
    if (side.empty() || r.calls == 0) return 0.0;  // a finding's side is never ""
    auto it = r.tallies.find({kind, side});
    return it == r.tallies.end() ? 0.0 : double(it->second.calls.size()) / double(r.calls);
}

using Fixes = std::vector<std::pair<std::string, std::string>>;

// "nagle_delayed_ack" / "client+server" when the fixes are one kind's sides,
// else "combined" / "".
std::pair<std::string, std::string> name_of(const Fixes& fixes) {
    std::string side;
    for (const auto& [kind, s] : fixes) {
        if (kind != fixes.front().first) return {"combined", ""};
        side += (side.empty() ? "" : "+") + s;
    }
    return {fixes.front().first, side};
}

} // namespace

double predicted_median_together(const CompareInput& before, const Fixes& fixes) {
    std::unordered_map<uint64_t, double> removed;   // call id -> ms the fixes remove
    for (const auto& fix : fixes)
        if (auto it = before.savings.find(fix); it != before.savings.end())
            for (const auto& [id, ms] : it->second) removed[id] += ms;
    std::vector<double> v;
    v.reserve(before.complete.size());
    for (const CompareCall& c : before.complete) {
        auto it = removed.find(c.id);
        const double off = it == removed.end() ? 0.0 : std::min(it->second, c.stall_ms);
        v.push_back(std::max(0.0, c.latency_ms - off));
    }
    return latency_stats(std::move(v)).median_ms;
}

std::vector<PredictionCheck> check_predictions(const CompareInput& before, const CompareInput& after) {
    std::vector<PredictionCheck> out;
    const SummaryGroup &b = before.overall, &a = after.overall;
    if (!b.latency.calls || !a.latency.calls) return out;
    bool every_stall_made = true, any_stall = false, all_fixed = true;
    Fixes made;   // the latency fixes AFTER shows as made
    for (const WhatIf& w : b.what_if) {
        if (w.kind == "all_stalls") continue;
        double hit_before = share_hit(before, w.kind, w.side), hit_after = share_hit(after, w.kind, w.side);
        const char* verdict = hit_after == 0 ? "fixed" : hit_after <= 0.8 * hit_before ? "reduced" : nullptr;
        if (!w.client_time) {
            any_stall = true;
            every_stall_made = every_stall_made && verdict;
        }
        if (!verdict) continue;
        const LatencyStats &lb = w.client_time ? b.client_latency : b.latency, &la = w.client_time ? a.client_latency : a.latency;
        out.push_back({w.kind, w.side, verdict, w.client_time, lb.median_ms, w.predicted_median_ms, la.median_ms,
                       w.predicted_median_ms - la.median_ms});
        if (!w.client_time) {
            made.push_back({w.kind, w.side});
            all_fixed = all_fixed && hit_after == 0;
        }
    }
    for (const WhatIf& w : b.what_if)
        if (w.kind == "all_stalls" && any_stall && every_stall_made)
            out.push_back({w.kind, "", "fixed", false, b.latency.median_ms, w.predicted_median_ms, a.latency.median_ms,
                           w.predicted_median_ms - a.latency.median_ms});
    if (made.empty()) return out;
    // What AFTER removed, first: one fix made is its own line; several are
    // predicted together (Nagle fixed on both sides: both holds gone).
    std::sort(made.begin(), made.end());
    if (made.size() == 1) {
        for (auto it = out.begin(); it != out.end(); ++it)
            if (!it->client_time && it->kind == made[0].first && it->side == made[0].second) {
                it->for_after = true;
                std::rotate(out.begin(), it, it + 1);
                break;
            }
        return out;
    }
    const auto [kind, side] = name_of(made);
    const double predicted = predicted_median_together(before, made);
    PredictionCheck p{kind, side, all_fixed ? "fixed" : "reduced", false, b.latency.median_ms, predicted,
                      a.latency.median_ms, predicted - a.latency.median_ms};
    p.fixes = made;
    p.for_after = true;
    out.insert(out.begin(), std::move(p));
    return out;
}

} // namespace stallscope
