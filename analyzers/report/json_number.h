#pragma once
// Numbers in JSON as nlohmann writes them, without going through nlohmann
// where a cheaper way gives the same bytes.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace stallscope {

// n's decimal digits as std::to_chars writes them (at most 20 bytes), cheaper:
// the length from the highest set bit and one comparison, then two digits at
// a time from a table, from the end (issue 26).
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
inline unsigned decimal_digits(uint64_t n) {
    static constexpr uint64_t kPow10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
        10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL};
    const unsigned guess = ((64 - unsigned(__builtin_clzll(n | 1))) * 1233) >> 12;  // floor(log10(2^bits))
    return guess + ((n | 1) >= kPow10[guess]);  // n | 1: 0 has one digit, and 10^k - 1 is odd
}
template <class U> inline void write_digit_pairs(char* end, U n) {
    while (n >= 100) {
        const U q = n / 100;
        end -= 2;
        std::memcpy(end, kDigitPairs + 2 * (n - 100 * q), 2);
        n = q;
    }
    if (n >= 10) std::memcpy(end - 2, kDigitPairs + 2 * n, 2);
    else end[-1] = char('0' + n);
}
inline char* write_uint(char* out, uint64_t n) {
    char* end = out + decimal_digits(n);
    if (n >> 32) write_digit_pairs(end, n);
    else write_digit_pairs(end, uint32_t(n));  // 32-bit division by 100: cheaper
    return end;
}
inline char* write_int(char* out, int64_t v) {
    *out = '-';
    return write_uint(out + (v < 0), v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v));
}

// A double that is some n / 1000.0 with 0 <= n < 2^32 (what round_ms makes
// of every time in a report) is written as n's digits with a decimal point:
// "40.335", "0.05", "7.0". Grisu2, which nlohmann uses, gives the same bytes
// for every such n (checked one by one: the hidden test "every n below 2^32"
// in json_stream_tests.cpp). Returns the end of what was written (at most
// kMsChars bytes from `out`), or nullptr, writing nothing, when d is not such
// a value (the caller then uses the general formatter).
constexpr size_t kMsChars = 16;
char* write_ms_double(char* out, double d);

// The digits of n / 1000 as write_ms_double writes them, "-" first when
// `negative` (-0.0 too).
inline char* write_ms_digits(char* out, bool negative, uint32_t n) {
    *out = '-';
    out += negative;
    const uint32_t whole = n / 1000, frac = n % 1000;
    if (whole < 10) *out++ = char('0' + whole);  // most times of a call: one digit
    else out = write_uint(out, whole);
    *out++ = '.';
    *out++ = char('0' + frac / 100);  // "7.0" for a whole number
    if (frac % 100) {
        *out++ = char('0' + frac / 10 % 10);
        if (frac % 10) *out++ = char('0' + frac % 10);
    }
    return out;
}

// write_ms_double(out, round_ms(ms)) in one step, the same bytes: n is
// round(ms * 1000) (halves away from zero, as std::round) found without the
// library call, and n / 1000 is then written without dividing and checking
// back (round_ms's quotient is always the double nearest n / 1000). Returns
// nullptr, writing nothing, when |n| may not be below 2^32 (or ms is NaN):
// the caller then rounds and formats as before.
inline char* write_ms_rounded(char* out, double ms) {
    const double a = std::fabs(ms * 1000.0);
    if (!(a < 4294967295.5)) return nullptr;
    uint64_t n = uint64_t(a);       // truncated; a - n is exact below 2^52
    n += (a - double(n)) >= 0.5;    // round half away from zero, on the magnitude
    return write_ms_digits(out, std::signbit(ms), uint32_t(n));  // round keeps the sign, -0.0 too
}

// Any double as nlohmann writes it (grisu2; NaN and infinities are not
// asked for). At most kDoubleChars bytes.
constexpr size_t kDoubleChars = 64;
char* write_any_double(char* out, double d);

} // namespace stallscope
