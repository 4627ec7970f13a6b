#include "analyzers/result/ms_text.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace stallscope {

namespace {
// std::to_chars writes what printf's "%.*f" writes (C locale), at a tenth
// of its cost: detectors format a time into every finding's explanation.
std::string fixed(double v, int decimals, const char* unit) {
    char buf[400];  // %f of the largest double: 309 digits and the decimals
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf - 16, v, std::chars_format::fixed, decimals);
    if (ec != std::errc()) {
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        end = buf + std::strlen(buf);
    }
    return std::string(buf, end) + unit;
}
} // namespace

int ms_decimals(double ms, int min_decimals) {
    const double a = std::fabs(ms);
    return std::max(min_decimals, a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

std::string ms_number(double ms, int min_decimals) { return fixed(ms, ms_decimals(ms, min_decimals), ""); }

std::string format_ms(double ms) {
    const double a = std::fabs(ms);
    if (a == 0) return "0 ms";
    if (a >= 1000) return fixed(ms / 1000, a >= 10000 ? 1 : 2, " s");
    if (a < 0.001) return fixed(ms * 1e6, 0, " ns");
    return fixed(ms, ms_decimals(ms), " ms");
}

} // namespace stallscope
