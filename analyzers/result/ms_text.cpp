#include "analyzers/result/ms_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stallscope {

namespace {
std::string fixed(double v, int decimals, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, unit);
    return buf;
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
