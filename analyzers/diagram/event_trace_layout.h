#pragma once
// Layout of an event-trace diagram (the seed's Figures 2 and 3): client and
// server as two vertical lanes, time going down, one arrow per segment,
// stalls marked. Pure geometry in abstract pixels: the cairo exporter
// (SVG/PDF/PNG) and the Qt view both draw exactly this, so what a user sees
// on screen is what they export.
#include "analyzers/diagram/time_axis.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope {

struct TraceArrow {
    uint64_t frame = 0;
    int64_t ts_ns = 0;
    Side from = Side::Client;
    double y_from = 0, y_to = 0;   // the arrow leaves the sender's lane at y_from and lands at y_to
    uint8_t flags = 0;
    uint32_t len = 0;
    uint16_t carries = 0;
    bool retransmission = false;
    bool evidence = false;          // frame is evidence of a finding
    std::string label;              // e.g. "#12 [P.] 312 B headers"
    std::string time_label;         // e.g. "+0.512 ms"
    // Additive fields:
    double x_from = 0, x_to = 0;    // lane x of sender and receiver
    bool pure_ack = false;          // no payload and no SYN/FIN/RST
};

struct TraceStall {
    double y_start = 0, y_end = 0;
    Side side = Side::Client;       // lane that waited
    std::string kind;               // finding kind
    std::string label;              // e.g. "Nagle / delayed ACK 40.2 ms"
    // Additive fields:
    int64_t start_ns = 0, end_ns = 0;
    double cost_ms = 0;
    int column = 0;                 // 0 = next to the lane; overlapping stalls step outwards
    double x = 0;                   // x of the bracket's spine
    double label_y = 0;             // vertical centre of the label (kept apart from other labels)
};

struct TraceBreak {                 // an idle stretch of time cut out of the axis
    double y = 0;
    std::string label;              // e.g. "… 1.2 s idle …"
    // Additive fields:
    double y_end = 0;               // the cut spans [y, y_end]
    int64_t from_ns = 0, to_ns = 0;
    bool idle = true;               // false: a stall covers it (time was compressed, not idle)
};

struct EventTraceLayout {
    double width = 0, height = 0;
    double client_x = 0, server_x = 0;
    double top = 0;                 // y of time zero
    std::string title;
    std::string client_name, server_name;  // endpoint strings
    std::vector<TraceArrow> arrows;
    std::vector<TraceStall> stalls;
    std::vector<TraceBreak> breaks;
    // Additive fields:
    TimeAxis axis;                  // capture time <-> y (for hover, highlighting)
    double lanes_top = 0;           // lanes start here (below title, legend, headers)
    double lanes_bottom = 0;        // and end here
    double time_label_x = 0;        // right edge of the time-label column
    double label_zone = 0;          // width beside each lane for stall labels
    int64_t t0_ns = 0;              // time of the first segment (time labels are relative to it)
    double px_per_ms = 0;           // > 0: the time axis is linear (to scale), this many px per ms
};

struct EventTraceOptions {
    double width = 960;
    // Additive fields (tuning the time axis; defaults read well from 1 to
    // thousands of segments):
    double row_height = 26;         // minimum vertical distance between two segments
    double transit = 9;             // visual slope of an arrow (one capture point: no real transit)
    int64_t break_after_ns = 1'000'000'000;  // idle longer than this is cut out of the axis
    double break_height = 44;
    // Evidence frames are highlighted for findings that cost at least this
    // share of the costliest finding shown, so a 0.02 ms handshake does not
    // drown a 40 ms stall; findings without a cost never highlight on their
    // own. 0 = every finding's frames.
    double evidence_min_share = 0.05;
    // A true time scale ("--time-axis linear"): y grows with time, so a 44 ms
    // stall looks 44 ms long; labels of arrows too close to the one above
    // are left out. px_per_ms 0 = chosen so the lanes are about 500-1400 px.
    bool linear_time = false;
    double px_per_ms = 0;
    bool highlight_evidence = true; // false: no yellow evidence markers (--no-highlight)
};

// The note under the legend: how the time axis reads.
std::string time_axis_note(const EventTraceLayout& layout);

// Segments are those of one call or one connection (Call::segments);
// findings are drawn where their [start_ns, end_ns] overlaps the segments.
EventTraceLayout layout_event_trace(const std::vector<SegmentInfo>& segments,
                                    const std::vector<Finding>& findings,
                                    const std::string& title,
                                    const std::string& client_name,
                                    const std::string& server_name,
                                    const EventTraceOptions& options = {});

} // namespace stallscope
