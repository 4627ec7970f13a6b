#include "app/gui/capture_point_text.h"

#include "app/gui/display_text.h"

#include <QObject>

namespace stallscope::gui {

CapturePointText capturePointText(const CapturePointSummary& s) {
    CapturePointText t;
    t.where = QString::fromLatin1(capture_place_text(s.place));
    if (!capture_point_reported(s) && s.place == CapturePlace::Both)
        t.where += QObject::tr(" (round trip under 1 ms: both ends see the same)");
    else if (s.connections && s.client_side_ms >= 0 && s.server_side_ms >= 0)
        t.where += QObject::tr("; round trip %1 (%2 client side, %3 server side)")
                       .arg(formatMs(s.client_side_ms + s.server_side_ms), formatMs(s.client_side_ms), formatMs(s.server_side_ms));
    t.evidence = QObject::tr("from %1").arg(QString::fromStdString(s.evidence));
    t.view_long = QString::fromStdString(s.view);
    // The report's sentence starts with whose view it is, up to the colon.
    const qsizetype colon = t.view_long.indexOf(QLatin1Char(':'));
    t.view = s.place == CapturePlace::Unknown ? QObject::tr("capture point unknown")
                                              : (colon > 0 ? t.view_long.left(colon) : t.view_long) + QObject::tr(" view");
    t.client_view = s.place == CapturePlace::Client || s.place == CapturePlace::Both;
    return t;
}

} // namespace stallscope::gui
