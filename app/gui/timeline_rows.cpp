#include "app/gui/timeline_rows.h"

#include "analyzers/accounting/call_ledger.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace stallscope::gui {

TimelineRows TimelineRows::build(const LoadedResult& r, const std::unordered_set<uint64_t>& only,
                                 bool show_all) {
    TimelineRows out;
    std::unordered_map<uint64_t, size_t> row_of_id;
    for (size_t i = 0; i < r.callCount(); ++i) {
        const CallKey& c = r.callKey(i);
        if (!(show_all && only.empty()) && !only.count(c.id)) continue;
        TimelineRow row;
        row.call = i;
        row.call_id = c.id;
        row.start_ns = c.span_start_ns;
        row.end_ns = c.span_end_ns;
        out.rows.push_back(std::move(row));
    }
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
        return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.call_id < b.call_id;
    });
    for (size_t i = 0; i < out.rows.size(); ++i) row_of_id[out.rows[i].call_id] = i;

    // Each row draws the stretches the ledger counts (an overlap once, under
    // the finding that takes precedence), none shorter than kMinStallBracketMs:
    // the same brackets as the exported diagrams. A finding whose counted time
    // fills its start..end is drawn from its key; only the others are read.
    std::vector<std::vector<size_t>> findings_of(out.rows.size());
    for (size_t f = 0; f < r.findingCount(); ++f) {
        const FindingKey& fd = r.findingKey(f);
        if (fd.end_ns <= fd.start_ns || fd.calls == 0 || !r.isStall(fd)) continue;   // server processing is no stall
        auto add = [&](uint64_t id) {
            if (auto it = row_of_id.find(id); it != row_of_id.end()) findings_of[it->second].push_back(f);
        };
        if (fd.calls == 1) add(fd.first_call);   // most findings: no read
        else
            for (uint64_t id : r.finding(f)->calls) add(id);
    }
    for (size_t i = 0; i < out.rows.size(); ++i) addCountedStalls(r, findings_of[i], out.rows[i]);
    if (!out.rows.empty()) {
        out.start_ns = out.rows.front().start_ns;
        out.end_ns = out.rows.front().end_ns;
        for (const TimelineRow& row : out.rows) {
            out.start_ns = std::min(out.start_ns, row.start_ns);
            out.end_ns = std::max(out.end_ns, row.end_ns);
            for (const TimelineStall& s : row.stalls) {
                out.start_ns = std::min(out.start_ns, s.start_ns);
                out.end_ns = std::max(out.end_ns, s.end_ns);
            }
        }
    }
    return out;
}

void TimelineRows::addCountedStalls(const LoadedResult& r, const std::vector<size_t>& findings, TimelineRow& row) {
    std::vector<std::shared_ptr<const Finding>> read;   // the row's findings, when one was cut by another
    std::vector<const Finding*> all;
    for (size_t f : findings) {
        const FindingKey& fd = r.findingKey(f);
        if (fd.counted_ms < kMinStallBracketMs) continue;   // every piece of it is shorter still
        if (std::abs(double(fd.end_ns - fd.start_ns) / 1e6 - fd.counted_ms) < 1e-3) {   // one whole stretch
            row.stalls.push_back({f, fd.start_ns, fd.end_ns, fd.counted_ms});
            continue;
        }
        if (read.empty())
            for (size_t g : findings) {
                read.push_back(r.finding(g));
                all.push_back(read.back().get());
            }
        const Finding* self = all[size_t(std::find(findings.begin(), findings.end(), f) - findings.begin())];
        for (const Finding::Interval& iv : counted_intervals(*self, all)) {
            const double ms = double(iv.end_ns - iv.start_ns) / 1e6;
            if (ms >= kMinStallBracketMs) row.stalls.push_back({f, iv.start_ns, iv.end_ns, ms});
        }
    }
}

std::optional<size_t> TimelineRows::rowOfCall(uint64_t call_id) const {
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].call_id == call_id) return i;
    return std::nullopt;
}

std::optional<size_t> rowAtY(double y, double top, double row_height, size_t row_count) {
    if (row_height <= 0 || y < top) return std::nullopt;
    const double idx = std::floor((y - top) / row_height);
    if (idx >= double(row_count)) return std::nullopt;
    return size_t(idx);
}

std::optional<size_t> phaseAt(const Call& c, int64_t t) {
    for (size_t i = 0; i < c.phases.size(); ++i)
        if (c.phases[i].start_ns <= t && t <= c.phases[i].end_ns) return i;
    return std::nullopt;
}

std::optional<size_t> stallAt(const TimelineRow& row, int64_t t, int64_t tol) {
    for (size_t i = 0; i < row.stalls.size(); ++i)
        if (row.stalls[i].start_ns - tol <= t && t <= row.stalls[i].end_ns + tol) return i;
    return std::nullopt;
}

} // namespace stallscope::gui
