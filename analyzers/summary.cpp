#include "analyzers/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace stallscope {

std::string operation_key(const Call& c) {
    if (!c.soap.operation.empty()) return c.soap.operation;
    std::string path = c.uri.substr(0, c.uri.find('?'));
    return c.method.empty() ? std::string("(no request line)") : c.method + " " + path;
}

namespace {
// Nearest-rank percentile on a sorted vector.
double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    size_t rank = size_t(std::ceil(p * double(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}
double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
} // namespace

LatencyStats latency_stats(std::vector<double> v) {
    LatencyStats s;
    s.calls = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.median_ms = median(v);
    s.p90_ms = percentile(v, 0.9);
    s.max_ms = v.back();
    for (double x : v) s.total_ms += x;
    s.mean_ms = s.total_ms / double(v.size());
    return s;
}

namespace {
SummaryGroup group_of(const std::string& op, const std::vector<const Call*>& calls,
                      const std::unordered_map<uint64_t, std::vector<const Finding*>>& by_call) {
    SummaryGroup g;
    g.operation = op;
    std::vector<double> lat, predicted;
    std::map<std::string, KindLoss> losses;
    std::unordered_set<const Finding*> seen_findings;  // a finding on several calls counts once
    for (const Call* c : calls) {
        if (!c->complete) continue;
        lat.push_back(c->latency_ms);
        double lost = 0;
        auto it = by_call.find(c->id);
        if (it != by_call.end()) {
            std::map<std::string, bool> kinds_on_call;
            for (const Finding* f : it->second) {
                // A finding shared by several calls costs each its share.
                double share = f->cost_ms / double(std::max<size_t>(1, f->calls.size()));
                KindLoss& k = losses[f->kind];
                k.kind = f->kind;
                k.lost_ms += share;
                if (seen_findings.insert(f).second) ++k.findings;
                if (!kinds_on_call[f->kind]) { kinds_on_call[f->kind] = true; ++k.calls; }
                // Only time inside the call's latency window can come off it:
                // a handshake (connection_setup) happens before the first
                // request byte, so fixing it does not shorten `latency_ms`.
                int64_t s0 = std::max(f->start_ns, c->start_ns), s1 = std::min(f->end_ns, c->end_ns);
                double inside_ms = s1 > s0 ? double(s1 - s0) / 1e6 : 0.0;
                lost += std::min(share, inside_ms);
            }
        }
        predicted.push_back(std::max(0.0, c->latency_ms - lost));
    }
    g.latency = latency_stats(lat);
    for (auto& [kind, k] : losses) {
        k.share = g.latency.total_ms > 0 ? k.lost_ms / g.latency.total_ms : 0;
        g.losses.push_back(k);
    }
    std::sort(g.losses.begin(), g.losses.end(), [](auto& a, auto& b) { return a.lost_ms > b.lost_ms; });
    g.predicted_median_ms = median(predicted);
    for (double x : predicted) g.predicted_total_ms += x;
    return g;
}
} // namespace

Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings) {
    // Findings that are about cost but not stalls (message size) must not
    // be subtracted from latency; detectors give those cost 0.
    std::unordered_map<uint64_t, std::vector<const Finding*>> by_call;
    for (const Finding& f : findings)
        for (uint64_t id : f.calls) by_call[id].push_back(&f);
    Summary s;
    std::vector<const Call*> all;
    std::map<std::string, std::vector<const Call*>> per_op;
    for (const Call& c : calls) {
        all.push_back(&c);
        per_op[operation_key(c)].push_back(&c);
    }
    s.overall = group_of("", all, by_call);
    for (auto& [op, cs] : per_op) s.per_operation.push_back(group_of(op, cs, by_call));
    return s;
}

} // namespace stallscope
