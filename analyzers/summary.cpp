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

uint32_t SummaryBuilder::kind_bit(const std::string& kind) {
    for (size_t i = 0; i < kinds_.size(); ++i)
        if (kinds_[i] == kind) return uint32_t(1) << i;
    if (kinds_.size() >= 32) return 0;  // more kinds than bits: calls per kind stop being counted
    kinds_.push_back(kind);
    return uint32_t(1) << (kinds_.size() - 1);
}

void SummaryBuilder::add_call(const Call& c) {
    // Every call names its operation's row, even one with no complete call.
    std::string op = operation_key(c);
    auto [it, added] = op_index_.try_emplace(op, uint32_t(ops_.size()));
    if (added) ops_.push_back(op);
    if (!c.complete || c.id == 0) return;  // incomplete calls have no latency to summarise
    if (c.id > calls_.size()) calls_.resize(c.id);
    CallRec& r = calls_[c.id - 1];
    r.complete = true;
    r.op = it->second;
    r.latency_ms = c.latency_ms;
    r.start_ns = c.start_ns;
    r.end_ns = c.end_ns;
}

void SummaryBuilder::add_finding(const Finding& f) {
    // Findings that are about cost but not stalls (message size) must not
    // be subtracted from latency; detectors give those cost 0.
    if (groups_.size() < ops_.size() + 1) groups_.resize(ops_.size() + 1);
    double share = f.cost_ms / double(std::max<size_t>(1, f.calls.size()));  // a shared finding costs each its share
    uint32_t bit = kind_bit(f.kind);
    std::vector<size_t> counted;  // groups this finding was counted in: once per group
    for (uint64_t id : f.calls) {
        if (id == 0 || id > calls_.size() || !calls_[id - 1].complete) continue;
        CallRec& c = calls_[id - 1];
        for (size_t g : {size_t(0), size_t(c.op) + 1}) {
            KindLoss& k = groups_[g].losses[f.kind];
            k.kind = f.kind;
            k.lost_ms += share;
            if (std::find(counted.begin(), counted.end(), g) == counted.end()) ++k.findings;
            if (!(c.kinds & bit)) ++k.calls;
        }
        counted.push_back(0);
        counted.push_back(size_t(c.op) + 1);
        c.kinds |= bit;
        // Only time inside the call's latency window can come off it: a
        // handshake (connection_setup) happens before the first request
        // byte, so fixing it does not shorten `latency_ms`.
        int64_t s0 = std::max(f.start_ns, c.start_ns), s1 = std::min(f.end_ns, c.end_ns);
        double inside_ms = s1 > s0 ? double(s1 - s0) / 1e6 : 0.0;
        c.lost_ms += std::min(share, inside_ms);
    }
}

Summary SummaryBuilder::build() const {
    // Latency and predicted values per group, in call order.
    std::vector<std::vector<double>> lat(ops_.size() + 1), predicted(ops_.size() + 1);
    for (const CallRec& c : calls_) {
        if (!c.complete) continue;
        double p = std::max(0.0, c.latency_ms - c.lost_ms);
        for (size_t g : {size_t(0), size_t(c.op) + 1}) {
            lat[g].push_back(c.latency_ms);
            predicted[g].push_back(p);
        }
    }
    auto group = [&](size_t g, const std::string& op) {
        SummaryGroup out;
        out.operation = op;
        out.latency = latency_stats(lat[g]);
        if (g < groups_.size())
            for (auto [kind, k] : groups_[g].losses) {
                k.share = out.latency.total_ms > 0 ? k.lost_ms / out.latency.total_ms : 0;
                out.losses.push_back(k);
            }
        std::sort(out.losses.begin(), out.losses.end(), [](auto& a, auto& b) { return a.lost_ms > b.lost_ms; });
        out.predicted_median_ms = median(predicted[g]);
        for (double x : predicted[g]) out.predicted_total_ms += x;
        return out;
    };
    Summary s;
    s.overall = group(0, "");
    std::map<std::string, size_t> by_name;  // per-operation rows in name order
    for (size_t i = 0; i < ops_.size(); ++i) by_name[ops_[i]] = i + 1;
    for (auto& [op, g] : by_name) s.per_operation.push_back(group(g, op));
    return s;
}

Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings) {
    SummaryBuilder b;
    for (const Call& c : calls) b.add_call(c);
    for (const Finding& f : findings) b.add_finding(f);
    return b.build();
}

} // namespace stallscope
