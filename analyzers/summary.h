#pragma once
// Per-capture and per-operation latency statistics, time lost to each kind
// of finding, and the latency predicted once those stalls are fixed.
#include "analyzers/model.h"

namespace stallscope {

// The name calls are grouped by: the SOAP operation, else "METHOD /path".
std::string operation_key(const Call& c);
LatencyStats latency_stats(std::vector<double> latencies_ms);
Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings);

} // namespace stallscope
