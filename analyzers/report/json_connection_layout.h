#pragma once
// A connection's JSON element from runs of fixed text (json_fixed_runs.h):
// the same bytes as report_json.cpp's general connection_json.
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

namespace stallscope {

// Writes connection k as the next element of w's open array. Returns false,
// writing nothing, when w's indent and depth make a run too long (the
// caller then takes the general path).
bool connection_json_layout(JsonStream& w, const Connection& k);

} // namespace stallscope
