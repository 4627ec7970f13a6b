#pragma once
// The general member-by-member writers of a connection's and a finding's
// JSON element (report_json.cpp): what the fixed-run writers
// (json_connection_layout.h, json_finding_layout.h) fall back on, and what
// the tests compare them with.
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <cstdint>

namespace stallscope {

void connection_json_general(JsonStream& w, const Connection& k);
void finding_json_general(JsonStream& w, const Finding& f, int64_t t0, const CaptureInfo& c);

} // namespace stallscope
