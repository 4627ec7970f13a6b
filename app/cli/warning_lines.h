#pragma once
// How every command prints an analysis's warnings on stderr: one line each,
// naming the file once, then the message, then the frame and connection
// that the message does not already name.
#include "analyzers/result/model.h"

#include <string>
#include <vector>

namespace stallscope::cli {

std::string warning_line(const std::string& file, const Warning& w);
void print_warnings(const std::string& file, const std::vector<Warning>& warnings);

} // namespace stallscope::cli
