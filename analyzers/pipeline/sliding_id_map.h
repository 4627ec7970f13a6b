#pragma once
// Values of ids that are added in rising order (1, 2, 3, ...: a worker's
// local connection or call numbers) and mostly erased soon, in nearly the
// order they were added: held in an array over the ids from the oldest
// still held to the newest, so add, find and erase are an index, not a hash
// lookup with its probes and shifts (the sharded merge's id maps).
//
// An id that stays while many later ones come and go (a pipelined call open
// the whole capture) would keep the array's oldest end where it is and make
// it grow with every later id: once the array spans max_span ids (or when
// fewer than 1/16 of the ids it spans are held) its oldest held id moves to
// a hash map beside it instead. Memory is the ids held plus at most
// max_span slots, whatever the capture.
#include "analyzers/pipeline/flat_map.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

namespace stallscope {

template <class V>
class SlidingIdMap {
public:
    explicit SlidingIdMap(size_t max_span = size_t(1) << 16) : max_span_(std::bit_ceil(max_span < 64 ? 64 : max_span)) {}

    size_t size() const { return in_array_ + moved_.size(); }
    // Ids the array spans now, and ids held in the hash map beside it: for the tests.
    size_t span() const { return size_t(end_ - begin_); }
    size_t moved() const { return moved_.size(); }
    size_t capacity() const { return values_.size(); }

    // Adds `id`, higher than every id added before (most often the next one).
    void add(uint64_t id, V value) {
        if (id != end_ || span() == values_.size()) return add_after_gap_or_full(id, std::move(value));
        value_at(end_) = std::move(value);
        mark(end_++);
        ++in_array_;
    }
    // The value of `id`, or nullptr.
    V* find(uint64_t id) {
        if (id >= begin_ && id < end_) return held(id) ? &value_at(id) : nullptr;
        return id < begin_ ? moved_.find(id) : nullptr;
    }
    // Where `id`'s value is or would be in the array (to fetch it ahead), or nullptr.
    const void* slot_address(uint64_t id) const {
        return id >= begin_ && id < end_ ? &values_[index(id)] : nullptr;
    }
    // Removes `id` if held.
    void erase(uint64_t id) {
        if (id >= begin_ && id < end_) {
            if (!held(id)) return;
            let_go(id);
            skip_unheld();
        } else if (id < begin_) {
            moved_.erase(id);
        }
    }
    // Removes every id for which pred(id, value) is true: reads every slot
    // the array spans and every moved id (for the rare caller; not per event).
    template <class Pred> void erase_if(Pred&& pred) {
        for (uint64_t id = begin_; id < end_; ++id)
            if (held(id) && pred(id, static_cast<const V&>(value_at(id)))) let_go(id);
        skip_unheld();
        std::vector<uint64_t> gone;
        moved_.each([&](const uint64_t& id, V& v) {
            if (pred(id, static_cast<const V&>(v))) gone.push_back(id);
        });
        for (uint64_t id : gone) moved_.erase(id);
    }

private:
    // The values in one array and whether each is held in a bitmap beside
    // it: a value's slot is no larger than the value (16 bytes for the
    // merge's, not 24 with a flag), and the oldest end skips 64 at a time.
    size_t index(uint64_t id) const { return size_t(id) & (values_.size() - 1); }
    V& value_at(uint64_t id) { return values_[index(id)]; }
    // Every slot outside [begin_, end_) is unheld (ids leave only unheld).
    bool held(uint64_t id) const {
        const size_t i = index(id);
        return (held_[i >> 6] >> (i & 63)) & 1;
    }
    void mark(uint64_t id) {
        const size_t i = index(id);
        held_[i >> 6] |= uint64_t(1) << (i & 63);
    }
    void unmark(uint64_t id) {
        const size_t i = index(id);
        held_[i >> 6] &= ~(uint64_t(1) << (i & 63));
    }
    void let_go(uint64_t id) {
        unmark(id);
        if constexpr (!std::is_trivially_destructible_v<V>) value_at(id) = V{};  // what it owns goes now
        --in_array_;
    }

    void add_after_gap_or_full(uint64_t id, V value) {
        if (span() == 0 || id - begin_ >= max_span_) {  // the first, or a jump past the whole array (ids are dense: never)
            move_all_out();
            begin_ = end_ = id;
        }
        while (end_ <= id) {
            if (span() == values_.size()) make_room();
            if (end_ == id) {
                value_at(end_) = std::move(value);
                mark(end_);
            }
            ++end_;
        }
        ++in_array_;
    }

    // The oldest end moved to the next id held (or the newest end), a word of the bitmap at a time.
    void skip_unheld() {
        while (begin_ < end_) {
            const size_t i = index(begin_);
            const uint64_t ahead = held_[i >> 6] >> (i & 63);
            if (ahead & 1) return;
            begin_ += ahead ? uint64_t(std::countr_zero(ahead)) : 64 - (i & 63);
        }
        begin_ = end_;
    }
    // The array is full: twice as long while at least 1/16 of what it spans
    // is held (up to max_span), else its oldest held id goes to the hash map.
    void make_room() {
        if (values_.size() < max_span_ && (values_.empty() || in_array_ * 16 >= values_.size())) {
            std::vector<V> old = std::move(values_);
            std::vector<uint64_t> old_held = std::move(held_);
            const size_t old_mask = old.size() - 1;
            values_ = std::vector<V>(old.empty() ? 64 : old.size() * 2);
            held_ = std::vector<uint64_t>(values_.size() / 64);
            for (uint64_t id = begin_; id < end_; ++id) {
                const size_t i = size_t(id) & old_mask;
                if (!((old_held[i >> 6] >> (i & 63)) & 1)) continue;
                value_at(id) = std::move(old[i]);
                mark(id);
            }
            return;
        }
        move_out_oldest();
    }
    void move_out_oldest() {
        if (held(begin_)) {
            moved_.insert(begin_, std::move(value_at(begin_)));
            let_go(begin_);
        }
        ++begin_;
        skip_unheld();
    }
    void move_all_out() {
        while (span()) move_out_oldest();
    }

    const size_t max_span_;
    std::vector<V> values_;         // a ring: id's slot is id mod its size (a power of two, at least 64)
    std::vector<uint64_t> held_;    // a bit a slot: held
    uint64_t begin_ = 0, end_ = 0;  // the ids the array spans: [begin_, end_), begin_ held unless empty
    size_t in_array_ = 0;           // held ids in the array
    FlatMap<uint64_t, V, std::hash<uint64_t>> moved_;  // held ids below begin_
};

} // namespace stallscope
