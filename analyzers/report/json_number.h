#pragma once
// Numbers in JSON as nlohmann writes them, without going through nlohmann
// where a cheaper way gives the same bytes.
#include <cstddef>
#include <cstdint>

namespace stallscope {

// A double that is some n / 1000.0 with 0 <= n < 2^32 (what round_ms makes
// of every time in a report) is written as n's digits with a decimal point:
// "40.335", "0.05", "7.0". Grisu2, which nlohmann uses, gives the same bytes
// for every such n (checked one by one: the hidden test "every n below 2^32"
// in json_stream_tests.cpp). Returns the end of what was written (at most
// kMsChars bytes from `out`), or nullptr, writing nothing, when d is not such
// a value (the caller then uses the general formatter).
constexpr size_t kMsChars = 16;
char* write_ms_double(char* out, double d);

// Any double as nlohmann writes it (grisu2; NaN and infinities are not
// asked for). At most kDoubleChars bytes.
constexpr size_t kDoubleChars = 64;
char* write_any_double(char* out, double d);

} // namespace stallscope
