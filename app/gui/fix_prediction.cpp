#include "app/gui/fix_prediction.h"

#include "app/gui/display_text.h"

#include <QObject>

namespace stallscope::gui {

namespace {

// The summary's prediction for this fix (summary.overall.what_if, matched by
// kind and side); without an entry for this fix there is no prediction and
// the views say so.
QString predictionText(const SummaryGroup& group, const FindingGroup& g, bool tooltip) {
    for (const WhatIf& w : group.what_if) {
        if (w.kind != g.kind || w.side != side_name(g.side)) continue;
        const LatencyStats& now = w.client_time ? group.client_latency : group.latency;
        if (!tooltip)
            return QObject::tr("median %1 → %2").arg(formatMs(now.median_ms), formatMs(w.predicted_median_ms));
        return QObject::tr("Fixing the %1 (%2) stalls: median %3 → %4, p90 %5 → %6 over all calls; %7 calls change%8.")
            .arg(findingKindLabel(g.kind), sideLabel(g.side), formatMs(now.median_ms), formatMs(w.predicted_median_ms),
                 formatMs(now.p90_ms), formatMs(w.predicted_p90_ms))
            .arg(w.calls)
            .arg(w.client_time ? QObject::tr(" (client time: connection setup + latency)") : QString());
    }
    return tooltip ? QObject::tr("What fixing this would buy: the analysis has no prediction for this fix.") : QStringLiteral("—");
}

} // namespace

QString fixPredictionText(const AnalysisResult& r, const FindingGroup& g) { return predictionText(r.summary.overall, g, false); }

QString fixPredictionToolTip(const AnalysisResult& r, const FindingGroup& g) { return predictionText(r.summary.overall, g, true); }

} // namespace stallscope::gui
