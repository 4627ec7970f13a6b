#include "analyzers/report/json_number.h"

#include <charconv>
#include <string_view>
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

// Made by the writers they stand for, so they cannot disagree with them.
namespace {
template <size_t N, class F> std::array<DigitText, N> digit_table(F write) {
    std::array<DigitText, N> t{};
    for (size_t i = 0; i < N; ++i) {
        char buf[32];
        const std::string_view s = write(buf, uint32_t(i));
        std::memcpy(t[i].text, s.data(), s.size());  // at most 5 bytes
        t[i].len = uint8_t(s.size());
    }
    return t;
}
} // namespace
const std::array<DigitText, 10000> kSmallDecimal = digit_table<10000>([](char* b, uint32_t n) {
    return std::string_view(b, size_t(write_uint(b, n) - b));
});
const std::array<DigitText, 1000> kMsFraction = digit_table<1000>([](char* b, uint32_t n) {
    return std::string_view(b + 1, size_t(write_ms_digits(b, false, n) - b - 1));  // past the "0"
});

char* write_any_double(char* out, double d) { return nlohmann::detail::to_chars(out, out + kDoubleChars, d); }

} // namespace stallscope
