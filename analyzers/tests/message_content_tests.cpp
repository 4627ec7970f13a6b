// measure_content's markup count (16 bytes a step) against the byte-by-byte
// rule it replaced: from each '<' outside a tag to the next '>', both
// counted, an unclosed tag to the end.
#include "analyzers/calls/message_content.h"
#include "dissectors/http/ascii_case.h"

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
    // Tags and texts longer than a 16-byte step, a few markers in long runs.
    const char sparse[] = {'<', '>', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', '\x80'};
    for (int i = 0; i < 3000; ++i) {
        std::string s(size_t(rng() % 300), 'x');
        for (char& c : s) c = sparse[rng() % sizeof sparse];
        INFO(s);
        REQUIRE(count_markup_bytes(s) == markup_by_bytes(s));
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
    // As built by hand (no index: a scan), and indexed as the parser does.
    for (bool indexed : {false, true}) {
        if (indexed) head.index_fields();
        const HeadFields f(head);
        const std::pair<const std::string_view*, const char*> pairs[] = {
            {f.user_agent, "User-Agent"}, {f.content_type, "Content-Type"}, {f.soap_action, "SOAPAction"},
            {f.content_encoding, "Content-Encoding"}, {f.server, "Server"}, {f.upgrade, "Upgrade"}};
        for (auto [found, name] : pairs) {
            INFO(name << (indexed ? " indexed" : " scanned"));
            CHECK(found == head.header(name));
            CHECK(found != nullptr);
        }
        CHECK(*f.content_type == "text/xml");
    }
    const HeadFields none(HttpMessageHead{});
    CHECK((none.user_agent || none.content_type || none.soap_action || none.content_encoding || none.server ||
           none.upgrade) == false);
}

namespace {

struct Finished { SoapInfo soap; MessageInfo msg; };

Finished finish(MessageBody& body) {
    Finished f;
    AnalysisOptions opt;
    body.finish(opt, f.msg, f.soap, [] { return std::string("body"); }, [](WarningCode, const std::string&) {});
    return f;
}

std::span<const uint8_t> bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

} // namespace

// A body's first piece is referenced where it lies, not copied (issue 26):
// what is decoded is the same whether the bytes are still there at the end,
// were kept before they went, or came in several pieces.
TEST_CASE("message body: a referenced piece decodes the same as a copied one, and keep() outlives its bytes", "[content]") {
    std::string items;
    for (int i = 0; i < 300; ++i) items += "<item>" + std::to_string(i) + "</item>";
    const std::string xml = "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                            "<soap:Body><m:echo xmlns:m=\"urn:t\">" + items + "</m:echo></soap:Body></soap:Envelope>";
    const size_t cap = 1 << 20;

    MessageBody whole;  // one piece, decoded while its bytes are there
    std::string buf = xml;
    whole.append(bytes(buf), cap);
    CHECK(whole.held() == xml.size());
    Finished a = finish(whole);
    REQUIRE(a.soap.error.empty());
    CHECK(a.soap.operation == "echo");
    CHECK(a.soap.element_count == 303);  // Envelope, Body, echo, 300 items
    CHECK(a.msg.content_bytes == xml.size());

    MessageBody kept;  // kept, then its bytes overwritten
    buf = xml;
    kept.append(bytes(buf), cap);
    kept.keep();
    std::fill(buf.begin(), buf.end(), 'x');
    Finished b = finish(kept);
    CHECK(b.soap.operation == "echo");
    CHECK(b.soap.element_count == a.soap.element_count);
    CHECK(b.msg.markup_bytes == a.msg.markup_bytes);
    CHECK(b.msg.deflate_estimate == a.msg.deflate_estimate);

    MessageBody pieces;  // three pieces, each buffer reused after it was given
    std::string piece;
    for (size_t at = 0; at < xml.size(); at += 1000) {
        piece = xml.substr(at, 1000);
        pieces.append(bytes(piece), cap);
        pieces.keep();
        std::fill(piece.begin(), piece.end(), 'y');
    }
    Finished c = finish(pieces);
    CHECK(c.soap.element_count == a.soap.element_count);
    CHECK(c.msg.content_bytes == xml.size());

    MessageBody capped;  // larger than the cap on its first piece: marked, not referenced whole
    buf = xml;
    capped.append(bytes(buf), 100);
    CHECK(capped.held() == 100);
    Finished d = finish(capped);
    CHECK(d.soap.error_code == SoapError::BodyCapped);
}

// FunctionRef (analyzers/calls/function_ref.h) calls the callable it was
// given, by reference (no copy), with its arguments and result; empty is false.
TEST_CASE("function ref: calls its callable in place, empty is false", "[content]") {
    FunctionRef<int(int)> none;
    CHECK_FALSE(none);
    int calls = 0;
    auto add = [&calls](int x) { ++calls; return x + calls; };
    FunctionRef<int(int)> ref(add);
    REQUIRE(ref);
    CHECK(ref(10) == 11);
    CHECK(ref(10) == 12);
    CHECK(calls == 2);  // the lambda's own state, not a copy's
    const auto text = [](const std::string& a, std::string&& b) { return a + b; };
    FunctionRef<std::string(const std::string&, std::string&&)> cat(text);
    CHECK(cat("ab", std::string("cd")) == "abcd");
    FunctionRef<void(int)> drop(add);  // a result not wanted
    drop(1);
    CHECK(calls == 3);
}

// finish() through FunctionRef: the body's name and warning reach the
// caller's callables, read_whole decides the markup count, sample_key is
// asked for a body the sampler may compress.
TEST_CASE("message body: finish calls what, warn, sample_key and read_whole as given", "[content]") {
    std::string items;
    for (int i = 0; i < 100; ++i) items += "<item>" + std::to_string(i) + "</item>";
    const std::string xml = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                            "<soap:Body><m:echo xmlns:m=\"urn:t\">" + items + "</m:echo></soap:Body></soap:Envelope>";
    AnalysisOptions opt;
    for (bool whole : {false, true}) {
        MessageBody body;
        body.append(bytes(xml), 1 << 20);
        Finished f;
        int asked_whole = 0, asked_key = 0;
        uint64_t whole_bytes = 0;
        auto read_whole = [&](uint64_t n) { ++asked_whole; whole_bytes = n; return whole; };
        auto key = [&] { ++asked_key; return std::string("request echo"); };
        DeflateSampler all_picked;
        body.finish(opt, f.msg, f.soap, [] { return std::string("body"); }, [](WarningCode, const std::string&) {},
                    &all_picked, key, read_whole);
        CHECK(asked_whole == 1);
        CHECK(whole_bytes == xml.size());
        CHECK(asked_key == 1);
        CHECK(f.soap.operation == "echo");
        CHECK(f.msg.whole_xml == whole);
        CHECK((f.msg.markup_bytes > 0) == whole);
    }
    // A body over the cap: the warning names the body through `what`.
    MessageBody capped;
    capped.append(bytes(xml), 100);
    Finished f;
    std::vector<std::pair<WarningCode, std::string>> warned;
    capped.finish(opt, f.msg, f.soap, [] { return std::string("request body of call 7"); },
                  [&](WarningCode c, const std::string& w) { warned.emplace_back(c, w); });
    REQUIRE(warned.size() == 1);
    CHECK(warned[0].first == WarningCode::SoapBodyCap);
    CHECK(warned[0].second.find("request body of call 7") != std::string::npos);
}

// A body that does not look like XML is a soap_error (NotXml) when its head
// says XML is expected: a SOAPAction, or a Content-Type naming xml or soap in
// any case (one pass, set_head), as two case-insensitive searches decide.
TEST_CASE("message body: a Content-Type naming xml or soap expects XML", "[content]") {
    std::vector<std::string> types = {"text/xml; charset=utf-8", "application/soap+xml", "TEXT/XML", "Application/SOAP",
                                      "text/plain", "application/json", "x", "xm", "xmL", "soa", "sOaP", "s", "",
                                      "application/xhtml", "text/x-ml", "SXML", "so ap", "xxml", "ssoap"};
    std::mt19937 rng(26);
    const char alphabet[] = {'x', 'X', 'm', 'M', 'l', 'L', 's', 'S', 'o', 'O', 'a', 'p', 'P', '/', ';', 'X' ^ 0x20, char(0xD8), char(0xF8)};
    for (int i = 0; i < 3000; ++i) {
        std::string t(size_t(rng() % 9), ' ');
        for (char& c : t) c = alphabet[rng() % sizeof(alphabet)];
        types.push_back(t);
    }
    const std::string not_xml = "plain text, not an envelope";
    AnalysisOptions opt;
    for (const std::string& type : types) {
        HttpMessageHead head;
        head.headers = {{"Content-Type", type}};
        head.index_fields();
        MessageBody body;
        body.set_head(HeadFields(head));
        body.append(bytes(not_xml), 1 << 20);
        Finished f;
        body.finish(opt, f.msg, f.soap, [] { return std::string("body"); }, [](WarningCode, const std::string&) {});
        const bool expected = ascii_icontains(type, "xml") || ascii_icontains(type, "soap");
        INFO(type);
        CHECK((f.soap.error_code == SoapError::NotXml) == expected);
    }
}
