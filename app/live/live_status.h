#pragma once
// The one-line live summary of a running capture (stderr on a terminal, the
// GUI's status bar): time, packets, drops, calls, latency, findings.
#include "analyzers/result/model.h"
#include "app/live/live_session.h"

#include <string>

namespace stallscope::live {

std::string status_line(const SessionStatus& st, const AnalysisResult& snapshot);
// "1.2 MB", "340 KB", "512 B"
std::string human_bytes(uint64_t bytes);

} // namespace stallscope::live
