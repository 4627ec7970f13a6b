#pragma once
// A finding's details as the JSON object they once were built into: a key
// given twice keeps its first place and its last value.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

// fn(key, value) for each distinct key, in the order of its first place.
template <class Fn> void for_each_detail(const std::vector<std::pair<std::string, std::string>>& details, Fn&& fn) {
    for (size_t i = 0; i < details.size(); ++i) {
        const std::string& key = details[i].first;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j) seen = details[j].first == key;
        if (seen) continue;
        const std::string* v = &details[i].second;
        for (size_t j = i + 1; j < details.size(); ++j)
            if (details[j].first == key) v = &details[j].second;
        fn(key, *v);
    }
}

} // namespace stallscope
