#pragma once
// Writes a report to -o FILE (atomically: temp file then rename) or stdout.
#include <string>

namespace stallscope::cli {

bool write_output(const std::string& path, const std::string& text, std::string& error);

} // namespace stallscope::cli
