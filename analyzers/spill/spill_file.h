#pragma once
// An unlinked temporary file that records are appended to and read back
// from by offset. The name is gone from the directory as soon as it is
// created, so the file disappears when it is closed or the process dies:
// nothing is left behind in $TMPDIR, even after kill -9.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stallscope {

// A spill file could not be written or read (disk full, I/O error).
struct SpillError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class SpillFile {
public:
    // In `dir` ("" = $TMPDIR, else /tmp). nullptr and `error` when it cannot.
    static std::unique_ptr<SpillFile> create(const std::string& dir, std::string& error);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    // Returns where the record starts. Throws SpillError.
    uint64_t append(std::string_view bytes);
    // Overwrites (or writes past the end, leaving a hole) at `offset`, for
    // fixed-size records. Throws SpillError.
    void write_at(uint64_t offset, std::string_view bytes);
    // Reads `len` bytes at `offset` into out (replacing it). Throws SpillError.
    void read(uint64_t offset, uint32_t len, std::string& out);
    // The same for bytes already written (not in the append buffer): a
    // pread only, so safe from several threads. Throws SpillError.
    void read_written(uint64_t offset, uint32_t len, std::string& out) const;
    // The same into `len` bytes at `out` (a block read straight into its records).
    void read_written(uint64_t offset, uint32_t len, char* out) const;
    // Writes the append buffer out, so later reads need no write. Throws SpillError.
    void flush();
    uint64_t size() const { return written_ + buffer_.size(); }
    // Bytes in the file itself (read_written's limit); the rest is buffered.
    uint64_t written() const { return written_; }
    // For a read-only map of the written part (SpillScan).
    int fd() const { return fd_; }
    const std::string& dir() const { return dir_; }

private:
    SpillFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
    void pwrite_all(uint64_t offset, std::string_view bytes);

    int fd_ = -1;
    std::string dir_;
    std::string buffer_;    // appended bytes not yet written
    uint64_t written_ = 0;  // bytes in the file
};

} // namespace stallscope
