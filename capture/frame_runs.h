#pragma once
// Where each frame of a capture read from several files came from (a file
// set, issue 24): frames are numbered across the set, and each run of
// consecutive frames from one file records the file and the first one's
// number in it.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace stallscope {

struct FrameRun {
    uint64_t first = 0;       // set frame number of the run's first frame
    uint32_t file = 0;        // index into the set's files
    uint64_t file_first = 0;  // that frame's number in its file
    uint64_t count = 0;
};

// File index and frame number within it of set frame `n` (false: no run holds it).
inline bool locate_in_runs(const std::vector<FrameRun>& runs, uint64_t n, uint32_t& file, uint64_t& file_frame) {
    auto it = std::upper_bound(runs.begin(), runs.end(), n, [](uint64_t v, const FrameRun& r) { return v < r.first; });
    if (it == runs.begin()) return false;
    const FrameRun& r = *std::prev(it);
    if (n >= r.first + r.count) return false;
    file = r.file;
    file_frame = r.file_first + (n - r.first);
    return true;
}

// Adds set frame `n`, frame `file_frame` of `file`, extending the last run when it continues it.
inline void add_to_runs(std::vector<FrameRun>& runs, uint64_t n, uint32_t file, uint64_t file_frame) {
    if (!runs.empty()) {
        FrameRun& r = runs.back();
        if (r.file == file && r.file_first + r.count == file_frame && r.first + r.count == n) {
            ++r.count;
            return;
        }
    }
    runs.push_back({n, file, file_frame, 1});
}

} // namespace stallscope
