#pragma once
// The capture files (.pcap, .pcapng, .cap) in a folder, sorted; empty when
// the folder is absent. Shared by the tests that run over whole corpora.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace stallscope::test {

inline std::vector<std::string> captures_under(const std::filesystem::path& dir, bool recursive) {
    namespace fs = std::filesystem;
    std::vector<std::string> v;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return v;
    auto take = [&](const fs::directory_entry& e) {
        auto ext = e.path().extension();
        if (e.is_regular_file() && (ext == ".pcap" || ext == ".pcapng" || ext == ".cap")) v.push_back(e.path().string());
    };
    if (recursive) for (auto& e : fs::recursive_directory_iterator(dir)) take(e);
    else for (auto& e : fs::directory_iterator(dir)) take(e);
    std::sort(v.begin(), v.end());
    return v;
}

// The bundled captures (testdata/, not its subfolders), sorted. They are
// always there: a loop over none would prove nothing, so none fails.
inline std::vector<std::string> bundled_captures(const std::filesystem::path& testdata) {
    std::vector<std::string> v = captures_under(testdata, false);
    REQUIRE(v.size() >= 20);
    return v;
}

} // namespace stallscope::test
