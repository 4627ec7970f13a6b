#pragma once
// The data of the "Over time" view, Wireshark I/O-graph style: each call's
// latency at its start time, and per interval the stalls that began in it,
// the time they cost and the calls that started. Pure, no Qt.
#include "app/gui/loaded_result.h"

#include <cstdint>
#include <vector>

namespace stallscope::gui {

struct LatencyPoint {
    double offset_ns = 0;     // call start - capture start
    double latency_ms = 0;    // > 0 (complete calls only)
    uint64_t call_id = 0;
    bool stalled = false;     // a finding with time lost touches this call
};

struct IntervalBucket {
    double start_ns = 0;      // offset from capture start
    uint32_t calls = 0;       // calls that started in it
    uint32_t stalls = 0;      // findings with time lost that began in it
    double lost_ms = 0;       // their counted_ms (the call ledger's, each ms once)
};

struct OverTimeSeries {
    int64_t origin_ns = 0, end_ns = 0;   // capture start and end (or first/last call)
    std::vector<LatencyPoint> points;    // by start time
    double min_ms = 0, max_ms = 0;       // over the points
    // Buckets of `interval_ns` over [from, to) offsets.
    std::vector<IntervalBucket> buckets(double from_ns, double to_ns, double interval_ns) const;
    static OverTimeSeries build(const LoadedResult& r);

private:
    struct Stall { double offset_ns; double counted_ms; };
    std::vector<Stall> stalls_;          // by start time
    std::vector<double> call_starts_;    // every call's start offset, sorted
};

} // namespace stallscope::gui
