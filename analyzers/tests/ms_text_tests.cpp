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
