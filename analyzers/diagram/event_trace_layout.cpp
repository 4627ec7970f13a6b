#include "analyzers/diagram/event_trace_layout.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/finding_kinds.h"

#include <cstdio>

#include "analyzers/diagram/diagram_text.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace stallscope {
namespace {

// Vertical space a silence of dt gets on top of the minimum row: square-root
// growth up to 100 ms (a 40 ms stall clearly dwarfs sub-millisecond gaps),
// logarithmic beyond, so a single long wait cannot swallow the page.
double gap_extra(int64_t dt_ns) {
    if (dt_ns <= 0) return 0;
    double ms = double(dt_ns) / 1e6;
    if (ms <= 100) return 30 * std::sqrt(ms);
    return 300 + 60 * std::log2(ms / 100);
}

bool is_pure_ack(const SegmentInfo& s) {
    return s.len == 0 && !(s.flags & (tcpflag::kSyn | tcpflag::kFin | tcpflag::kRst));
}

std::string arrow_label(const SegmentInfo& s) {
    std::string label = "#" + std::to_string(s.frame) + " " + tcp_flags_text(s.flags);
    if (s.len > 0) {
        label += " " + std::to_string(s.len) + " B";
        if (s.carries) label += " " + carries_label(s.carries);
    } else if (is_pure_ack(s)) {
        label += " " + carries_label(0);
    }
    if (s.probe == probe::kKeepAlive) label += " (keep-alive)";
    else if (s.probe == probe::kZeroWindowProbe) label += " (zero-window probe)";
    else if (s.retransmission) label += " (retransmission)";
    else if (s.out_of_order) label += " (out of order)";
    return label;
}

// The lane that waited through a stall: whoever sends the first data after
// it ended had that data held back (the client's body in the seed's Fig. 2,
// the server's response in Fig. 3). Falls back to the side the finding blames.
Side waiting_side(const std::vector<const SegmentInfo*>& segs, const Finding& f) {
    for (const SegmentInfo* s : segs)
        if (s->ts_ns >= f.end_ns && s->len > 0) return s->from;
    return f.side;
}

std::string idle_text(int64_t dt_ns, bool idle) {
    std::string d = format_ms(double(dt_ns) / 1e6);
    return idle ? "\u2026 " + d + " idle \u2026" : "\u2026 " + d + " \u2026";
}

// Segments in time order, each frame once (a connection's calls may share
// the handshake or a segment carrying the end of one and start of the next).
std::vector<const SegmentInfo*> unique_in_time_order(const std::vector<SegmentInfo>& segments) {
    std::vector<const SegmentInfo*> segs;
    segs.reserve(segments.size());
    std::unordered_set<uint64_t> seen;
    for (const auto& s : segments)
        if (s.frame == 0 || seen.insert(s.frame).second) segs.push_back(&s);
    std::stable_sort(segs.begin(), segs.end(), [](const SegmentInfo* a, const SegmentInfo* b) {
        return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->frame < b->frame;
    });
    return segs;
}

// Horizontal: time labels | client stall labels | client lane ... server lane | server stall labels.
// Vertical: title, legend, lane headers, then the lanes.
void place_lanes(EventTraceLayout& L, const EventTraceOptions& opt) {
    L.width = std::max(480.0, opt.width);
    L.time_label_x = 92;
    L.label_zone = std::clamp(L.width * 0.17, 120.0, 220.0);
    L.client_x = L.time_label_x + 12 + L.label_zone + 36;
    L.server_x = L.width - L.label_zone - 48;
    L.lanes_top = 112;
    L.top = L.lanes_top + 28;
}

// Findings that touch these segments: the frames to highlight, and those
// with a stretch of time (zero-length ones, a split write or a connection
// per call, mark their evidence frames only).
struct TouchingFindings {
    std::vector<const Finding*> timed;
    std::unordered_set<uint64_t> evidence;
};

TouchingFindings touching(const std::vector<const SegmentInfo*>& segs, const std::vector<Finding>& findings,
                          const EventTraceOptions& opt, int64_t t0, int64_t t_last) {
    TouchingFindings out;
    std::unordered_set<uint64_t> present;
    for (const SegmentInfo* s : segs) present.insert(s->frame);
    double max_cost = 0;
    for (const auto& f : findings) max_cost = std::max(max_cost, f.cost_ms);
    for (const auto& f : findings) {
        bool significant = opt.evidence_min_share <= 0 ||
                           (f.cost_ms > 0 && f.cost_ms >= opt.evidence_min_share * max_cost);
        if (significant)
            for (uint64_t fr : f.frames)
                if (present.count(fr)) out.evidence.insert(fr);
        if (f.end_ns > f.start_ns && f.start_ns <= t_last && f.end_ns >= t0) out.timed.push_back(&f);
    }
    return out;
}

// To scale: y grows with time; knots strictly increase (same-time segments 0.01 px apart).
void linear_axis(EventTraceLayout& L, const std::vector<const SegmentInfo*>& segs, const EventTraceOptions& opt,
                 double row) {
    const double span_ms = std::max(1e-3, double(segs.back()->ts_ns - segs.front()->ts_ns) / 1e6);
    const double target = std::clamp(row * double(segs.size()), 500.0, 1400.0);
    L.px_per_ms = opt.px_per_ms > 0 ? opt.px_per_ms : target / span_ms;
    double y = L.top;
    L.axis.add_knot(segs.front()->ts_ns, y);
    for (size_t i = 1; i < segs.size(); ++i) {
        y = std::max(y + 0.01, L.top + double(segs[i]->ts_ns - segs.front()->ts_ns) / 1e6 * L.px_per_ms);
        L.axis.add_knot(segs[i]->ts_ns, y);
    }
}

// Rows: one knot per segment; silences grow the gap, long idle stretches
// become a fixed-height break (a stretch a stall covers is compressed, not idle).
void rows_axis(EventTraceLayout& L, const std::vector<const SegmentInfo*>& segs, const EventTraceOptions& opt,
               double row, double transit, const std::vector<const Finding*>& timed) {
    auto covered_by_stall = [&](int64_t a, int64_t b) {
        for (const Finding* f : timed)
            if (f->start_ns <= a && f->end_ns >= b) return true;
        return false;
    };
    const double cap = gap_extra(opt.break_after_ns);
    double y = L.top;
    L.axis.add_knot(segs.front()->ts_ns, y);
    for (size_t i = 1; i < segs.size(); ++i) {
        int64_t a = segs[i - 1]->ts_ns, b = segs[i]->ts_ns;
        int64_t dt = b - a;
        double y_prev = y;
        if (dt > opt.break_after_ns) {
            bool idle = !covered_by_stall(a, b);
            double h = idle ? std::max(opt.break_height, row) : row + cap;
            y += row + h;
            TraceBreak br;
            br.y = y_prev + row * 0.5 + transit;
            br.y_end = y - row * 0.5;
            br.from_ns = a;
            br.to_ns = b;
            br.idle = idle;
            br.label = idle_text(dt, idle);
            L.breaks.push_back(br);
        } else {
            y += row + gap_extra(dt);
        }
        L.axis.add_knot(b, y);
    }
}

TraceArrow make_arrow(const EventTraceLayout& L, const SegmentInfo& s, double y, double transit, bool evidence) {
    TraceArrow a;
    a.frame = s.frame;
    a.ts_ns = s.ts_ns;
    a.from = s.from;
    a.y_from = y;
    a.y_to = a.y_from + transit;
    a.x_from = s.from == Side::Client ? L.client_x : L.server_x;
    a.x_to = s.from == Side::Client ? L.server_x : L.client_x;
    a.flags = s.flags;
    a.len = s.len;
    a.carries = s.carries;
    a.retransmission = s.retransmission;
    a.pure_ack = is_pure_ack(s);
    a.evidence = evidence;
    a.label = arrow_label(s);
    a.time_label = format_offset_ms(s.ts_ns - L.t0_ns);
    return a;
}

// One arrow per segment, on the axis' knots. To scale, arrows can be closer
// than a label is tall: the first keeps its text, unless the later one is
// evidence and the first is not.
void place_arrows(EventTraceLayout& L, const std::vector<const SegmentInfo*>& segs,
                  const std::unordered_set<uint64_t>& evidence, const EventTraceOptions& opt, double transit) {
    L.arrows.reserve(segs.size());
    const auto& knots = L.axis.knots();
    size_t last_labelled = SIZE_MAX;  // the last arrow that still prints a label
    for (size_t i = 0; i < segs.size(); ++i) {
        TraceArrow a = make_arrow(L, *segs[i], knots[i].second, transit,
                                  opt.highlight_evidence && evidence.count(segs[i]->frame) > 0);
        if (L.px_per_ms > 0 && last_labelled < L.arrows.size() &&
            a.y_from - L.arrows[last_labelled].y_from < 13) {
            TraceArrow& prev = L.arrows[last_labelled];
            if (a.evidence && !prev.evidence) {
                prev.label.clear();
                prev.time_label.clear();
            } else {   // both evidence: the first keeps its text (both keep their highlight)
                a.label.clear();
                a.time_label.clear();
            }
        }
        if (!a.label.empty() || !a.time_label.empty()) last_labelled = L.arrows.size();
        L.arrows.push_back(std::move(a));
    }
}

// Stall brackets on the waiting lane; overlapping ones step outwards and
// their labels are pushed apart so they never print over each other. Each
// bracket is a stretch the ledger counts under its finding (an overlap once,
// under its root); one too short to matter is no stall.
void place_stall_brackets(EventTraceLayout& L, const std::vector<const SegmentInfo*>& segs,
                          const std::vector<Finding>& findings, const std::vector<const Finding*>& timed) {
    std::vector<const Finding*> all;
    for (const auto& f : findings) all.push_back(&f);
    struct Piece { const Finding* f; Finding::Interval iv; };
    std::vector<Piece> pieces;
    for (const Finding* f : timed) {
        if (!is_stall_kind(f->kind)) continue;   // server processing: where the time went, not a stall
        for (const Finding::Interval& iv : counted_intervals(*f, all))
            if (double(iv.end_ns - iv.start_ns) / 1e6 >= kMinStallBracketMs) pieces.push_back({f, iv});
    }
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.iv.start_ns < b.iv.start_ns; });
    PerSide<std::vector<double>> col_end;  // per side: y where each column frees up
    PerSide<double> last_label_y = {-1e18, -1e18};
    for (const auto& [f, iv] : pieces) {
        TraceStall st;
        st.side = waiting_side(segs, *f);
        st.kind = f->kind;
        st.start_ns = iv.start_ns;
        st.end_ns = iv.end_ns;
        st.cost_ms = double(iv.end_ns - iv.start_ns) / 1e6;
        st.label = finding_kind_title(f->kind) + ": " + format_ms(st.cost_ms);
        st.y_start = L.axis.px_of(iv.start_ns);
        st.y_end = std::max(L.axis.px_of(iv.end_ns), st.y_start + 4);
        auto& cols = col_end[st.side];
        size_t c = 0;
        while (c < cols.size() && cols[c] > st.y_start) ++c;
        if (c == cols.size()) cols.push_back(0);
        cols[c] = st.y_end + 2;
        st.column = int(c);
        double off = 14 + 9 * double(c);
        st.x = st.side == Side::Client ? L.client_x - off : L.server_x + off;
        // Two label lines (kind, duration) need about 30 px.
        st.label_y = std::max((st.y_start + st.y_end) / 2, last_label_y[st.side] + 32);
        last_label_y[st.side] = st.label_y;
        L.stalls.push_back(std::move(st));
    }
    for (const auto& st : L.stalls) L.lanes_bottom = std::max(L.lanes_bottom, st.label_y + 20);
}

} // namespace

EventTraceLayout layout_event_trace(const std::vector<SegmentInfo>& segments,
                                    const std::vector<Finding>& findings,
                                    const std::string& title,
                                    const std::string& client_name,
                                    const std::string& server_name,
                                    const EventTraceOptions& opt) {
    EventTraceLayout L;
    L.title = title;
    L.client_name = client_name;
    L.server_name = server_name;
    place_lanes(L, opt);
    const double row = std::max(12.0, opt.row_height);
    const double transit = std::clamp(opt.transit, 0.0, row * 0.6);

    const std::vector<const SegmentInfo*> segs = unique_in_time_order(segments);
    if (segs.empty()) {
        L.lanes_bottom = L.top + row;
        L.height = L.lanes_bottom + 24;
        return L;
    }
    L.t0_ns = segs.front()->ts_ns;
    const TouchingFindings found = touching(segs, findings, opt, L.t0_ns, segs.back()->ts_ns);

    if (opt.linear_time) linear_axis(L, segs, opt, row);
    else rows_axis(L, segs, opt, row, transit, found.timed);
    L.lanes_bottom = L.axis.knots().back().second + row + transit;

    place_arrows(L, segs, found.evidence, opt, transit);
    place_stall_brackets(L, segs, findings, found.timed);
    L.height = L.lanes_bottom + 24;
    return L;
}

std::string time_axis_note(const EventTraceLayout& L) {
    if (L.px_per_ms <= 0) return "time goes down; not to scale: every segment gets a row, waits grow with their length";
    char buf[96];
    std::snprintf(buf, sizeof buf, "time goes down, to scale: 100 px = %.3g ms", 100 / L.px_per_ms);
    return buf;
}

} // namespace stallscope
