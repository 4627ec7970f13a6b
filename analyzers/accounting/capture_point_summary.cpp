#include "analyzers/accounting/capture_point_summary.h"

#include "analyzers/result/result_spill.h"

namespace stallscope {

CapturePointSummary summarize_capture_point(const AnalysisResult& r) {
    // A spilled result tallied its connections as they came: reading them
    // back was a second decoding of each (10.5 M of --json's 1,535 M on the
    // 200k bench file).
    if (r.spill) return r.spill->capture_point();
    CapturePointTally t;
    for_each_connection(r, [&](const Connection& c) {
        t.add(c);
        return true;
    });
    return t.done();
}

const char* capture_place_text(CapturePlace p) {
    switch (p) {
    case CapturePlace::Client: return "near the client";
    case CapturePlace::Server: return "near the server";
    case CapturePlace::Path: return "in the path";
    case CapturePlace::Both: return "at both ends";
    case CapturePlace::Unknown: break;
    }
    return "at an unknown point";
}

bool capture_point_reported(const CapturePointSummary& s) {
    return s.place != CapturePlace::Both && !(s.place == CapturePlace::Unknown && s.by_place[0] == 0);
}

} // namespace stallscope
