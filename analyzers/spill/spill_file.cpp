#include "analyzers/spill/spill_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace stallscope {

namespace {
constexpr size_t kBufferBytes = 1 << 20;  // write in 1 MiB pieces

std::string sys_error(const std::string& what, const std::string& dir) {
    return "spill file in " + dir + ": " + what + ": " + std::strerror(errno);
}
} // namespace

std::unique_ptr<SpillFile> SpillFile::create(const std::string& dir_in, std::string& error) {
    std::string dir = dir_in;
    if (dir.empty()) {
        const char* t = std::getenv("TMPDIR");
        dir = t && *t ? t : "/tmp";
    }
    // O_TMPFILE: a file with no name at all. Where the file system does not
    // support it, a named file removed at once.
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        std::string name = dir + "/stallscope-spill-XXXXXX";
        fd = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0) {
        error = sys_error("cannot create", dir);
        return nullptr;
    }
    return std::unique_ptr<SpillFile>(new SpillFile(fd, dir));
}

SpillFile::~SpillFile() {
    if (fd_ >= 0) ::close(fd_);
}

void SpillFile::pwrite_all(uint64_t offset, std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw SpillError(sys_error("write failed", dir_));
        done += size_t(n);
    }
}

void SpillFile::flush() {
    pwrite_all(written_, buffer_);
    written_ += buffer_.size();
    buffer_.clear();
}

void SpillFile::write_at(uint64_t offset, std::string_view bytes) {
    flush();
    pwrite_all(offset, bytes);
    written_ = std::max(written_, offset + bytes.size());
}

uint64_t SpillFile::append(std::string_view bytes) {
    uint64_t at = size();
    buffer_.append(bytes);
    if (buffer_.size() >= kBufferBytes) flush();
    return at;
}

void SpillFile::read(uint64_t offset, uint32_t len, std::string& out) {
    if (offset + len > written_) flush();  // the record is (partly) still in the buffer
    read_written(offset, len, out);
}

void SpillFile::read_written(uint64_t offset, uint32_t len, std::string& out) const {
    if (offset + len > written_)
        throw SpillError("spill file in " + dir_ + ": read past the end at offset " + std::to_string(offset));
    out.resize(len);
    read_written(offset, len, out.data());
}

void SpillFile::read_written(uint64_t offset, uint32_t len, char* out) const {
    if (offset + len > written_)
        throw SpillError("spill file in " + dir_ + ": read past the end at offset " + std::to_string(offset));
    size_t done = 0;
    while (done < len) {
        ssize_t n = ::pread(fd_, out + done, len - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) throw SpillError("spill file in " + dir_ + ": short read at offset " + std::to_string(offset));
        if (n < 0) throw SpillError(sys_error("read failed", dir_));
        done += size_t(n);
    }
}

} // namespace stallscope
