#include "analyzers/result/ms_text.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace stallscope {

namespace {
// std::to_chars writes what printf's "%.*f" writes (C locale), at a tenth
// of its cost: detectors format a time into every finding's explanation.
// The usual case in integers: v >= 0 (not -0), up to 3 decimals, under 1e9
// scaled. v * 10^d is then within 1.2e-7 of its exact value, so rounding to
// nearest gives printf's digits unless the fraction is within 1e-6 of a
// half (then null, and to_chars decides). A tenth of to_chars' cost.
char* fixed_small(char* out, double v, int decimals) {
    static constexpr double kScale[] = {1, 10, 100, 1000};
    if (decimals < 0 || decimals > 3 || !(v >= 0) || std::signbit(v)) return nullptr;
    const double scaled = v * kScale[decimals];
    if (!(scaled < 1e9)) return nullptr;
    uint64_t n = uint64_t(scaled);
    const double frac = scaled - double(n);  // exact
    if (std::fabs(frac - 0.5) < 1e-6) return nullptr;
    n += frac > 0.5;
    char digits[24];
    char* d_end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    const int len = int(d_end - digits);
    const int whole = len > decimals ? len - decimals : 0;  // digits before the point
    if (whole == 0) *out++ = '0';
    else out = std::copy(digits, digits + whole, out);
    if (decimals == 0) return out;
    *out++ = '.';
    for (int z = len; z < decimals; ++z) *out++ = '0';  // leading zeros of the decimals
    return std::copy(digits + whole, d_end, out);
}

std::string fixed(double v, int decimals, const char* unit) {
    char buf[400];  // %f of the largest double: 309 digits and the decimals
    char* end = fixed_small(buf, v, decimals);
    if (!end) {
        auto r = std::to_chars(buf, buf + sizeof buf - 16, v, std::chars_format::fixed, decimals);
        end = r.ptr;
        if (r.ec != std::errc()) {
            std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
            end = buf + std::strlen(buf);
        }
    }
    std::string out(buf, end);
    out += unit;
    return out;
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
