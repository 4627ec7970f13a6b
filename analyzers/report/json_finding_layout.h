#pragma once
// A finding's JSON element from runs of fixed text (json_fixed_runs.h): the
// same bytes as report_json.cpp's general finding_json.
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <cstdint>

namespace stallscope {

// Writes finding f as the next element of w's open array, its times
// relative to t0. Returns false, writing nothing, when w's indent and depth
// make a run too long or the capture is a file set (frame_locations: the
// general path writes those).
bool finding_json_layout(JsonStream& w, const Finding& f, int64_t t0, const CaptureInfo& c);

} // namespace stallscope
