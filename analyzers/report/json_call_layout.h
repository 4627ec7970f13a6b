#pragma once
// A call's JSON element from runs of fixed text (issue 26): everything
// between two values of the element (a comma, the newline and indent, the
// next key; a bracket) depends only on the stream's indent and depth, so it
// is made once and copied as one fixed-size block, and the values are
// written at a pointer the writer holds, without the stream's per-member
// bookkeeping. The same bytes as report_json.cpp's call_json, which is the
// general path (and the one used when a run would not fit in JsonRun).
#include "analyzers/report/json_call_record.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <string>

namespace stallscope {

// Fixed text copied as kCap bytes (its tail overwritten by what follows).
struct JsonRun {
    static constexpr size_t kCap = 64;
    char bytes[kCap] = {};
    uint8_t size = 0;
};

// Writes the element of call k in the open array of w as call_json does:
// times relative to t0, element_count only when `whole`; with `marks`, the
// times and element_count null and their places noted (json_call_record.h).
// Returns false, writing nothing, when w's indent and depth make a run too
// long (the caller then takes the general path).
bool call_json_layout(JsonStream& w, const Call& k, int64_t t0, bool whole, CallJsonMarks* marks);

} // namespace stallscope
