#include "app/cli/capture_arguments.h"

#include <glob.h>

#include <filesystem>

namespace stallscope::cli {

bool add_capture_argument(const std::string& arg, std::vector<std::string>& out) {
    if (arg.find_first_of("*?[") == std::string::npos) {
        out.push_back(arg);  // a plain path: whether it opens is the reader's to say
        return true;
    }
    glob_t g{};
    const int rc = ::glob(arg.c_str(), 0, nullptr, &g);  // sorted by name
    if (rc == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    ::globfree(&g);
    if (rc == 0) return true;
    std::error_code ec;
    if (!std::filesystem::exists(arg, ec)) return false;
    out.push_back(arg);  // a name with a bracket in it, not a pattern
    return true;
}

} // namespace stallscope::cli
