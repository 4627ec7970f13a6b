#pragma once
// Where the whole capture was taken, from its connections' path positions
// (analyzers/result/capture_point.h): the place most connections agree on,
// the medians of each side's round trip, and the evidence behind them. The
// report says it once, beside whose view the latencies are.
#include "analyzers/result/capture_point_tally.h"
#include "analyzers/result/model.h"

namespace stallscope {

CapturePointSummary summarize_capture_point(const AnalysisResult& r);

// "near the client", "near the server", "in the path", "at both ends", "at an unknown point".
const char* capture_place_text(CapturePlace p);
// Whether the report says where the capture was taken: not when the round
// trip is under 1 ms (loopback: both ends see the same), nor when no
// connection was even looked at.
bool capture_point_reported(const CapturePointSummary& s);

} // namespace stallscope
