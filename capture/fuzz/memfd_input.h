#pragma once
// Gives fuzz input bytes a file path (the readers open files by name): an
// in-memory file from memfd_create, reached through /proc/self/fd/N. No disk
// I/O, one descriptor reused for every input.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace stallscope::fuzz {

inline std::string memfd_path_with(const uint8_t* data, size_t size) {
    static int fd = [] {
        int f = memfd_create("stallscope-fuzz", 0);
        if (f < 0) std::abort();
        return f;
    }();
    if (ftruncate(fd, 0) != 0) std::abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, off_t(done));
        if (n <= 0) std::abort();
        done += size_t(n);
    }
    return "/proc/self/fd/" + std::to_string(fd);
}

} // namespace stallscope::fuzz
