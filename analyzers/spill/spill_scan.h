#pragma once
// Reading many records of a spill file in about the order they were written
// (a report walking every call), without a read per record: the written
// part of the file is mapped read-only in windows on a fixed grid, a few at
// a time, and a record is a view into its window. Only the pages a walk
// touches are brought in, and none are copied; a window given up is
// unmapped, so the pages counted in the process's memory stay at a few
// windows' worth. One per walk (not shared between threads).
#include "analyzers/spill/spill_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

class SpillScan {
public:
    explicit SpillScan(SpillFile& file);
    ~SpillScan();
    SpillScan(const SpillScan&) = delete;
    SpillScan& operator=(const SpillScan&) = delete;

    // The bytes of the record at `offset` (after its 4-byte length) when the
    // record with its length is written (not in the append buffer) and fits
    // in a window (it may straddle two). nullopt when it is longer than a
    // window, runs past the written part or cannot be mapped: the caller
    // reads it the slow way, which also reports the error. Valid until the
    // next call.
    std::optional<std::string_view> record(uint64_t offset);

    static constexpr uint32_t kWindowBytes = 256 * 1024;

    // Windows mapped so far (for tests: a walk in file order maps each once).
    uint64_t windows_mapped() const { return mapped_; }

private:
    struct Window {
        uint64_t start = UINT64_MAX;  // a multiple of kWindowBytes
        const char* bytes = nullptr;
        uint64_t len = 0;  // bytes mapped
        uint64_t last_use = 0;
    };
    // The window at `start` holding at least `need` bytes, mapped if not
    // kept (or kept shorter, from before the file grew); nullptr if mmap fails.
    const Window* window(uint64_t start, uint64_t need);
    // `n` bytes from `offset` into `out`, across the windows they lie in.
    bool copy(uint64_t offset, uint64_t n, char* out);
    static void unmap(Window& w);

    SpillFile& file_;
    // Calls are written as they finish, not in id order: a few windows keep
    // the places a walk in id order moves between (how many: spill_scan.cpp).
    std::vector<Window> windows_;
    Window* last_ = nullptr;  // the window window() returned last (windows_ never moves)
    uint64_t uses_ = 0;
    uint64_t mapped_ = 0;
    std::string joined_;  // a record that straddles two windows
};

} // namespace stallscope
