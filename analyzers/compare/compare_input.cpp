#include "analyzers/compare/compare_input.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/result_spill.h"

#include <algorithm>
#include <unordered_map>

namespace stallscope {

const std::vector<std::string>& size_bucket_names() {
    static const std::vector<std::string> n = {"<1 KiB", "1-10 KiB", "10-100 KiB", "100 KiB-1 MiB", ">=1 MiB"};
    return n;
}

uint8_t size_bucket_index(const Call& c) {
    uint64_t b = c.request.body_bytes + c.response.body_bytes;
    if (b < 1024) return 0;
    if (b < 10 * 1024) return 1;
    if (b < 100 * 1024) return 2;
    if (b < 1024 * 1024) return 3;
    return 4;
}

CompareInput compare_input(const AnalysisResult& r) {
    CompareInput in;
    in.file = r.capture.file;
    for (const CaptureFile& f : r.capture.files) in.files.push_back(f.path);
    in.calls = call_count(r);
    in.connections = connection_count(r);
    in.findings = finding_count(r);
    if (r.capture.last_ns > r.capture.first_ns) in.duration_ms = double(r.capture.last_ns - r.capture.first_ns) / 1e6;
    in.overall = r.summary.overall;

    std::unordered_map<std::string, uint32_t> op_index;
    for_each_call(r, [&](const Call& c) {
        if (!c.complete) return true;
        CompareCall k;
        k.id = c.id;
        k.latency_ms = c.latency_ms;
        k.stall_ms = stall_ms(c);
        for (const FixSaving& fs : c.savings)
            if (fs.ms > 0) in.savings[{fs.kind, side_name(fs.side)}].push_back({c.id, fs.ms});
        for (const Phase& p : c.phases)
            if (p.kind == PhaseKind::ServerTime) k.server_ms += p.duration_ms();
        auto [it, added] = op_index.try_emplace(operation_key(c), uint32_t(in.operations.size()));
        if (added) in.operations.push_back(it->first);
        k.operation = it->second;
        k.bucket = size_bucket_index(c);
        in.complete.push_back(k);
        return true;
    });
    // for_each_call gives id order when spilled; the vector is sorted by id
    // too, but a stable sort costs nothing and makes it a property here.
    std::stable_sort(in.complete.begin(), in.complete.end(),
                     [](const CompareCall& a, const CompareCall& b) { return a.id < b.id; });
    in.complete.shrink_to_fit();

    KindTotals totals;  // the ledger's part: an overlap once, under its root (as the report's Summary)
    std::map<std::string, Side> side_of_name;
    for_each_finding(r, [&](const Finding& f) {
        if (std::find(in.kinds.begin(), in.kinds.end(), f.kind) == in.kinds.end()) in.kinds.push_back(f.kind);
        totals.add(f);
        side_of_name[side_name(f.side)] = f.side;
        for (const std::string& side : {std::string(), std::string(side_name(f.side))}) {
            FindingTally& t = in.tallies[{f.kind, side}];
            ++t.findings;
            t.calls.insert(t.calls.end(), f.calls.begin(), f.calls.end());
            // Findings repeat calls (one per write, per stall): dedupe as
            // the list doubles, so it stays near the distinct calls.
            if (t.calls.size() >= t.compact_at) {
                std::sort(t.calls.begin(), t.calls.end());
                t.calls.erase(std::unique(t.calls.begin(), t.calls.end()), t.calls.end());
                t.compact_at = std::max<size_t>(4096, 2 * t.calls.size());
            }
        }
        return true;
    });
    for (auto& [key, t] : in.tallies) {
        t.lost_ms = key.second.empty() ? totals.ms(key.first) : totals.ms(key.first, side_of_name[key.second]);
        std::sort(t.calls.begin(), t.calls.end());
        t.calls.erase(std::unique(t.calls.begin(), t.calls.end()), t.calls.end());
        t.calls.shrink_to_fit();
    }
    return in;
}

} // namespace stallscope
