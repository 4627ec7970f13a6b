#pragma once
// Analysis settings the CLI commands share, so `bench` measures what
// `analyze` does.
#include "analyzers/pipeline/analyze_capture.h"

#include <cstddef>

namespace stallscope::cli {

// Calls kept in memory before everything goes to a spill file: about 3 MB
// of calls, and no disk use at all for the captures most people open.
constexpr size_t kDefaultSpillAfterCalls = 1000;

// --threads accepts 1 to this.
constexpr unsigned kMaxThreads = 256;

// Threads for `analyze` when --threads is not given: the machine's cores.
inline unsigned default_threads() { return default_analysis_threads(); }

} // namespace stallscope::cli
