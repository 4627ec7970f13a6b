#pragma once
// Random values a hostile capture or result can hold, for the report tests:
// text with control characters, quotes, invalid and valid UTF-8; doubles
// that are NaN, infinite, -0, huge, tiny or any bit pattern.
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace stallscope::test {

// Text from a hostile capture: control characters, quotes, invalid and
// valid non-ASCII UTF-8, or plain.
inline std::string hostile_text(std::mt19937_64& rng) {
    static const char* pieces[] = {"", "GetQuote", "\"urn:x#op\"", "a\\b", "\r\n", "\t", "\x01", "\x7f",
                                   "\xc3\xa9", "\xe2\x82\xac", "\xff", "\xc3", "\xed\xa0\x80", "\xf0\x9f\x98\x80",
                                   "/p?q=1&r=<2>", "(NUL)"};
    std::string s;
    for (size_t n = rng() % 5; n > 0; --n) {
        size_t i = rng() % (sizeof pieces / sizeof *pieces);
        s += i == 15 ? std::string(1, '\0') : std::string(pieces[i]);
    }
    return s;
}

inline double awkward_double(std::mt19937_64& rng) {
    switch (rng() % 8) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return (rng() % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    case 2: return -0.0;
    case 3: return 1e21 * double(rng() % 1000);
    case 4: return 1e-7 * double(rng() % 1000);
    case 5: {
        uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }
    default: return double(int64_t(rng() % 20'000'000) - 10'000'000) / 997.0;
    }
}

} // namespace stallscope::test
