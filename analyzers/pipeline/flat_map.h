#pragma once
// A hash map in one array (open addressing, linear probing, erase by
// shifting back the entries after it): a lookup reads one slot, or a few
// next to it, where std::unordered_map reads its bucket, the node before and
// the node. The flow table looks up every packet's connection in a table of
// thousands (the closed ones linger a second), so those were cache misses.
// Iteration order is the slots' (no caller may depend on it). Pointers and
// references to values stay valid until the next insert or erase.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace stallscope {

template <class K, class V, class Hash>
class FlatMap {
public:
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }

    // The value of `key`, or nullptr.
    V* find(const K& key) {
        if (slots_.empty()) return nullptr;
        const uint64_t h = mix(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (!s.used) return nullptr;
            if (s.hash == h && s.key == key) return &s.value;
        }
    }
    // Inserts `key` (not present: the caller found no value) and returns its value.
    V& insert(const K& key, V value) {
        if ((count_ + 1) * 4 > slots_.size() * 3) grow();
        const uint64_t h = mix(key);
        size_t i = h & mask_;
        while (slots_[i].used) i = (i + 1) & mask_;
        slots_[i] = Slot{h, true, key, std::move(value)};
        ++count_;
        return slots_[i].value;
    }
    // Removes `key` if present.
    void erase(const K& key) {
        if (slots_.empty()) return;
        const uint64_t h = mix(key);
        size_t i = h & mask_;
        for (;; i = (i + 1) & mask_) {
            if (!slots_[i].used) return;
            if (slots_[i].hash == h && slots_[i].key == key) break;
        }
        // Backward shift: every later entry of the run that may sit in the
        // hole (its home slot is not cyclically in (hole, j]) moves into it.
        size_t hole = i;
        for (size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
            const size_t home = slots_[j].hash & mask_;
            const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (stays) continue;
            slots_[hole] = std::move(slots_[j]);
            hole = j;
        }
        slots_[hole] = Slot{};
        --count_;
    }
    // fn(const K&, V&) for every entry, in slot order.
    template <class Fn> void each(Fn&& fn) {
        for (Slot& s : slots_)
            if (s.used) fn(static_cast<const K&>(s.key), s.value);
    }
    template <class Fn> void each(Fn&& fn) const {
        for (const Slot& s : slots_)
            if (s.used) fn(s.key, s.value);
    }

private:
    struct Slot {
        uint64_t hash = 0;
        bool used = false;
        K key{};
        V value{};
    };
    // The caller's hash spread over every bit, so the low bits (the slot) depend on all of it.
    static uint64_t mix(const K& key) {
        uint64_t x = uint64_t(Hash{}(key));
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
    }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_ = std::vector<Slot>(old.empty() ? 64 : old.size() * 2);
        mask_ = slots_.size() - 1;
        for (Slot& s : old) {
            if (!s.used) continue;
            size_t i = s.hash & mask_;
            while (slots_[i].used) i = (i + 1) & mask_;
            slots_[i] = std::move(s);
        }
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t count_ = 0;
};

} // namespace stallscope
