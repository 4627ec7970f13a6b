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

// The answer in one sentence, the first line of every output: how the
// median moved (or that it did not measurably), then the stalls fixed and
// on which side, and any stall that is new or got worse.
// "Faster: median 90.0 → 3.49 ms (−96 %, p < 0.0001); Nagle / delayed ACK fixed on both sides"
// "No measurable change (p = 0.41)"
std::string compare_verdict_sentence(const Comparison& c);

std::string compare_text(const Comparison& c, const std::vector<CheckedExpectation>& checked = {});
// Markdown for a pull-request comment: verdict line, compact tables, predictions.
std::string compare_markdown(const Comparison& c, const std::vector<CheckedExpectation>& checked = {});
std::string compare_json(const Comparison& c, const std::vector<CheckedExpectation>& checked = {}, int indent = 2);

} // namespace stallscope
