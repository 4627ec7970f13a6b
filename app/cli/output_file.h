#pragma once
// Writes a report to -o FILE (atomically: temp file then rename) or stdout.
#include <fstream>
#include <memory>
#include <ostream>
#include <string>

namespace stallscope::cli {

bool write_output(const std::string& path, const std::string& text, std::string& error);

// The same for a report written piece by piece: stream() is stdout or
// FILE.tmp, renamed to FILE by commit(); dropped without commit, the temp
// file is removed.
class OutputStream {
public:
    bool open(const std::string& path, std::string& error);
    std::ostream& stream();
    bool commit(std::string& error);
    ~OutputStream();

private:
    static constexpr size_t kBufferSize = 1 << 20;
    std::string path_, tmp_;
    std::unique_ptr<char[]> buffer_;  // declared before file_: outlives it
    std::ofstream file_;
    bool to_file_ = false, committed_ = false;
};

} // namespace stallscope::cli
