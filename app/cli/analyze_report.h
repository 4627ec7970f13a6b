#pragma once
// What `analyze --FORMAT` asks of the analysis and how it writes the report,
// in one place, so `bench` measures exactly what `analyze` does (its rows
// once timed the JSON from binary records, which analyze no longer makes).
#include "analyzers/pipeline/analyze_capture.h"

#include <ostream>
#include <string>

namespace stallscope::cli {

// The text report keeps only the calls it lists; JSON stores a spilled call
// as its JSON element (json_call_record.h).
void set_options_for_report(AnalysisOptions& options, const std::string& format);

// format: "text", "json", "csv" or "csv-summary"; threads as the analysis's.
void write_report(const AnalysisResult& r, const std::string& format, std::ostream& os, unsigned threads);

} // namespace stallscope::cli
