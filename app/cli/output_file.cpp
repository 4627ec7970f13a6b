#include "app/cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

namespace stallscope::cli {

namespace {

// A regular file (or a new one) is written beside itself and renamed into
// place, so a reader never sees half a report. Anything else (/dev/null, a
// FIFO, /dev/stdout) is written directly: renaming over it would replace
// the device or pipe with a regular file.
bool atomic_target(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno == ENOENT;
    return S_ISREG(st.st_mode);
}

} // namespace

bool write_output(const std::string& path, const std::string& text, std::string& error) {
    OutputStream out;
    if (!out.open(path, error)) return false;
    out.stream().write(text.data(), std::streamsize(text.size()));
    return out.commit(error);
}

bool OutputStream::open(const std::string& path, std::string& error) {
    path_ = path;
    to_file_ = !(path.empty() || path == "-");
    if (!to_file_) return true;
    tmp_ = atomic_target(path) ? path + ".tmp" : std::string();
    // Reports come in 64 KiB chunks (JsonStream, the CSV writer) that go
    // straight to the file; this buffer gathers anything written in small
    // pieces into big writes as well. It must be set before open().
    buffer_.reset(new char[kBufferSize]);
    file_.rdbuf()->pubsetbuf(buffer_.get(), std::streamsize(kBufferSize));
    file_.open(tmp_.empty() ? path : tmp_, std::ios::binary | std::ios::trunc);
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
    if (file_.fail()) { error = path_ + ": write failed: " + std::strerror(errno); return false; }
    if (!tmp_.empty() && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        error = path_ + ": " + std::strerror(errno);
        return false;
    }
    committed_ = true;
    return true;
}

OutputStream::~OutputStream() {
    if (to_file_ && !committed_ && !tmp_.empty()) {
        file_.close();
        std::remove(tmp_.c_str());
    }
}

} // namespace stallscope::cli
