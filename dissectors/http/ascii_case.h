#pragma once
// ASCII case, the one helper of the tree: HTTP field names, tokens, media
// types and codings are ASCII and case-insensitive (RFC 9110 5.1, 8.3.1), so
// no locale is consulted and no byte outside A-Z changes.
#include <algorithm>
#include <string>
#include <string_view>

namespace stallscope {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

constexpr bool ascii_iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

// Whether `hay` contains `needle`, ignoring ASCII case, compared in place
// (no lower-cased copy).
inline bool ascii_icontains(std::string_view hay, std::string_view needle) {
    auto same = [](char h, char n) { return ascii_lower(h) == ascii_lower(n); };
    return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), same) != hay.end();
}

inline std::string ascii_lowered(std::string s) {
    for (char& c : s) c = ascii_lower(c);
    return s;
}

} // namespace stallscope
