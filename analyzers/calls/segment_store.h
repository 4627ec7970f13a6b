#pragma once
// The segments of one connection that no finalised call has taken yet,
// addressed by a stable running index. Bounded: the oldest records are
// dropped past a cap (a warning says so), so a long transfer cannot grow
// memory without limit.
#include "analyzers/calls/fifo.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <vector>

namespace stallscope {

class SegmentStore {
public:
    explicit SegmentStore(size_t cap) : cap_(cap) {}

    uint64_t push(const SegmentInfo& s) {
        if (segs_.size() >= cap_) { segs_.pop_front(); ++base_; ++dropped_; }
        segs_.push_back(s);
        return base_ + segs_.size() - 1;
    }
    // nullptr when the record was already taken or dropped.
    SegmentInfo* at(uint64_t index) {
        if (index < base_ || index >= base_ + segs_.size()) return nullptr;
        return &segs_[size_t(index - base_)];
    }
    uint64_t begin_index() const { return base_; }
    uint64_t end_index() const { return base_ + segs_.size(); }
    // Copy [from, to) into out (clamped to what is held).
    void copy(uint64_t from, uint64_t to, std::vector<SegmentInfo>& out) const {
        const uint64_t lo = std::max(from, base_), hi = std::min(to, end_index());
        if (lo < hi) out.reserve(out.size() + size_t(hi - lo));
        for (uint64_t i = lo; i < hi; ++i) out.push_back(segs_[size_t(i - base_)]);
    }
    // Forget everything before `index`.
    void release_before(uint64_t index) {
        if (index <= base_) return;
        const uint64_t n = std::min<uint64_t>(index - base_, segs_.size());
        segs_.drop_front(size_t(n));
        base_ += n;
    }
    void shrink() { segs_.shrink(); }
    uint64_t dropped() const { return dropped_; }

private:
    Fifo<SegmentInfo> segs_;
    uint64_t base_ = 0;
    size_t cap_;
    uint64_t dropped_ = 0;
};

} // namespace stallscope
