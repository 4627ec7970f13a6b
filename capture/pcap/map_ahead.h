#pragma once
// The page-table work of a mapped file's reader that other threads can do
// for it (PcapFileReader::ahead_work): filling the page tables a stretch
// ahead of the reader, so it finds its pages mapped instead of faulting them
// in (a fault per 64 KB with fault-around: system time, on the reading
// thread), and giving back the pages behind it. Pages are mapped at most
// kMapAheadLimit past the reader and a drop waits for a helper at most while
// the reader reads 2 MB (mapped_pcap_reader.cpp), so the file's resident
// pages stay a bounded window.
#include <atomic>
#include <cstdint>

namespace stallscope::capture_detail {

constexpr uint64_t kMapAheadStep = 1u << 20;    // one step's work: about 50 us of page-table filling
constexpr uint64_t kMapAheadLimit = 2u << 20;   // at most this far past the reader: each MB is peak RSS

struct ByteRange {
    uint64_t from = 0, to = 0;
    bool empty() const { return from >= to; }
};

// The next stretch to map, in whole pages: empty when mapping is far enough
// ahead of `reader_at` (the offset the reader reads at) or at the file's end.
// `mapped_to` is where the last stretch ended; `page` the page size.
ByteRange next_map_ahead(uint64_t reader_at, uint64_t mapped_to, uint64_t file_size, uint64_t page);

class MapAhead {
public:
    MapAhead(const uint8_t* base, uint64_t size, uint64_t page) : base_(const_cast<uint8_t*>(base)), size_(size), page_(page) {}

    // The reader's side. Where it reads now (at every record).
    void reader_at(uint64_t offset) { read_at_.store(offset, std::memory_order_relaxed); }
    // From now on helpers call step(): drops are left to them.
    void set_helped() { helped_ = true; }
    bool helped() const { return helped_; }
    // Gives back the pages of [from, to) (whole pages): here, or left to a
    // helper; the drop before it, if no helper took it, is done here.
    void drop(uint64_t from, uint64_t to);
    // The drop left to helpers, if none took it yet, done here (any thread);
    // false if there was none.
    bool take_drop();

    // A helper's side (any thread): a drop left to it, or the next stretch
    // mapped; false when there is nothing to do now.
    bool step() { return take_drop() || map_next(); }

private:
    bool map_next();
    void give_back(uint64_t from, uint64_t to);

    uint8_t* base_;
    uint64_t size_, page_;
    bool helped_ = false;  // the reader's
    // Each on a line of its own (the reader writes the first at every record).
    alignas(64) std::atomic<uint64_t> read_at_{0};
    alignas(64) std::atomic<uint64_t> dropped_line_{0};  // where the reader's last drop ended
    std::atomic<uint64_t> pending_drop_{0};              // first and end page of a drop left to a helper, or 0
    alignas(64) std::atomic<uint64_t> mapped_to_{0};     // where mapping ahead got to
    std::atomic<bool> refused_{false};                   // the kernel cannot (before Linux 5.14)
};

} // namespace stallscope::capture_detail
