// Times as text (analyzers/result/ms_text.h) read as printf's "%.*f" wrote
// them before std::to_chars replaced it: every kind of double.
#include "analyzers/result/ms_text.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

std::string printf_fixed(double v, int decimals) {
    std::vector<char> buf(512);
    std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
    return buf.data();
}

} // namespace

TEST_CASE("ms text: numbers as printf's %.*f writes them, for every kind of double", "[ms_text]") {
    std::mt19937_64 rng(26);
    std::vector<double> values = {0.0, -0.0, 0.0005, 0.0015, 0.00049999, 1.0, 9.995, 10.05, 99.95, 100.5, 1e300, -1e300,
                                  std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                                  std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    for (int i = 0; i < 200000; ++i) {
        const double scale = std::pow(10.0, double(int(rng() % 16)) - 6);
        values.push_back(double(int64_t(rng() % 2000001) - 1000000) / 1000.0 * scale);
    }
    for (double v : values) {
        INFO(v);
        for (int min_decimals : {0, 1, 3}) {
            CHECK(ms_number(v, min_decimals) == printf_fixed(v, ms_decimals(v, min_decimals)));
        }
        const double a = std::fabs(v);
        std::string want = a == 0 ? "0 ms"
                           : a >= 1000 ? printf_fixed(v / 1000, a >= 10000 ? 1 : 2) + " s"
                           : a < 0.001 ? printf_fixed(v * 1e6, 0) + " ns"
                                       : printf_fixed(v, ms_decimals(v)) + " ms";
        if (std::isnan(v)) continue;  // NaN compares as neither: format_ms's branches are not for it
        CHECK(format_ms(v) == want);
    }
}

TEST_CASE("ms text: values at and next to a rounding half, as printf writes them", "[ms_text]") {
    // The integer path hands values within 1e-6 of a half to to_chars: the
    // decimal halves (x.xx5), their neighbours one and a few ulps away, and
    // the largest values it takes.
    std::mt19937_64 rng(2626);
    std::vector<double> values = {0.0005, 0.0015, 0.0025, 2.675, 1.005, 0.125, 0.375, 99.95, 999999.5, 1e6 - 0.0005,
                                  999999.9995, 1e9 - 0.5, 1e9, 1e9 + 0.5, 1e8 + 0.25, 0.000999, 5e-324};
    for (int i = 0; i < 100000; ++i) {
        const int d = int(rng() % 4);
        const double half = (double(rng() % 100000000) + 0.5) / std::pow(10.0, d);
        values.push_back(half);
        values.push_back(std::nextafter(half, 0.0));
        values.push_back(std::nextafter(half, 1e300));
        values.push_back(half + (double(int(rng() % 2001) - 1000) * 1e-9));
    }
    for (double v : values) {
        INFO(v);
        for (int min_decimals : {0, 1, 3}) CHECK(ms_number(v, min_decimals) == printf_fixed(v, ms_decimals(v, min_decimals)));
    }
}
