#pragma once
// BEFORE's predictions (summary.what_if) checked against what AFTER
// measured (compare.h, PredictionCheck): one per fix AFTER shows as made,
// all stalls when every one was, and first the prediction for exactly what
// AFTER removed (its latency fixes together). See docs/compare.md.
#include "analyzers/compare/compare.h"
#include "analyzers/compare/compare_input.h"

#include <string>
#include <utility>
#include <vector>

namespace stallscope {

std::vector<PredictionCheck> check_predictions(const CompareInput& before, const CompareInput& after);

// The median latency of BEFORE's complete calls with the fixes `fixes`
// (kind, side) made together: each call loses the sum of what each fix
// removes from it (CompareInput::savings), at most its time in all stalls.
// Exact when the fixes' stalls do not overlap in a call (a request hold and
// a response hold) and when they are every stall of the call; where two
// overlap without being every stall, the overlap is counted once per fix
// (a saving at most that much too large).
double predicted_median_together(const CompareInput& before,
                                 const std::vector<std::pair<std::string, std::string>>& fixes);

} // namespace stallscope
