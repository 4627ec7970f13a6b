#include "capture/pcap/map_ahead.h"

#include <algorithm>
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels refuse it (EINVAL)
#endif

namespace stallscope::capture_detail {

ByteRange next_map_ahead(uint64_t reader_at, uint64_t mapped_to, uint64_t file_size, uint64_t page) {
    ByteRange r;
    r.from = std::max(mapped_to, reader_at / page * page);  // never behind the reader: those pages are read
    // In whole pages (madvise's unit): the file's last page is mapped whole.
    const uint64_t limit = std::min((file_size + page - 1) / page * page, (reader_at + kMapAheadLimit) / page * page);
    r.to = std::min(r.from + kMapAheadStep, limit);
    return r;
}

namespace {
// A drop as one word: its first and end page, 32 bits each (16 TB of 4 KB pages).
constexpr uint64_t kPages = uint64_t(1) << 32;
}

void MapAhead::drop(uint64_t from, uint64_t to) {
    if (from < to) {
        const uint64_t first = from / page_, end = to / page_;
        if (!helped_ || end >= kPages) {
            give_back(from, to);
        } else if (const uint64_t left = pending_drop_.exchange(first << 32 | end, std::memory_order_acq_rel)) {
            give_back((left >> 32) * page_, (left & (kPages - 1)) * page_);
        }
    }
    dropped_line_.store(to, std::memory_order_release);
}

bool MapAhead::take_drop() {
    const uint64_t d = pending_drop_.exchange(0, std::memory_order_acq_rel);
    if (d) give_back((d >> 32) * page_, (d & (kPages - 1)) * page_);
    return d != 0;
}

// Helpers claim stretches in turn. Drops asked for after the line was read
// start at or before it (the reader's drops overlap: its second drop), so
// what lies below the line, mapped late, is given back here.
bool MapAhead::map_next() {
    if (refused_.load(std::memory_order_relaxed)) return false;
    uint64_t claimed = mapped_to_.load(std::memory_order_relaxed);
    ByteRange r;
    do {
        r = next_map_ahead(read_at_.load(std::memory_order_relaxed), claimed, size_, page_);
        if (r.empty()) return false;
    } while (!mapped_to_.compare_exchange_weak(claimed, r.to, std::memory_order_relaxed));
    if (::madvise(base_ + r.from, r.to - r.from, MADV_POPULATE_READ) != 0) {
        refused_.store(true, std::memory_order_relaxed);  // the reader faults its pages in as before
        return false;
    }
    const uint64_t line = dropped_line_.load(std::memory_order_acquire);
    if (r.from < line) give_back(r.from, std::min(r.to, line));
    return true;
}

// Unmapped from this process (the page cache keeps them); a thread still
// reading them faults them in again (MAP_PRIVATE, never written).
void MapAhead::give_back(uint64_t from, uint64_t to) { ::madvise(base_ + from, to - from, MADV_DONTNEED); }

} // namespace stallscope::capture_detail
