#pragma once
// Milliseconds as text: the one rule of the tree (reports, compare, figures,
// HTML, the GUI, which wraps it in QString). About three significant digits.
#include <string>

namespace stallscope {

// Decimals for a figure of this size: >= 100 -> 0, >= 10 -> 1, >= 1 -> 2,
// else 3; never fewer than `min_decimals` (the text report's detector and
// overlap texts keep one: "120.0", as the goldens pin them).
int ms_decimals(double ms, int min_decimals = 0);

// The number alone: "0.120", "45.3", "1032" (min_decimals 1: "1032.0").
std::string ms_number(double ms, int min_decimals = 0);

// With its unit, as the GUI and the exported figures show a duration:
// "0 ms", "450 ns" (under a microsecond), "0.512 ms", "40.2 ms", "120 ms",
// "1.25 s", "12.5 s".
std::string format_ms(double ms);

} // namespace stallscope
