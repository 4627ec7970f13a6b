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
    return write_ms_digits(out, std::signbit(d), uint32_t(n));  // -0.0 too, as nlohmann writes it
}

char* write_any_double(char* out, double d) { return nlohmann::detail::to_chars(out, out + kDoubleChars, d); }

} // namespace stallscope
