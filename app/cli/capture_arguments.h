#pragma once
// Capture file arguments of analyze, export and compare: a path, or a quoted
// pattern ('run_*.pcapng') matched as the shell would (a file set, issue 24).
#include <string>
#include <vector>

namespace stallscope::cli {

// Appends `arg` (or the files its pattern matches, sorted) to `out`; false
// when a pattern matches nothing.
bool add_capture_argument(const std::string& arg, std::vector<std::string>& out);

} // namespace stallscope::cli
