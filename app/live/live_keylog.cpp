#include "app/live/live_keylog.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stallscope::live {

namespace {
constexpr size_t kMaxLine = 4096;  // no key log line is this long; a runaway writer is cut
}

KeyLogTail::~KeyLogTail() {
    if (fd_ >= 0) ::close(fd_);
    // Wipe what was held of a secret line.
    std::fill(partial_.begin(), partial_.end(), '\0');
}

bool KeyLogTail::create(const std::string& path, std::string& error) {
    path_ = path;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) {
        error = path + ": cannot create the key log: " + std::strerror(errno);
        return false;
    }
    ::fchmod(fd_, 0600);  // an existing file keeps its mode on O_TRUNC
    return true;
}

std::string KeyLogTail::poll(uint64_t& first_line) {
    first_line = lines_ + 1;
    if (fd_ < 0) return {};
    std::string out;
    char buf[8192];
    for (int i = 0; i < 256; ++i) {  // bounded per poll (2 MB); the rest comes next time
        const ssize_t n = ::pread(fd_, buf, sizeof buf, off_t(read_));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        read_ += uint64_t(n);
        for (ssize_t k = 0; k < n; ++k) {
            partial_ += buf[k];
            if (buf[k] == '\n') {
                out += partial_;
                partial_.clear();
                ++lines_;
            } else if (partial_.size() > kMaxLine) {
                partial_.clear();  // not a key log line; dropped whole
            }
        }
        std::fill(buf, buf + n, '\0');
    }
    return out;
}

void KeyLogTail::close() {
    if (fd_ < 0) return;
    struct stat st {};
    const bool empty = ::fstat(fd_, &st) == 0 && st.st_size == 0;
    ::close(fd_);
    fd_ = -1;
    if (empty) ::unlink(path_.c_str());
}

std::string keylog_path_beside(const std::string& capture_path) {
    std::string base = capture_path;
    const size_t slash = base.rfind('/');
    for (const char* ext : {".pcapng", ".pcap", ".cap"}) {
        const size_t n = std::strlen(ext);
        if (base.size() > n && base.compare(base.size() - n, n, ext) == 0 &&
            (slash == std::string::npos || base.size() - n > slash + 1)) {
            base.resize(base.size() - n);
            break;
        }
    }
    return base + ".keylog";
}

} // namespace stallscope::live
