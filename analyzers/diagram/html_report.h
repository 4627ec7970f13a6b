#pragma once
// One self-contained HTML page for an analysis: capture summary, latency per
// operation, findings ranked by time lost (explanation, evidence frames, fix),
// the calls, and the timeline inlined as SVG. No external resources. Every
// string that came from the capture is escaped.
#include "analyzers/result/model.h"

#include <cstddef>
#include <string>

namespace stallscope {

struct HtmlReportOptions {
    size_t max_findings = 500;       // rows of the findings list (the rest are counted)
    size_t max_calls = 5000;         // rows of the calls table
    size_t max_timeline_rows = 300;  // calls drawn in the inlined timeline
    size_t max_warnings = 100;
};

std::string html_report(const AnalysisResult& result, const HtmlReportOptions& options = {});

// &, <, >, " and ' escaped; invalid UTF-8 and control characters replaced.
std::string html_escape(const std::string& s);

} // namespace stallscope
