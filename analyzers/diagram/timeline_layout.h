#pragma once
// Layout of the timeline (waterfall): one row per call, its phases as
// coloured bars on one shared time axis, stalls from findings laid over.
// Idle stretches between calls are compressed into breaks so a capture of
// short calls spread over minutes still shows each call. Pure geometry: the
// cairo exporter and the Qt view draw the same thing.
#include "analyzers/diagram/time_axis.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope {

struct TimelineBar {
    PhaseKind kind = PhaseKind::Connect;
    int64_t start_ns = 0, end_ns = 0;
    double x0 = 0, x1 = 0;          // x1 - x0 >= min_bar_width so short phases stay visible
};

struct TimelineStall {
    std::string kind;
    std::string label;              // "Nagle / delayed ACK: 40.2 ms"
    int64_t start_ns = 0, end_ns = 0;
    double x0 = 0, x1 = 0;
    double cost_ms = 0;
};

struct TimelineRow {
    uint64_t call_id = 0;
    double y = 0, height = 0;       // the bar band of this row
    std::string label;              // "#3 doNothing"
    std::string latency_label;      // "41.3 ms" or "incomplete"
    std::vector<TimelineBar> phases;
    std::vector<TimelineStall> stalls;  // costliest first
};

struct TimelineBreak {              // a compressed idle gap on the axis
    double x0 = 0, x1 = 0;
    int64_t from_ns = 0, to_ns = 0;
    std::string label;              // "5.20 s"
};

struct TimelineTick {
    double x = 0;
    std::string label;              // "+100 ms"
};

struct TimelineLayout {
    double width = 0, height = 0;
    double plot_left = 0, plot_right = 0;  // x range of the time axis
    double rows_top = 0;                   // y of the first row
    std::string title;
    int64_t t0_ns = 0;                     // time zero of the tick labels
    TimeAxis axis;                         // capture time <-> x
    std::vector<TimelineRow> rows;
    std::vector<TimelineBreak> breaks;
    std::vector<TimelineTick> ticks;
    size_t calls_total = 0;                // calls in the result (rows may be fewer: max_rows)
    // Which calls the rows are when a selection left some out ("the 200
    // slowest calls", "calls in 10 s - 20 s"), and the line under the rows
    // saying what is not shown; both empty without a selection.
    std::string selection;
    std::string left_out;
};

struct TimelineOptions {
    double width = 1200;
    double row_height = 20;
    double label_width = 220;
    double min_bar_width = 1.5;
    double break_width = 18;
    size_t max_rows = 0;                   // 0 = every call (else the first max_rows of those selected)
    // A readable figure of a big capture: only the `slowest` calls (complete
    // ones by latency, incomplete ones by how long they were seen), and/or
    // only calls that overlap [window_from_ns, window_to_ns] counted from the
    // capture's first packet. Rows stay in call order. Read in two passes
    // over the calls, holding only the rows shown (spilled results too).
    size_t slowest = 0;                    // 0 = no such selection
    bool window = false;
    int64_t window_from_ns = 0, window_to_ns = 0;
};

// Builds the time axis over the intervals [start, end] (sorted or not) so that
// they fill [x0, x1]: time inside intervals is linear, and a gap between them
// longer than break_width at that scale is compressed to break_width. The
// compressed gaps are returned. Exposed for the tests and the GUI's zoom.
TimeAxis build_compressed_axis(std::vector<std::pair<int64_t, int64_t>> intervals, double x0, double x1,
                               double break_width, std::vector<std::pair<int64_t, int64_t>>* breaks = nullptr);

TimelineLayout layout_timeline(const AnalysisResult& result, const TimelineOptions& options = {});

} // namespace stallscope
