#include "analyzers/report/json_number.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace stallscope {

char* write_ms_double(char* out, double d) {
    const double a = std::fabs(d);
    if (!(a < 4294968.0)) return nullptr;  // also NaN
    // Whatever n the rounding finds, the test below decides: a must be the
    // double nearest n / 1000 with n < 2^32, what the exhaustive check formatted.
    const uint64_t n = uint64_t(a * 1000.0 + 0.5);
    if (n >> 32 || double(n) / 1000.0 != a) return nullptr;
    if (std::signbit(d)) *out++ = '-';  // -0.0 too, as nlohmann writes it
    const uint32_t whole = uint32_t(n / 1000), frac = uint32_t(n % 1000);
    out = std::to_chars(out, out + 10, whole).ptr;
    *out++ = '.';
    *out++ = char('0' + frac / 100);  // "7.0" for a whole number
    if (frac % 100) {
        *out++ = char('0' + frac / 10 % 10);
        if (frac % 10) *out++ = char('0' + frac % 10);
    }
    return out;
}

char* write_any_double(char* out, double d) { return nlohmann::detail::to_chars(out, out + kDoubleChars, d); }

} // namespace stallscope
