#pragma once
// The comparison as two tables: latency per operation (first row: all
// calls) and findings per kind with the verdict, coloured by outcome.
#include "analyzers/compare/compare.h"

class QTableWidget;
class QString;

namespace stallscope::gui {

// Row 0 is the overall group, row i+1 is c.groups[i].
void fillOperationsTable(QTableWidget* t, const Comparison& c, bool dark);
void fillKindsTable(QTableWidget* t, const Comparison& c, bool dark);
// Each fix AFTER shows as made, as BEFORE's findings predicted it and as AFTER
// measured it: Fix, Verdict, Before, Predicted, Measured, Error (medians, ms).
void fillPredictionsTable(QTableWidget* t, const Comparison& c);
// One line for the header: what was fixed, what is new, what got faster.
QString verdictSummary(const Comparison& c);
// A kind that got worse, with its numbers: "worse: server time 10.0 → 19.9 ms per call".
QString worseText(const KindComparison& k);

} // namespace stallscope::gui
