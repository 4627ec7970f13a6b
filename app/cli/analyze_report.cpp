#include "app/cli/analyze_report.h"

#include "analyzers/report/json_call_record.h"
#include "analyzers/report/report.h"

namespace stallscope::cli {

void set_options_for_report(AnalysisOptions& options, const std::string& format) {
    // The text report lists the first calls only; the summary sees every call.
    if (format == "text") options.keep_calls = kTextReportCalls;
    // JSON: a spilled call is stored as its JSON element, made once
    // (json_call_record.h); with more threads the report's workers copy the
    // elements out in parallel (as cheap to store on the merge as a binary
    // record, and no decode and encode of every call in the report).
    if (format == "json") options.spill_call_as = json_call_recorder(2);
}

void write_report(const AnalysisResult& r, const std::string& format, std::ostream& os, unsigned threads) {
    if (format == "json") write_report_json(r, os, 2, threads);
    else if (format == "csv") write_report_csv(r, os);
    else if (format == "csv-summary") os << report_csv_summary(r);
    else write_report_text(r, os, threads);
}

} // namespace stallscope::cli
