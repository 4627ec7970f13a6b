#include "app/cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stallscope::cli {

bool write_output(const std::string& path, const std::string& text, std::string& error) {
    if (path.empty() || path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) { error = "stdout: write failed"; return false; }
        std::fflush(stdout);
        return true;
    }
    std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) { error = path + ": " + std::strerror(errno); return false; }
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        error = path + ": " + std::strerror(errno);
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

} // namespace stallscope::cli
