#pragma once
// Reports of an AnalysisResult: the readable text, the JSON documented in
// docs/json-format.md, and CSV. Pure functions of the result.
#include "analyzers/model.h"

#include <string>

namespace stallscope {

std::string report_text(const AnalysisResult& r);
std::string report_json(const AnalysisResult& r, int indent = 2);
std::string report_csv(const AnalysisResult& r);          // one row per call
std::string report_csv_summary(const AnalysisResult& r);  // one row per operation (and one for all)

// Helpers shared by the writers.
double round_ms(double ms);                  // 3 decimals
double ns_to_ms(int64_t ns);
std::string utc_time(int64_t ts_ns);         // 2026-01-02T03:04:05.123456789Z

} // namespace stallscope
