#include "app/gui/findings_groups.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/finding_kinds.h"

#include <algorithm>
#include <map>

namespace stallscope::gui {

const char* severityName(Severity s) {
    switch (s) {
    case Severity::Warning: return "Warning";
    case Severity::Note: return "Note";
    case Severity::Info: return "Info";
    }
    return "?";
}

std::vector<FindingGroup> groupFindings(const LoadedResult& r) {
    std::map<std::pair<uint16_t, Side>, FindingGroup> by_key;
    std::map<std::pair<uint16_t, Side>, std::vector<bool>> calls_of;   // by call row
    KindTotals totals;   // the ledger's time, an overlap once: the same total as the reports'
    for (size_t i = 0; i < r.findingCount(); ++i) {
        const FindingKey& f = r.findingKey(i);
        auto key = std::make_pair(f.kind, f.side);
        FindingGroup& g = by_key[key];
        g.kind = r.kinds()[f.kind];
        g.side = f.side;
        g.findings.push_back(i);
        totals.add(g.kind, f.side, f.counted_ms);
        auto& seen = calls_of[key];
        if (seen.empty()) seen.resize(r.callCount());
        if (f.calls == 0) continue;
        auto mark = [&](uint64_t id) {
            if (int row = r.rowOfCall(id); row >= 0 && !seen[size_t(row)]) {
                seen[size_t(row)] = true;
                g.calls++;
            }
        };
        if (f.calls <= 2) {   // the keys name the first and the last call
            mark(f.first_call);
            mark(f.last_call);
        } else {
            for (uint64_t id : r.finding(i)->calls) mark(id);
        }
    }
    const double total_ms = r.totalLatencyMs();
    std::vector<FindingGroup> out;
    out.reserve(by_key.size());
    for (auto& [key, g] : by_key) {
        g.lost_ms = totals.ms(g.kind, g.side);
        g.every_call = r.callCount() > 0 && g.calls >= r.callCount();
        std::stable_sort(g.findings.begin(), g.findings.end(),
                         [&](size_t a, size_t b) { return r.findingKey(a).counted_ms > r.findingKey(b).counted_ms; });
        g.stall = is_stall_kind(g.kind);
        g.severity = g.lost_ms <= 0 || !g.stall ? Severity::Info
                     : total_ms > 0 && g.lost_ms >= kWarningShare * total_ms ? Severity::Warning
                                                                              : Severity::Note;
        out.push_back(std::move(g));
    }
    std::stable_sort(out.begin(), out.end(), [](const FindingGroup& a, const FindingGroup& b) {
        if (a.stall != b.stall) return a.stall;   // time lost first; server processing is not
        if (a.lost_ms != b.lost_ms) return a.lost_ms > b.lost_ms;
        return a.findings.size() > b.findings.size();
    });
    return out;
}

} // namespace stallscope::gui
