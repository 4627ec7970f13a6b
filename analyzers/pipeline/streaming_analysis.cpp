#include "analyzers/pipeline/streaming_analysis.h"

#include "analyzers/accounting/summary.h"

#include <algorithm>

namespace stallscope {

Analyzer::Analyzer(const AnalysisOptions& options, std::string file_name) : opt_(options) {
    front_.capture().file = std::move(file_name);
}

Analyzer::~Analyzer() = default;

void Analyzer::front_warning(Warning w) {
    const WarningCode code = w.code;
    size_t at = back_.add_warning(std::move(w));
    if (code == WarningCode::MissingTimestamp) missing_warning_ = at;
    if (code == WarningCode::BackwardsTimestamp) backwards_warning_ = at;
}

AnalysisResult Analyzer::snapshot() const {
    AnalysisResult r = back_.so_far();
    auto warnings = std::move(r.capture.warnings);
    r.capture = front_.capture();
    r.capture.warnings = std::move(warnings);
    table_.provisional(r.connections, r.calls);
    std::sort(r.connections.begin(), r.connections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    std::sort(r.calls.begin(), r.calls.end(), [](auto& a, auto& b) { return a.id < b.id; });
    r.summary = summarize(r.calls, r.findings);
    return r;
}

AnalysisResult Analyzer::finish() {
    front_.finish();
    table_.finish();
    return back_.finish(front_.capture(), missing_warning_, front_.missing_times(), backwards_warning_,
                        front_.backwards_times());
}

} // namespace stallscope
