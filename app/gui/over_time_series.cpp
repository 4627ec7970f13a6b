#include "app/gui/over_time_series.h"

#include <algorithm>
#include <cmath>

namespace stallscope::gui {

OverTimeSeries OverTimeSeries::build(const LoadedResult& r) {   // the keys only
    OverTimeSeries s;
    const auto& calls = r.callKeys();
    int64_t lo = r.capture.first_ns, hi = r.capture.last_ns;
    for (const CallKey& c : calls) {   // captures without timestamps in the header: span the calls
        if (lo == 0 || c.start_ns < lo) lo = c.start_ns;
        hi = std::max(hi, c.end_ns);
    }
    s.origin_ns = lo;
    s.end_ns = std::max(hi, lo + 1);
    s.min_ms = HUGE_VAL;
    for (const CallKey& c : calls) {
        if (!c.complete() || c.latency_ms <= 0) continue;
        s.points.push_back({double(c.start_ns - lo), c.latency_ms, c.id, c.stalled()});
        s.min_ms = std::min(s.min_ms, c.latency_ms);
        s.max_ms = std::max(s.max_ms, c.latency_ms);
    }
    if (s.points.empty()) s.min_ms = s.max_ms = 0;
    std::stable_sort(s.points.begin(), s.points.end(), [](const LatencyPoint& a, const LatencyPoint& b) { return a.offset_ns < b.offset_ns; });
    for (size_t i = 0; i < r.findingCount(); ++i) {
        const FindingKey& f = r.findingKey(i);
        if (f.counted_ms <= 0 || !r.isStall(f)) continue;   // the ledger's time lost: an overlap once, no server processing
        int64_t t = f.start_ns;
        if (t == 0 && f.calls > 0)   // no stall interval: the start of its first call
            if (int row = r.rowOfCall(f.first_call); row >= 0) t = calls[size_t(row)].start_ns;
        s.stalls_.push_back({double(t - lo), f.counted_ms});
    }
    std::sort(s.stalls_.begin(), s.stalls_.end(), [](const Stall& a, const Stall& b) { return a.offset_ns < b.offset_ns; });
    // Every call, complete or not, counts towards calls per interval.
    s.call_starts_.reserve(calls.size());
    for (const CallKey& c : calls) s.call_starts_.push_back(double(c.start_ns - lo));
    std::sort(s.call_starts_.begin(), s.call_starts_.end());
    return s;
}

std::vector<IntervalBucket> OverTimeSeries::buckets(double from, double to, double interval) const {
    std::vector<IntervalBucket> out;
    if (!(interval > 0) || !(to > from)) return out;
    const size_t n = size_t(std::min(100000.0, std::ceil((to - from) / interval)));
    out.resize(n);
    for (size_t i = 0; i < n; ++i) out[i].start_ns = from + double(i) * interval;
    auto index = [&](double t) -> long { return t < from || t >= to ? -1 : std::min(long(n) - 1, long((t - from) / interval)); };
    for (auto it = std::lower_bound(call_starts_.begin(), call_starts_.end(), from); it != call_starts_.end() && *it < to; ++it)
        if (long i = index(*it); i >= 0) out[size_t(i)].calls++;
    for (const Stall& st : stalls_)
        if (long i = index(st.offset_ns); i >= 0) {
            out[size_t(i)].stalls++;
            out[size_t(i)].lost_ms += st.counted_ms;
        }
    return out;
}

} // namespace stallscope::gui
