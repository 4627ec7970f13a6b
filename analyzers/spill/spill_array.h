#pragma once
// A growable array of fixed-size, trivially copyable records by index, kept
// in blocks. In memory until to_file(); then in a spill file with only a few
// blocks cached (written back when evicted), so it costs no memory per
// record: the block table is 16 bytes per block. Indexes arrive nearly in
// order (call and connection ids), so the cache is hit almost always; an
// index far behind reads its block back.
#include "analyzers/spill/spill_file.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stallscope {

template <class T>
class SpillArray {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    // `block`: records per block; `cached`: blocks in memory once on file.
    explicit SpillArray(size_t block = 1024, size_t cached = 8) : block_(block), cached_(cached) {}

    // Moves every block to `file` and from then on keeps `cached` of them. Throws SpillError.
    void to_file(std::unique_ptr<SpillFile> file) {
        file_ = std::move(file);
        loaded_.clear();
        for (size_t b = 0; b < blocks_.size(); ++b)
            if (blocks_[b].recs) loaded_.push_back(b);
        while (loaded_.size() > cached_) evict();
    }
    bool on_file() const { return file_ != nullptr; }

    // Records below size() may exist (all-zero bytes = never written).
    uint64_t size() const { return uint64_t(blocks_.size()) * block_; }
    size_t block_size() const { return block_; }

    // Record i, created zeroed; valid until the next at() or each(). Throws SpillError.
    T& at(uint64_t i) {
        const size_t b = size_t(i / block_);
        T* recs = block(b);
        blocks_[b].dirty = true;
        return recs[i % block_];
    }

    // Every record of every block ever written, in index order (zeroed ones
    // too: the caller tells them apart). Through the cache. Throws SpillError.
    template <class Fn> void each(Fn&& fn) {
        for (size_t b = 0; b < blocks_.size(); ++b) {
            if (!blocks_[b].recs && !blocks_[b].on_file) continue;  // never written
            const T* recs = block(b);
            for (size_t i = 0; i < block_; ++i) fn(uint64_t(b) * block_ + i, recs[i]);
        }
    }

    // Writes every dirty block back, so that the read-only functions below
    // need nothing but the file. Throws SpillError.
    void flush() {
        if (!file_) return;
        for (size_t b : loaded_) write_back(b);
    }

    // Read-only, safe from several threads once nothing writes (after
    // flush()): records [first, first + n) into out; never-written ones are
    // zero. Throws SpillError.
    void read(uint64_t first, size_t n, std::vector<T>& out) const {
        out.assign(n, T{});
        for (size_t k = 0; k < n;) {
            const uint64_t i = first + k;
            const size_t b = size_t(i / block_), off = size_t(i % block_);
            const size_t take = std::min(n - k, block_ - off);
            if (b < blocks_.size()) {
                const Slot& s = blocks_[b];
                if (s.recs) {
                    std::memcpy(static_cast<void*>(&out[k]), &s.recs[off], take * sizeof(T));
                } else if (s.on_file) {
                    file_->read_written(block_bytes() * b + off * sizeof(T), uint32_t(take * sizeof(T)),
                                        reinterpret_cast<char*>(&out[k]));
                }
            }
            k += take;
        }
    }
    T get(uint64_t i) const {
        std::vector<T> one;
        read(i, 1, one);
        return one[0];
    }

private:
    struct Slot {
        std::unique_ptr<T[]> recs;  // nullptr: on file (or never written)
        bool dirty = false;
        bool on_file = false;
    };
    uint64_t block_bytes() const { return uint64_t(block_) * sizeof(T); }

    void write_back(size_t b) {
        Slot& s = blocks_[b];
        if (!s.dirty) return;
        file_->write_at(block_bytes() * b, std::string_view(reinterpret_cast<const char*>(s.recs.get()), block_bytes()));
        s.on_file = true;
        s.dirty = false;
    }
    void evict() {
        const size_t b = loaded_.front();
        loaded_.pop_front();
        write_back(b);
        blocks_[b].recs.reset();
    }
    T* block(size_t b) {
        if (b >= blocks_.size()) blocks_.resize(b + 1);
        Slot& s = blocks_[b];
        if (s.recs) return s.recs.get();
        if (file_ && loaded_.size() >= cached_) evict();
        s.recs.reset(new T[block_]);
        // Straight from the file into the records (a zeroed copy in between
        // was 3.5 % of the bench's instructions), or zero for a new block.
        if (s.on_file) file_->read_written(block_bytes() * b, uint32_t(block_bytes()), reinterpret_cast<char*>(s.recs.get()));
        else std::memset(static_cast<void*>(s.recs.get()), 0, block_bytes());
        if (file_) loaded_.push_back(b);
        return s.recs.get();
    }

    size_t block_, cached_;
    std::vector<Slot> blocks_;
    std::deque<size_t> loaded_;  // blocks in memory, oldest first (file mode)
    std::unique_ptr<SpillFile> file_;
};

} // namespace stallscope
