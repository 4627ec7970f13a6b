#pragma once
// Sorting more values than should stay in memory: runs of `run` values are
// sorted in memory and written to a spill file, then merged. Until the first
// run is full nothing touches the disk, so small inputs sort as a plain
// vector. Memory: one run, plus kMergeRead values per run while merging.
// `Less` must be a strict weak order; values it calls equal may come out
// in any order, as with std::sort.
#include "analyzers/spill/spill_file.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stallscope {

template <class T, class Less = std::less<T>>
class ExternalSort {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    static constexpr size_t kMergeRead = 1024;
    // `make_file` gives the file for the runs when the first one is full; a
    // nullptr (or no function) keeps everything in memory.
    ExternalSort(size_t run, std::function<std::unique_ptr<SpillFile>()> make_file, Less less = Less())
        : run_size_(run), make_file_(std::move(make_file)), less_(less) {}

    void add(const T& v) {
        run_.push_back(v);
        if (run_.size() >= run_size_ && (file_ || (make_file_ && (file_ = make_file_())))) write_run();
    }
    size_t size() const { return count_ + run_.size(); }

    // Every value, in order; once (the values are gone after). Throws SpillError.
    template <class Fn> void each(Fn&& fn) {
        if (runs_.empty()) {
            std::sort(run_.begin(), run_.end(), less_);
            for (const T& v : run_) fn(v);
            run_ = {};
            return;
        }
        if (!run_.empty()) write_run();
        run_ = {};
        std::vector<Cursor> cursors;
        for (auto& [at, n] : runs_) {
            cursors.push_back({at, n, {}, 0});
            refill(cursors.back());
        }
        runs_.clear();
        count_ = 0;
        auto later = [&](size_t a, size_t b) { return less_(cursors[b].buf[cursors[b].pos], cursors[a].buf[cursors[a].pos]); };
        std::vector<size_t> heap;
        for (size_t i = 0; i < cursors.size(); ++i)
            if (!cursors[i].buf.empty()) heap.push_back(i);
        std::make_heap(heap.begin(), heap.end(), later);
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), later);
            Cursor& c = cursors[heap.back()];
            fn(c.buf[c.pos]);
            if (++c.pos == c.buf.size() && c.left) refill(c);
            if (c.pos < c.buf.size()) std::push_heap(heap.begin(), heap.end(), later);
            else heap.pop_back();
        }
    }

private:
    struct Cursor {
        uint64_t at;  // next value on file
        size_t left;  // values on file from `at`
        std::vector<T> buf;
        size_t pos = 0;
    };
    void write_run() {
        std::sort(run_.begin(), run_.end(), less_);
        runs_.push_back({file_->size(), run_.size()});
        file_->append(std::string_view(reinterpret_cast<const char*>(run_.data()), run_.size() * sizeof(T)));
        count_ += run_.size();
        run_.clear();
    }
    void refill(Cursor& c) {
        const size_t n = std::min(kMergeRead, c.left);
        file_->read(c.at, uint32_t(n * sizeof(T)), bytes_);
        c.buf.resize(n);
        if (n) std::memcpy(static_cast<void*>(c.buf.data()), bytes_.data(), n * sizeof(T));
        c.at += n * sizeof(T);
        c.left -= n;
        c.pos = 0;
    }

    size_t run_size_;
    std::function<std::unique_ptr<SpillFile>()> make_file_;
    Less less_;
    std::vector<T> run_;
    std::vector<std::pair<uint64_t, size_t>> runs_;  // on file: (offset, values)
    size_t count_ = 0;                               // values on file
    std::unique_ptr<SpillFile> file_;
    std::string bytes_;
};

} // namespace stallscope
