#include "app/cli/warning_lines.h"

#include <cstdio>

namespace stallscope::cli {

std::string warning_line(const std::string& file, const Warning& w) {
    // Messages do not carry the file (the report names it once).
    std::string where;
    if (w.frame && !warning_text_names_frame(w.code)) where = "frame " + std::to_string(w.frame);
    if (w.connection_id) where += (where.empty() ? "" : ", ") + ("connection " + std::to_string(w.connection_id));
    return "stallscope-cli: warning: " + file + ": " + w.message + (where.empty() ? "" : " [" + where + "]");
}

void print_warnings(const std::string& file, const std::vector<Warning>& warnings) {
    for (const Warning& w : warnings) std::fprintf(stderr, "%s\n", warning_line(file, w).c_str());
}

} // namespace stallscope::cli
