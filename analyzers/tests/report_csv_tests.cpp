// The CSV report's rows: numbers as printf("%.3f") writes them (the writer
// uses std::to_chars, which must agree), hostile text quoted and kept from
// starting a spreadsheet formula.
#include "analyzers/report/report.h"

#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

using namespace stallscope;

namespace {

std::string printf3(double v) {
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string to_chars3(double v) {
    char buf[400];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    return std::string(buf, r.ptr);
}

} // namespace

TEST_CASE("report csv: to_chars with 3 decimals writes what printf %.3f wrote", "[csv]") {
    const double inf = std::numeric_limits<double>::infinity();
    for (double v : {0.0, -0.0, 0.0005, 0.0015, 0.0025, 1.0005, 2.675, 1e-7, -1e-7, 1e21, 1.7976931348623157e308,
                     5e-324, inf, -inf, std::nan(""), 123456.789, -0.0004999})
        CHECK(to_chars3(v) == printf3(v));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200000; ++i) {
        double v;
        if (i % 2) {
            uint64_t bits = rng();
            std::memcpy(&v, &bits, sizeof v);
            if (std::isnan(v)) continue;  // printf prints a NaN's sign bit; the report never holds one
        } else {
            v = double(int64_t(rng() % 2'000'000'000) - 1'000'000'000) / double(1 + rng() % 100'000);
        }
        INFO(v);
        REQUIRE(to_chars3(v) == printf3(v));
    }
}

TEST_CASE("report csv: hostile text quoted, formulas defused, numbers with 3 decimals", "[csv]") {
    AnalysisResult r;
    Call c;
    c.id = 7;
    c.connection_id = 3;
    c.method = "=HYPERLINK(\"x\")";  // quoted: starts with a quote, not a formula
    c.uri = "-1+2";                  // a formula: prefixed with '
    c.status = 500;
    c.soap.operation = "Get,Quote";
    c.soap.operation_ns = "urn:a\nb";
    c.soap_response.fault = true;
    c.soap_response.fault_code = "@SUM(1)";
    c.request_first_frame = 11;
    c.complete = true;
    c.latency_ms = 12.3456;
    c.phases.push_back({PhaseKind::ServerTime, 0, 2'000'000, 0, 0});
    c.attribution.push_back({"server", 12.3456});
    r.calls.push_back(c);
    std::string csv = report_csv(r);
    std::string row = csv.substr(csv.find('\n') + 1);
    CHECK(row == "7,3,\"=HYPERLINK(\"\"x\"\")\",'-1+2,500,\"Get,Quote\",\"urn:a\nb\",'@SUM(1),11,,12.346,0.000,0.000,0.000,"
                 "0.000,2.000,0.000,0.000,0.000,,0.000,12.346,,12.346,server=12.346\n");
}
