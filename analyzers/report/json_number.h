#pragma once
// Numbers in JSON as nlohmann writes them, without going through nlohmann
// where a cheaper way gives the same bytes.
#include <array>
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
//
// ms_rounded_code gives the same value without writing it: n * 2, plus 1
// when negative (for a tape that formats later: write_ms_code), or false
// where write_ms_rounded would give nullptr.
inline bool ms_rounded_code(double ms, uint64_t& code) {
    const double a = std::fabs(ms * 1000.0);
    if (!(a < 4294967295.5)) return false;
    // Truncated through int64_t (a < 2^32: the same value, one instruction
    // each way instead of the unsigned conversions' sequences); a - n is
    // exact below 2^52.
    uint64_t n = uint64_t(int64_t(a));
    n += (a - double(int64_t(n))) >= 0.5;  // round half away from zero, on the magnitude
    code = n << 1 | uint64_t(std::signbit(ms));  // round keeps the sign, -0.0 too
    return true;
}
inline char* write_ms_code(char* out, uint64_t code) { return write_ms_digits(out, code & 1, uint32_t(code >> 1)); }
inline char* write_ms_rounded(char* out, double ms) {
    uint64_t code = 0;
    return ms_rounded_code(ms, code) ? write_ms_code(out, code) : nullptr;
}

// The same bytes as write_uint and write_ms_code from tables (issue 26: the
// JSON report formats ~2 million raw values of a call tape, most of them
// small): each n < 10000 as its digits, each ms fraction 0..999 as ".d",
// ".dd" or ".ddd" as write_ms_digits writes it. An entry is copied whole (8
// bytes): `out` must have 8 bytes of room past what is written. Always
// inlined: the copy-out's loop calls them about 1.7 million times a 200,000
// packet report.
struct DigitText {
    char text[7];
    uint8_t len;
};
extern const std::array<DigitText, 10000> kSmallDecimal;
extern const std::array<DigitText, 1000> kMsFraction;
[[gnu::always_inline]] inline char* write_uint_table(char* out, uint64_t n) {
    if (n < 10000) {
        std::memcpy(out, &kSmallDecimal[n], 8);
        return out + kSmallDecimal[n].len;
    }
    if (n >= 100000000) return write_uint(out, n);
    // Below 10^8 (frame numbers, byte counts): the high part from the table, the low four digits as two pairs.
    const uint32_t hi = uint32_t(n) / 10000, lo = uint32_t(n) % 10000;
    std::memcpy(out, &kSmallDecimal[hi], 8);
    out += kSmallDecimal[hi].len;
    std::memcpy(out, kDigitPairs + 2 * (lo / 100), 2);
    std::memcpy(out + 2, kDigitPairs + 2 * (lo % 100), 2);
    return out + 4;
}
[[gnu::always_inline]] inline char* write_ms_code_table(char* out, uint64_t code) {
    *out = '-';
    out += code & 1;
    const uint32_t n = uint32_t(code >> 1);
    out = write_uint_table(out, n / 1000);
    std::memcpy(out, &kMsFraction[n % 1000], 8);
    return out + kMsFraction[n % 1000].len;
}

// Any double as nlohmann writes it (grisu2; NaN and infinities are not
// asked for). At most kDoubleChars bytes.
constexpr size_t kDoubleChars = 64;
char* write_any_double(char* out, double d);

} // namespace stallscope
