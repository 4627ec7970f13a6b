#include "capture/tcp/stream_reassembler.h"

#include <algorithm>

namespace stallscope {

void StreamReassembler::set_origin(int64_t pos) {
    origin_ = pos;
    origin_set_ = true;
}

void StreamReassembler::on_syn(uint32_t isn) {
    if (settled_) return;  // a retransmitted SYN, or a SYN after delivered data: keep the first reference
    if (!unwrap_.initialised()) unwrap_.reset(isn);
    int64_t pos = unwrap_.unwrap(isn) + 1;
    if (!origin_set_) set_origin(pos);
    else if (pos < origin_) move_origin_back(pos);
    else if (pos > origin_) return;  // a SYN after the first byte seen: not this stream's
    settle();
}

void StreamReassembler::move_origin_back(int64_t pos) {
    // Nothing delivered yet (next_ == 0): only the held keys move.
    uint64_t d = uint64_t(origin_ - pos);
    std::map<uint64_t, Held> moved;
    for (auto& [key, h] : held_) moved.emplace(key + d, std::move(h));
    held_.swap(moved);
    origin_ = pos;
}

void StreamReassembler::settle() {
    if (settled_) return;
    settled_ = true;
    drain();
}

StreamReassembler::SegmentKind StreamReassembler::on_segment(uint32_t seq, std::span<const uint8_t> captured,
                                                             uint32_t wire_len, uint64_t tag) {
    if (wire_len == 0) return SegmentKind::Empty;
    if (captured.size() > wire_len) captured = captured.first(wire_len);
    int64_t pos = unwrap_.unwrap(seq);
    bool moved_back = false;  // earlier bytes captured after later ones: out of order
    if (!origin_set_) set_origin(pos);  // capture began mid-connection: a guess
    else if (!settled_ && pos < origin_) { move_origin_back(pos); moved_back = true; }
    int64_t rel = pos - origin_;
    int64_t end = rel + int64_t(wire_len);
    uint32_t missing = wire_len - uint32_t(captured.size());

    auto trim_front = [&](uint64_t k) {
        if (k <= captured.size()) captured = captured.subspan(size_t(k));
        else { missing -= uint32_t(k - captured.size()); captured = {}; }
    };

    if (end <= int64_t(next_)) {
        stats_.retransmitted_bytes += wire_len;
        return SegmentKind::Retransmission;
    }
    SegmentKind kind = SegmentKind::InOrder;
    if (rel < int64_t(next_)) {
        uint64_t k = uint64_t(int64_t(next_) - rel);
        stats_.retransmitted_bytes += k;
        trim_front(k);
        rel = int64_t(next_);
        kind = SegmentKind::PartialOverlap;
    }
    if (uint64_t(rel) == next_ && settled_) {
        deliver(next_, captured, missing, tag);
        drain();
        return kind;
    }
    // Early (or the origin is still a guess): hold it until the hole before
    // it is filled or known lost.
    const bool early = uint64_t(rel) != next_ || moved_back;
    uint64_t key = uint64_t(rel);
    auto it = held_.find(key);
    if (it != held_.end() && it->second.bytes.size() + it->second.missing_tail >= captured.size() + missing) {
        stats_.retransmitted_bytes += wire_len;
        return SegmentKind::Retransmission;
    }
    if (held_bytes_ + captured.size() > cap_ && !held_.empty()) {
        stats_.cap_hit = true;
        settle();
        release_until(held_.begin()->first);  // give up on the oldest hole
        if (key <= next_) {                     // the release may have reached us
            if (key + captured.size() + missing <= next_) return SegmentKind::Retransmission;
            trim_front(next_ - key);
            deliver(next_, captured, missing, tag);
            drain();
            return SegmentKind::OutOfOrder;
        }
        it = held_.find(key);  // the release may have erased entries
    }
    if (it != held_.end()) { held_bytes_ -= it->second.bytes.size(); held_.erase(it); }
    held_bytes_ += captured.size();
    held_.emplace(key, Held{std::vector<uint8_t>(captured.begin(), captured.end()), missing, tag});
    if (!early) return kind;
    ++stats_.out_of_order_segments;
    return SegmentKind::OutOfOrder;
}

void StreamReassembler::deliver(uint64_t offset, std::span<const uint8_t> data, uint32_t missing_tail, uint64_t tag) {
    if (!data.empty()) sink_.on_stream_data(offset, data, tag);
    next_ = offset + data.size();
    if (missing_tail) {
        sink_.on_stream_gap(next_, missing_tail);
        stats_.gap_bytes += missing_tail;
        next_ += missing_tail;
    }
}

void StreamReassembler::drain() {
    if (!settled_) return;
    while (!held_.empty() && held_.begin()->first <= next_) {
        auto node = held_.extract(held_.begin());
        Held& h = node.mapped();
        held_bytes_ -= h.bytes.size();
        uint64_t key = node.key();
        uint64_t end = key + h.bytes.size() + h.missing_tail;
        if (end <= next_) { stats_.retransmitted_bytes += end - key; continue; }
        std::span<const uint8_t> data(h.bytes);
        uint32_t missing = h.missing_tail;
        uint64_t k = next_ - key;
        if (k <= data.size()) data = data.subspan(size_t(k));
        else { missing -= uint32_t(k - data.size()); data = {}; }
        deliver(next_, data, missing, h.tag);
    }
}

void StreamReassembler::release_until(uint64_t offset) {
    if (offset > next_) {
        sink_.on_stream_gap(next_, offset - next_);
        stats_.gap_bytes += offset - next_;
        next_ = offset;
    }
    drain();
}

// A capture that began mid-connection: the peer has every byte before
// `ack`, so the stream (as far as this capture can know it) starts there;
// bytes between it and the first captured byte were sent before the capture
// and become a gap. Only while the origin is a guess, and only backwards by
// at most a TCP window (a bogus ACK must not open a giant gap).
void StreamReassembler::place_origin_at_ack(uint32_t ack) {
    constexpr int64_t kMaxLead = int64_t(1) << 30;  // the largest scaled window
    if (!origin_set_) {
        if (!unwrap_.initialised()) unwrap_.reset(ack);
        set_origin(unwrap_.unwrap(ack));
        settle();
        return;
    }
    const int64_t pos = unwrap_.peek(ack);
    if (pos > origin_ || origin_ - pos > kMaxLead) return;
    if (pos < origin_) move_origin_back(pos);
    settle();
}

void StreamReassembler::on_peer_ack(uint32_t ack) {
    if (!settled_) place_origin_at_ack(ack);
    if (!origin_set_ || held_.empty()) return;
    int64_t acked = offset_of(ack);
    if (!settled_ && acked > 0) settle();  // the peer has the origin's byte: nothing comes before it
    uint64_t first = held_.begin()->first;
    // The peer has everything up to `acked`: a hole before a held segment
    // that the peer acknowledged past will never be filled in this capture.
    if (acked > int64_t(next_) && uint64_t(acked) >= first) release_until(first);
}

void StreamReassembler::flush() {
    settle();
    while (!held_.empty()) release_until(held_.begin()->first);
}

} // namespace stallscope
