#pragma once
// The comparison as readable text and as JSON (fields in docs/compare.md).
// Pure functions of a Comparison.
#include "analyzers/compare/compare.h"

#include <string>
#include <vector>

namespace stallscope {

// An expectation the caller checked (--expect-fixed KIND, --expect-no-regression),
// included in the reports so a CI log shows what was asked and why it failed.
struct CheckedExpectation {
    std::string name;          // "expect-fixed nagle_delayed_ack", "expect-no-regression"
    ExpectationResult result;
};

std::string compare_text(const Comparison& c, const std::vector<CheckedExpectation>& checked = {});
// Markdown for a pull-request comment: verdict line, compact tables, predictions.
std::string compare_markdown(const Comparison& c, const std::vector<CheckedExpectation>& checked = {});
std::string compare_json(const Comparison& c, const std::vector<CheckedExpectation>& checked = {}, int indent = 2);

} // namespace stallscope
