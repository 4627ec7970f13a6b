#pragma once
// Resident KB of this process's mappings of a file (/proc/self/smaps), for
// the tests that a mapped reader gives its pages back (tests only).
#include <cctype>
#include <cstdint>
#include <fstream>
#include <string>

namespace stallscope::test {

inline long resident_kb_of(const std::string& path) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool ours = false;
    long kb = 0;
    while (std::getline(smaps, line)) {
        if (line.find('-') != std::string::npos && line.find(' ') < line.size() && std::isxdigit(uint8_t(line[0])) &&
            line.find(':') > line.find(' '))
            ours = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
        else if (ours && line.rfind("Rss:", 0) == 0)
            kb += std::stol(line.substr(4));
    }
    return kb;
}

} // namespace stallscope::test
