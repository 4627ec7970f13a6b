#include "app/cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

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

namespace stallscope::cli {

bool OutputStream::open(const std::string& path, std::string& error) {
    path_ = path;
    to_file_ = !(path.empty() || path == "-");
    if (!to_file_) return true;
    tmp_ = path + ".tmp";
    file_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!file_) { error = path + ": " + std::strerror(errno); return false; }
    return true;
}

std::ostream& OutputStream::stream() { return to_file_ ? static_cast<std::ostream&>(file_) : std::cout; }

bool OutputStream::commit(std::string& error) {
    if (!to_file_) {
        std::cout.flush();
        if (!std::cout) { error = "stdout: write failed"; return false; }
        return true;
    }
    file_.close();
    if (file_.fail() || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        error = path_ + ": " + std::strerror(errno);
        return false;
    }
    committed_ = true;
    return true;
}

OutputStream::~OutputStream() {
    if (to_file_ && !committed_) {
        file_.close();
        std::remove(tmp_.c_str());
    }
}

} // namespace stallscope::cli
