#include "app/gui/fix_prediction.h"

#include <QObject>

namespace stallscope::gui {

// The analysis core does not predict per fix yet (the accounting work adds
// summary.*.what_if); until it does, no number is shown.
QString fixPredictionText(const AnalysisResult&, const FindingGroup&) { return QStringLiteral("—"); }

QString fixPredictionToolTip(const AnalysisResult&, const FindingGroup&) {
    return QObject::tr("What fixing this would buy: this analysis has no per-fix prediction.");
}

} // namespace stallscope::gui
