#pragma once
// Which call goes on which row of the waterfall, the stall brackets on it
// (the call ledger's counted stretches), and what is under a point.
// Pure data (no Qt): unit-tested without a display.
#include "app/gui/loaded_result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

namespace stallscope::gui {

struct TimelineStall {
    size_t finding = 0;        // index into LoadedResult's findings
    int64_t start_ns = 0, end_ns = 0;   // a stretch the call ledger counts under it
    double ms = 0;                      // end - start: >= kMinStallBracketMs
};

struct TimelineRow {
    size_t call = 0;           // row of LoadedResult's calls
    uint64_t call_id = 0;
    int64_t start_ns = 0, end_ns = 0;
    std::vector<TimelineStall> stalls;
};

struct TimelineRows {
    std::vector<TimelineRow> rows;      // in order of start time
    int64_t start_ns = 0, end_ns = 0;   // extent of everything shown

    // Rows for the calls whose id is in `only` (all calls when `only` is empty
    // and show_all is true). Reads only the keys.
    static TimelineRows build(const LoadedResult& r, const std::unordered_set<uint64_t>& only,
                              bool show_all);

    std::optional<size_t> rowOfCall(uint64_t call_id) const;

private:
    static void addCountedStalls(const LoadedResult& r, const std::vector<size_t>& findings, TimelineRow& row);
};

// Row under y, for rows of `row_height` starting at `top`.
std::optional<size_t> rowAtY(double y, double top, double row_height, size_t row_count);

// The phase of a call that covers time t (nullopt between phases).
std::optional<size_t> phaseAt(const Call& c, int64_t t_ns);
// The stall of a row that covers t, with a tolerance in ns (stalls may be thin).
std::optional<size_t> stallAt(const TimelineRow& row, int64_t t_ns, int64_t tolerance_ns);

} // namespace stallscope::gui
