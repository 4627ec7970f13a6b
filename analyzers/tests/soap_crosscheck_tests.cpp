// decode_soap's plain and SAX passes against the libxml2 reader it replaces on the hot
// path: every SOAP body in every bundled capture (testdata/, hostile/,
// http-parsing/) and in the public corpus is decoded both ways, and the
// two SoapInfo must be equal field for field (docs/performance.md).
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/tests/capture_files.h"
#include "dissectors/soap/soap_decoder.h"

#include <catch2/catch.hpp>
#include "analyzers/tests/skip_when_absent.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

SoapCrossCheck cross_check(const std::vector<std::string>& files) {
    set_soap_cross_check(true);
    for (auto& f : files) analyze_file(f);
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    return t;
}

} // namespace

TEST_CASE("SOAP cross-check: plain and SAX passes equal the reader on every bundled capture", "[soap]") {
    std::vector<std::string> files = test::captures_under(STALLSCOPE_TESTDATA_DIR, true);
    REQUIRE(files.size() >= 100);  // testdata/, hostile/, http-parsing/
    SoapCrossCheck t = cross_check(files);
    INFO(t.documents << " documents, " << t.fast << " by the plain or SAX pass, " << t.plain << " plain; "
                     << t.first_difference);
    CHECK(t.differing == 0);
    CHECK(t.documents >= 400);
    CHECK(t.fast >= t.documents / 2);    // the common case takes the plain or SAX pass
    CHECK(t.plain >= t.documents / 4);
    CHECK(t.fast < t.documents);         // and the hostile XML the reader
}

TEST_CASE("SOAP cross-check: plain and SAX passes equal the reader on the public captures", "[soap]") {
    const char* env = std::getenv("STALLSCOPE_PUBLIC_CORPUS");
    fs::path dir = env && *env ? fs::path(env) : fs::path(STALLSCOPE_PUBLIC_CORPUS_DIR);
    std::vector<std::string> files = test::captures_under(dir, false);
    if (files.empty()) {
        STALLSCOPE_SKIP("public corpus " << dir.string() << " is absent (set STALLSCOPE_PUBLIC_CORPUS)");
    }
    SoapCrossCheck t = cross_check(files);
    INFO(t.first_difference);
    CHECK(t.differing == 0);
}
