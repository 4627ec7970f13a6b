#include "analyzers/diagram/diagram_text.h"
#include "analyzers/diagram/html_report.h"
#include "diagram_fixtures.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("html_escape escapes markup and cleans bytes", "[html]") {
    CHECK(html_escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    CHECK(html_escape("caf\xC3\xA9") == "caf\xC3\xA9");               // valid UTF-8 kept
    CHECK(html_escape("a\xff" "b") == "a\xEF\xBF\xBD" "b");             // invalid byte -> U+FFFD
    CHECK(html_escape("a\r\nb\x01") == "a  b ");                        // controls -> space
    CHECK(html_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");   // a surrogate is not UTF-8
    CHECK(html_escape("\xE0\x80\xAF").find('/') == std::string::npos);  // overlong '/' rejected
}

TEST_CASE("HTML report: summary, ranked findings, calls, inline timeline, all escaped", "[html]") {
    auto r = sample_result(5, 2);
    r.capture.file = "cap<1>.pcap";
    r.capture.packets = 60;
    r.calls[1].uri = "/soap?<script>alert('x')</script>";
    r.calls[1].soap.operation = "</td><img src=x onerror=alert(1)>";
    r.capture.warnings.push_back({WarningCode::Other, "bad \"header\" <b>", 7, 0, 1});
    // Distinct costs to check the ranking.
    r.findings[0].cost_ms = r.findings[0].counted_ms = 5;
    r.findings[1].cost_ms = r.findings[1].counted_ms = 50;
    r.findings[2].cost_ms = r.findings[2].counted_ms = 20;
    r.findings[1].fix = "Use TCP_NODELAY & one write";
    r.findings[1].details = {{"write sizes", "231, 412"}};
    r.summary.overall.latency.calls = 5;
    r.summary.overall.latency.median_ms = 41.4;
    r.summary.overall.losses = {{"nagle_delayed_ack", 5, 5, 201, 0.97}};
    SummaryGroup g = r.summary.overall;
    g.operation = "doNothing";
    r.summary.per_operation = {g};

    std::string html = html_report(r);
    REQUIRE(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("</html>") != std::string::npos);
    // Nothing from the capture comes through as markup.
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK(html.find("<b>\"") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("cap&lt;1&gt;.pcap") != std::string::npos);
    CHECK(html.find("Use TCP_NODELAY &amp; one write") != std::string::npos);
    // The timeline is inline SVG, without an XML declaration in the middle of HTML.
    CHECK(html.find("<svg") != std::string::npos);
    CHECK(html.find("<?xml") == std::string::npos);
    // Findings ranked by time lost: 50, 20, then the 40.2 ms ones... 5 last.
    size_t p50 = html.find("<span class=cost>50.0 ms"), p20 = html.find("<span class=cost>20.0 ms"),
           p40 = html.find("<span class=cost>40.2 ms"), p5 = html.find("<span class=cost>5.00 ms");
    REQUIRE(p50 != std::string::npos);
    REQUIRE(p5 != std::string::npos);
    CHECK(p50 < p40);
    CHECK(p40 < p20);
    CHECK(p20 < p5);
    CHECK(html.find("Evidence frames: <span class=frames>#16, #17, #18") != std::string::npos);
    CHECK(html.find("write sizes: 231, 412") != std::string::npos);
    CHECK(html.find("Nagle / delayed ACK: 201 ms") != std::string::npos);
    // One row per call in the calls table.
    size_t rows = 0;
    for (size_t p = html.find("<h2>Calls</h2>"); (p = html.find("<tr><td class=n>", p + 1)) != std::string::npos;) ++rows;
    CHECK(rows == 5);

    HtmlReportOptions few;
    few.max_calls = 2;
    few.max_findings = 1;
    std::string shortened = html_report(r, few);
    CHECK(shortened.find("3 more calls not listed") != std::string::npos);
    CHECK(shortened.find("4 smaller findings not listed") != std::string::npos);

    std::string empty = html_report(AnalysisResult{});
    CHECK(empty.find("No latency pathologies found") != std::string::npos);
}
