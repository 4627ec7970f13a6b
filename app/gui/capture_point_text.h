#pragma once
// Where the capture was taken and whose view its latencies are, in the
// report's words (analyzers/accounting/capture_point_summary.h), for the
// Overview and the Calls table's Latency column (issue 24).
#include "analyzers/accounting/capture_point_summary.h"

#include <QString>

namespace stallscope::gui {

struct CapturePointText {
    QString where;       // "near the client; round trip 20.8 ms (0.006 ms client side, 20.8 ms server side)"
    QString evidence;    // "from the handshakes of 1 of 1 connection and 16 data/ACK pairs"
    QString view;        // "the client's view"
    QString view_long;   // the report's sentence: "the client's: what the client lived, ..."
    bool client_view = true;   // false: the latencies leave out part of the client's wait
};

CapturePointText capturePointText(const CapturePointSummary& s);

} // namespace stallscope::gui
