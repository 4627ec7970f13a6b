#pragma once
// The nlohmann-tree JSON report (the renderer before JsonStream), for tests.
#include "analyzers/result/model.h"

#include <ostream>
#include <string>

namespace stallscope::test {

void reference_write_report_json(const AnalysisResult& r, std::ostream& os, int indent);
std::string reference_report_json(const AnalysisResult& r, int indent);

} // namespace stallscope::test
