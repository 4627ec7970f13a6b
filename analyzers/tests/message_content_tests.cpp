// measure_content's markup count (memchr jumps) against the byte-by-byte
// rule it replaced: from each '<' outside a tag to the next '>', both
// counted, an unclosed tag to the end.
#include "analyzers/calls/message_content.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using namespace stallscope;

namespace {
uint64_t markup_by_bytes(const std::string& s) {
    bool in_tag = false;
    uint64_t n = 0;
    for (char ch : s) {
        if (ch == '<') in_tag = true;
        if (in_tag) ++n;
        if (ch == '>') in_tag = false;
    }
    return n;
}
} // namespace

TEST_CASE("message content: markup bytes as the byte-by-byte rule counts them", "[content]") {
    std::mt19937 rng(15);
    const char alphabet[] = {'<', '>', 'a', ' ', '/', '\0'};
    for (int i = 0; i < 5000; ++i) {
        std::string s(size_t(rng() % 200), 'x');
        for (char& c : s) c = alphabet[rng() % sizeof alphabet];
        MessageInfo m;
        measure_content(s, m);
        INFO(s);
        REQUIRE(m.markup_bytes == markup_by_bytes(s));
        REQUIRE(m.content_bytes == s.size());
    }
    MessageInfo m;
    measure_content("<a><<b>x>text<unclosed", m);
    CHECK(m.markup_bytes == markup_by_bytes("<a><<b>x>text<unclosed"));
    CHECK(m.markup_bytes == 3 + 4 + 9);
}

TEST_CASE("message content: one pass over the head finds what header() finds", "[content]") {
    // Any case, first occurrence wins, look-alikes of the same length are not taken.
    HttpMessageHead head;
    head.headers = {{"content-type", "text/xml"},   {"SOAPACTION", "\"urn:a\""}, {"Content-Type", "second"},
                    {"User-Agenz", "no"},           {"user-agent", "ua"},        {"Servers", "no"},
                    {"SERVER", "srv"},              {"Content-Encodinx", "no"}, {"content-ENCODING", "gzip"},
                    {"Upgrade", ""},                {"X-Other", "x"}};
    const HeadFields f(head);
    const std::pair<const std::string*, const char*> pairs[] = {
        {f.user_agent, "User-Agent"}, {f.content_type, "Content-Type"}, {f.soap_action, "SOAPAction"},
        {f.content_encoding, "Content-Encoding"}, {f.server, "Server"}, {f.upgrade, "Upgrade"}};
    for (auto [found, name] : pairs) {
        INFO(name);
        CHECK(found == head.header(name));
        CHECK(found != nullptr);
    }
    CHECK(*f.content_type == "text/xml");
    const HeadFields none(HttpMessageHead{});
    CHECK((none.user_agent || none.content_type || none.soap_action || none.content_encoding || none.server ||
           none.upgrade) == false);
}
