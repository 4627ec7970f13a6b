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
// fewer than half of the ids it spans are held) its oldest held id moves to
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
    explicit SlidingIdMap(size_t max_span = size_t(1) << 16) : max_span_(std::bit_ceil(max_span < 2 ? 2 : max_span)) {}

    size_t size() const { return in_array_ + moved_.size(); }
    // Ids the array spans now, and ids held in the hash map beside it: for the tests.
    size_t span() const { return size_t(end_ - begin_); }
    size_t moved() const { return moved_.size(); }
    size_t capacity() const { return slots_.size(); }

    // Adds `id`, higher than every id added before (most often the next one).
    void add(uint64_t id, V value) {
        if (id != end_ || span() == slots_.size()) return add_after_gap_or_full(id, std::move(value));
        Slot& s = slot(end_++);
        s.value = std::move(value);
        s.held = true;
        ++in_array_;
    }
    // The value of `id`, or nullptr.
    V* find(uint64_t id) {
        if (id >= begin_ && id < end_) {
            Slot& s = slot(id);
            return s.held ? &s.value : nullptr;
        }
        return id < begin_ ? moved_.find(id) : nullptr;
    }
    // Where `id`'s value is or would be in the array (to fetch it ahead), or nullptr.
    const void* slot_address(uint64_t id) const {
        return id >= begin_ && id < end_ ? &slots_[size_t(id) & (slots_.size() - 1)] : nullptr;
    }
    // Removes `id` if held.
    void erase(uint64_t id) {
        if (id >= begin_ && id < end_) {
            Slot& s = slot(id);
            if (!s.held) return;
            s.held = false;
            forget(s.value);
            --in_array_;
            skip_unheld();
        } else if (id < begin_) {
            moved_.erase(id);
        }
    }
    // Removes every id for which pred(id, value) is true: reads every slot
    // the array spans and every moved id (for the rare caller; not per event).
    template <class Pred> void erase_if(Pred&& pred) {
        for (uint64_t id = begin_; id < end_; ++id) {
            Slot& s = slot(id);
            if (s.held && pred(id, static_cast<const V&>(s.value))) {
                s.held = false;
                forget(s.value);
                --in_array_;
            }
        }
        skip_unheld();
        std::vector<uint64_t> gone;
        moved_.each([&](const uint64_t& id, V& v) {
            if (pred(id, static_cast<const V&>(v))) gone.push_back(id);
        });
        for (uint64_t id : gone) moved_.erase(id);
    }

private:
    struct Slot {
        V value{};
        bool held = false;
    };
    Slot& slot(uint64_t id) { return slots_[size_t(id) & (slots_.size() - 1)]; }
    // A value no longer held lets go of what it owns (plain ids: nothing to do).
    static void forget(V& v) {
        if constexpr (!std::is_trivially_destructible_v<V>) v = V{};
    }

    void add_after_gap_or_full(uint64_t id, V value) {
        if (span() == 0 || id - begin_ >= max_span_) {  // the first, or a jump past the whole array (ids are dense: never)
            move_all_out();
            begin_ = end_ = id;
        }
        while (end_ <= id) {
            if (span() == slots_.size()) make_room();
            Slot& s = slot(end_);
            s.held = end_ == id;
            if (s.held) s.value = std::move(value);
            ++end_;
        }
        ++in_array_;
    }

    // The oldest end moved past the ids no longer held.
    void skip_unheld() {
        while (begin_ < end_ && !slot(begin_).held) ++begin_;
    }
    // The array is full: twice as long while most of what it spans is held
    // (up to max_span), else its oldest held id goes to the hash map.
    void make_room() {
        if (slots_.size() < max_span_ && (slots_.empty() || in_array_ * 16 >= slots_.size())) {
            std::vector<Slot> old = std::move(slots_);
            slots_ = std::vector<Slot>(old.empty() ? 64 : old.size() * 2);
            for (uint64_t id = begin_; id < end_; ++id) slot(id) = std::move(old[size_t(id) & (old.size() - 1)]);
            return;
        }
        move_out_oldest();
    }
    void move_out_oldest() {
        Slot& s = slot(begin_);
        if (s.held) {
            moved_.insert(begin_, std::move(s.value));
            s.held = false;
            forget(s.value);
            --in_array_;
        }
        ++begin_;
        skip_unheld();
    }
    void move_all_out() {
        while (span()) move_out_oldest();
    }

    const size_t max_span_;
    std::vector<Slot> slots_;  // a ring: id's slot is id mod its size (a power of two)
    uint64_t begin_ = 0, end_ = 0;  // the ids the array spans: [begin_, end_), begin_ held unless empty
    size_t in_array_ = 0;           // held ids in the array
    FlatMap<uint64_t, V, std::hash<uint64_t>> moved_;  // held ids below begin_
};

} // namespace stallscope
