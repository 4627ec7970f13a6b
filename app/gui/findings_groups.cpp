#include "app/gui/findings_groups.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace stallscope::gui {

const char* severityName(Severity s) {
    switch (s) {
    case Severity::Warning: return "Warning";
    case Severity::Note: return "Note";
    case Severity::Info: return "Info";
    }
    return "?";
}

std::vector<FindingGroup> groupFindings(const AnalysisResult& r) {
    std::map<std::pair<std::string, Side>, FindingGroup> by_key;
    std::map<std::pair<std::string, Side>, std::unordered_set<uint64_t>> calls_of;
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        auto key = std::make_pair(f.kind, f.side);
        FindingGroup& g = by_key[key];
        g.kind = f.kind;
        g.side = f.side;
        g.findings.push_back(i);
        g.lost_ms += f.cost_ms;
        calls_of[key].insert(f.calls.begin(), f.calls.end());
    }
    double total_ms = 0;
    for (const Call& c : r.calls) total_ms += c.latency_ms;
    std::vector<FindingGroup> out;
    out.reserve(by_key.size());
    for (auto& [key, g] : by_key) {
        g.calls = calls_of[key].size();
        g.every_call = !r.calls.empty() && g.calls >= r.calls.size();
        std::stable_sort(g.findings.begin(), g.findings.end(),
                         [&](size_t a, size_t b) { return r.findings[a].cost_ms > r.findings[b].cost_ms; });
        g.severity = g.lost_ms <= 0 ? Severity::Info
                     : total_ms > 0 && g.lost_ms >= kWarningShare * total_ms ? Severity::Warning
                                                                              : Severity::Note;
        out.push_back(std::move(g));
    }
    std::stable_sort(out.begin(), out.end(), [](const FindingGroup& a, const FindingGroup& b) {
        if (a.lost_ms != b.lost_ms) return a.lost_ms > b.lost_ms;
        return a.findings.size() > b.findings.size();
    });
    return out;
}

} // namespace stallscope::gui
