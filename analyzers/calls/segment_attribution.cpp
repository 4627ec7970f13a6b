#include "analyzers/calls/segment_attribution.h"

#include <algorithm>

namespace stallscope {

void SegmentAttribution::deliver(SegmentStore& segs, uint64_t seg) {
    cur_seg = seg;
    if (SegmentInfo* s = segs.at(seg); s && s->ts_ns > delivery_ns) {
        delivery_ns = s->ts_ns;
        delivery_frame = s->frame;
    }
}

void SegmentAttribution::attribute(SegmentStore& segs, uint64_t upto) {
    if (upto <= cursor) return;
    uint64_t n = upto - cursor;
    cursor = upto;
    SegmentInfo* seg = segs.at(cur_seg);
    if (!have_active || !active.info) {
        if (seg) seg->carries |= carries::kOther;
        return;
    }
    MsgTrack& m = active;
    MessageInfo& info = *m.info;
    uint64_t frame = seg ? seg->frame : 0;
    int64_t ts = seg ? seg->ts_ns : 0;
    if (seg) seg->carries |= m.in_body ? m.body_bit : m.head_bit;
    if (m.last_seg != cur_seg) {
        info.write_sizes.push_back(uint32_t(std::min<uint64_t>(n, UINT32_MAX)));
        info.frames.push_back(frame);
        m.last_seg = cur_seg;
    } else if (!info.write_sizes.empty()) {
        info.write_sizes.back() += uint32_t(std::min<uint64_t>(n, UINT32_MAX));
    }
    if (m.in_body) {
        if (info.body_first_frame == 0) { info.body_first_frame = frame; info.body_first_ns = ts; }
        info.body_bytes += n;
    }
    bool held = delivery_ns > ts;
    info.last_frame = held ? delivery_frame : frame;
    info.last_ns = held ? delivery_ns : ts;
    if (m.call) m.call->seg_last = std::max(m.call->seg_last, cur_seg);
}

void relabel_interim_head(SegmentStore& segs, uint64_t begin_seg, uint16_t begin_prior, uint64_t cur_seg) {
    for (uint64_t i = begin_seg; i < cur_seg; ++i) {
        SegmentInfo* s = segs.at(i);
        if (!s || s->from != Side::Server || !(s->carries & carries::kResponseHeaders)) continue;
        const uint16_t keep = i == begin_seg ? begin_prior : uint16_t(s->carries & ~carries::kResponseHeaders);
        s->carries = uint16_t(keep | carries::kContinue);
    }
}

} // namespace stallscope
