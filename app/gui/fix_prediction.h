#pragma once
// What fixing one group of findings would buy, as the analysis predicts it
// (summary.*.what_if, per fix). The one place the GUI reads that prediction:
// when the analysis has none, the views say so instead of guessing.
#include "app/gui/findings_groups.h"

#include <QString>

namespace stallscope::gui {

QString fixPredictionText(const AnalysisResult& r, const FindingGroup& g);      // "median 45 → 4.0 ms", or "—"
QString fixPredictionToolTip(const AnalysisResult& r, const FindingGroup& g);

} // namespace stallscope::gui
