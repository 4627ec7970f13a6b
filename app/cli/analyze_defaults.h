#pragma once
// Analysis settings the CLI commands share, so `bench` measures what
// `analyze` does.
#include <cstddef>

namespace stallscope::cli {

// Calls kept in memory before everything goes to a spill file: about 3 MB
// of calls, and no disk use at all for the captures most people open.
constexpr size_t kDefaultSpillAfterCalls = 1000;

} // namespace stallscope::cli
