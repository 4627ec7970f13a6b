// The text report is written as it is made (write_report_text): never one
// string of the whole report, and byte for byte what report_text returns.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/tests/capture_files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>

using namespace stallscope;

namespace {

// Keeps what is written, and the largest piece written at once.
class PieceBuf : public std::streambuf {
public:
    std::string text;
    std::streamsize largest = 0, pieces = 0;

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        text.append(s, size_t(n));
        largest = std::max(largest, n);
        ++pieces;
        return n;
    }
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) xsputn(reinterpret_cast<const char*>(&c), 1);
        return c;
    }
};

} // namespace

TEST_CASE("text report: streamed in pieces of about 64 KiB, the same bytes as report_text", "[report]") {
    AnalyzeOutcome out = analyze_file(std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-gsoap.pcap");
    REQUIRE(out.ok);
    AnalysisResult& r = out.result;
    // A capture's warnings have no bound: 20,000 of them make a report of about 3 MB.
    for (uint64_t i = 1; i <= 20000; ++i)
        r.capture.warnings.push_back(Warning{WarningCode::Other, "warning " + std::to_string(i) + ": " + std::string(120, 'w'), i, 0, 1, 0});
    PieceBuf buf;
    std::ostream os(&buf);
    write_report_text(r, os);
    const std::string whole = report_text(r);
    CHECK(whole.size() > 2'000'000);
    CHECK(buf.text == whole);
    CHECK(buf.pieces > 30);
    CHECK(buf.largest < 80 * 1024);  // flushed at 64 KiB, plus at most the piece that crossed it
}

// With --threads N the connections and the listed calls are read on another
// thread while this one reads the findings (write_report_text): the same
// bytes, for every bundled capture, in memory and spilled from the first
// call (the three passes then read one spill file at once).
TEST_CASE("text report: written on two threads, the same bytes as on one", "[report]") {
    const std::vector<std::string> files = test::captures_under(STALLSCOPE_TESTDATA_DIR, true);
    REQUIRE(files.size() >= 100);
    size_t spilled = 0, with_calls = 0;
    for (const std::string& f : files) {
        for (size_t spill_after : {size_t(0), size_t(1) << 40}) {
            INFO(f << ", spill after " << spill_after);
            AnalysisOptions o;
            o.spill_after_calls = spill_after;
            AnalyzeOutcome out = analyze_file(f, o);
            if (!out.ok) continue;
            spilled += out.result.spill != nullptr;
            with_calls += call_count(out.result) > 0;
            const std::string one = report_text(out.result);
            std::ostringstream two;
            write_report_text(out.result, two, 2);
            REQUIRE(two.str() == one);
        }
    }
    CHECK(spilled > 50);
    CHECK(with_calls > 50);
}
