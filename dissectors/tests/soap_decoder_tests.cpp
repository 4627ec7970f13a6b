// SOAP decoding: versions, faults, hostile XML.
#include "dissectors/soap/soap_decoder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace stallscope;

namespace {

const std::string kSoap11Request =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:q=\"urn:quotes\">\n"
    "  <soapenv:Header><q:Auth>t</q:Auth></soapenv:Header>\n"
    "  <soapenv:Body>\n"
    "    <q:GetQuote><q:symbol>ACME</q:symbol></q:GetQuote>\n"
    "  </soapenv:Body>\n"
    "</soapenv:Envelope>\n";

const std::string kSoap12Request =
    "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\">"
    "<env:Body><m:Reserve xmlns:m=\"http://travel.example/res\"><m:a/><m:b><m:c>1</m:c></m:b></m:Reserve>"
    "<m:Other xmlns:m=\"urn:x\"/></env:Body></env:Envelope>";

std::string nested(size_t levels) {
    std::string s;
    s.reserve(levels * 7);
    for (size_t i = 0; i < levels; ++i) s += "<a>";
    for (size_t i = 0; i < levels; ++i) s += "</a>";
    return s;
}

std::string soap11_body(const std::string& inner) {
    return "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>" + inner +
           "</s:Body></s:Envelope>";
}

// `count` random edits: a byte changed, bytes cut, a piece copied elsewhere,
// and with `markup` also a piece of markup where the parser least expects it.
void mutate(std::string& s, std::mt19937& rng, int count, bool markup) {
    static const char* const bits[] = {"<!--x-->", "<![CDATA[y]]>", "<?p q?>", "<z/>", "&amp;", " xml:id=\"i\"",
                                       "</s:Body>", ">", "\"", "xmlns:q=\"urn:q\" ", "&e;", "\r\n"};
    for (int m = 0; m < count; ++m) {
        size_t pos = rng() % s.size();
        switch (rng() % (markup ? 4 : 3)) {
        case 0: s[pos] = char(rng() % 256); break;
        case 1: s.erase(pos, 1 + rng() % 10); break;
        case 2: s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 20)); break;
        default: s.insert(pos, bits[rng() % (sizeof bits / sizeof bits[0])]); break;
        }
        if (s.empty()) s = "<";
    }
}

void check_nothing_decoded(const SoapInfo& i) {
    CHECK_FALSE(i.is_soap);
    CHECK(i.operation.empty());
    CHECK(i.fault_code.empty());
    CHECK(i.fault_string.empty());
}

} // namespace

TEST_CASE("SOAP 1.1 request") {
    SoapInfo i = decode_soap(kSoap11Request);
    CHECK(i.error.empty());
    CHECK(i.is_soap);
    CHECK(i.version == "1.1");
    CHECK(i.operation == "GetQuote");
    CHECK(i.operation_ns == "urn:quotes");
    CHECK_FALSE(i.fault);
    CHECK(i.element_count == 6);
    CHECK(i.max_depth == 4);
    CHECK(i.bytes == kSoap11Request.size());
}

TEST_CASE("SOAP 1.2 request: operation is the first Body child") {
    SoapInfo i = decode_soap(kSoap12Request);
    CHECK(i.error.empty());
    CHECK(i.is_soap);
    CHECK(i.version == "1.2");
    CHECK(i.operation == "Reserve");
    CHECK(i.operation_ns == "http://travel.example/res");
    CHECK(i.element_count == 7);
    CHECK(i.max_depth == 5);
}

TEST_CASE("SOAP 1.1 fault") {
    std::string x = soap11_body(
        "<s:Fault><faultcode>s:Server</faultcode><faultstring xml:lang=\"en\">  Database &amp; cache down \n"
        "</faultstring><detail><e>x</e></detail></s:Fault>");
    SoapInfo i = decode_soap(x);
    CHECK(i.error.empty());
    CHECK(i.fault);
    CHECK(i.operation == "Fault");
    CHECK(i.operation_ns == "http://schemas.xmlsoap.org/soap/envelope/");
    CHECK(i.fault_code == "s:Server");
    CHECK(i.fault_string == "Database & cache down");
}

TEST_CASE("SOAP 1.2 fault") {
    std::string x =
        "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body><env:Fault>"
        "<env:Code><env:Value>env:Sender</env:Value><env:Subcode><env:Value>m:Bad</env:Value></env:Subcode></env:Code>"
        "<env:Reason><env:Text xml:lang=\"en\"><![CDATA[Bad <input>]]></env:Text><env:Text xml:lang=\"de\">Schlecht</env:Text>"
        "</env:Reason></env:Fault></env:Body></env:Envelope>";
    SoapInfo i = decode_soap(x);
    CHECK(i.error.empty());
    CHECK(i.version == "1.2");
    CHECK(i.fault);
    CHECK(i.fault_code == "env:Sender");
    CHECK(i.fault_string == "Bad <input>");
}

TEST_CASE("Fault elements in the wrong namespace are not a fault") {
    SoapInfo i = decode_soap(soap11_body("<x:Fault xmlns:x=\"urn:app\"><faultcode>c</faultcode></x:Fault>"));
    CHECK(i.error.empty());
    CHECK_FALSE(i.fault);
    CHECK(i.operation == "Fault");
    CHECK(i.fault_code.empty());
}

TEST_CASE("DOCTYPE is rejected: billion laughs") {
    std::string x = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n";
    x += " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n";
    for (int k = 2; k <= 9; ++k) {
        std::string prev = "&lol" + std::to_string(k - 1) + ";";
        x += " <!ENTITY lol" + std::to_string(k) + " \"";
        for (int j = 0; j < 10; ++j) x += prev;
        x += "\">\n";
    }
    x += "]>\n" + soap11_body("<op>&lol9;</op>");
    SoapInfo i = decode_soap(x);
    CHECK(i.error == "DOCTYPE not allowed in SOAP");
    check_nothing_decoded(i);
}

TEST_CASE("DOCTYPE is rejected: external entity to /etc/passwd") {
    std::ifstream f("/etc/passwd");
    std::stringstream ss;
    ss << f.rdbuf();
    std::string passwd = ss.str();
    REQUIRE(passwd.size() > 10);
    std::string first_line = passwd.substr(0, passwd.find('\n'));

    std::string x = "<!DOCTYPE s:Envelope [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>" +
                    soap11_body("<s:Fault><faultcode>&xxe;</faultcode><faultstring>&xxe;</faultstring></s:Fault>");
    SoapInfo i = decode_soap(x);
    CHECK(i.error == "DOCTYPE not allowed in SOAP");
    check_nothing_decoded(i);
    for (const std::string* s : {&i.fault_code, &i.fault_string, &i.operation, &i.operation_ns, &i.error})
        CHECK(s->find(first_line) == std::string::npos);
}

TEST_CASE("DOCTYPE is found after BOM, declaration, comments and PIs, and in UTF-16") {
    std::string tail = "<!DOCTYPE x [<!ENTITY e \"v\">]>" + soap11_body("<op>&e;</op>");
    for (std::string prefix : {std::string("\xEF\xBB\xBF"), std::string("<?xml version='1.0' encoding='utf-8'?>"),
                               std::string("<!-- <root> -->\n<?pi data?>\n  ")}) {
        SoapInfo i = decode_soap(prefix + tail);
        CHECK(i.error == "DOCTYPE not allowed in SOAP");
        check_nothing_decoded(i);
    }
    std::string utf16le = "\xFF\xFE";
    for (char c : tail) {
        utf16le += c;
        utf16le += '\0';
    }
    SoapInfo i = decode_soap(utf16le);
    CHECK(i.error == "DOCTYPE not allowed in SOAP");
    check_nothing_decoded(i);
}

TEST_CASE("encodings that could hide a DOCTYPE from the byte scan are refused") {
    std::string x = "<?xml version=\"1.0\" encoding=\"UTF-7\"?>+ADw-!DOCTYPE x+AD4-" + soap11_body("<op/>");
    SoapInfo i = decode_soap(x);
    CHECK_FALSE(i.error.empty());
    check_nothing_decoded(i);
}

TEST_CASE("DOCTYPE text inside CDATA in the body is just data") {
    SoapInfo i = decode_soap(soap11_body("<op><![CDATA[<!DOCTYPE html><html/>]]></op>"));
    CHECK(i.error.empty());
    CHECK(i.is_soap);
    CHECK(i.operation == "op");
}

TEST_CASE("100000 levels of nesting: error, no crash") {
    SoapInfo i = decode_soap(nested(100000));
    CHECK(i.error.find("too deeply nested") != std::string::npos);
    CHECK_FALSE(i.is_soap);
}

TEST_CASE("depth limit is configurable") {
    SoapLimits lim;
    lim.max_depth = 10;
    SoapInfo ok = decode_soap(nested(10), lim);
    CHECK(ok.error.empty());
    CHECK(ok.max_depth == 10);
    CHECK(ok.element_count == 10);
    SoapInfo deep = decode_soap(nested(11), lim);
    CHECK(deep.error.find("too deeply nested") != std::string::npos);
}

TEST_CASE("size limit") {
    SoapLimits lim;
    lim.max_bytes = 100;
    SoapInfo i = decode_soap(kSoap11Request, lim);
    CHECK(i.error.find("larger than") != std::string::npos);
    CHECK_FALSE(i.is_soap);
}

TEST_CASE("non-SOAP XML is not SOAP and not an error") {
    SoapInfo i = decode_soap("<?xml version=\"1.0\"?><Envelope><Body><op/></Body></Envelope>");
    CHECK(i.error.empty());
    CHECK_FALSE(i.is_soap);
    CHECK(i.operation.empty());
    CHECK(i.element_count == 3);
}

TEST_CASE("malformed input: invalid UTF-8, truncated, empty, not XML") {
    SoapInfo bad_utf8 = decode_soap(soap11_body("<op>\xC3\x28\xFF\xFE</op>"));
    CHECK_FALSE(bad_utf8.error.empty());

    SoapInfo truncated = decode_soap(kSoap11Request.substr(0, kSoap11Request.size() / 2));
    CHECK_FALSE(truncated.error.empty());

    SoapInfo empty = decode_soap("");
    CHECK(empty.error == "empty document");
    CHECK_FALSE(empty.is_soap);

    SoapInfo text = decode_soap("HTTP/1.1 200 OK\r\n\r\nnot xml");
    CHECK_FALSE(text.error.empty());

    SoapInfo unbound = decode_soap("<x:Envelope><x:Body/></x:Envelope>");  // undeclared prefix
    CHECK_FALSE(unbound.is_soap);
}

TEST_CASE("mutated envelopes never crash") {
    std::mt19937 rng(777);
    const std::string seeds[] = {kSoap11Request, kSoap12Request};
    for (int iter = 0; iter < 2000; ++iter) {
        std::string s = seeds[iter % 2];
        mutate(s, rng, 1 + int(rng() % 6), false);
        SoapInfo i = decode_soap(s);
        REQUIRE(i.max_depth <= 256);
        if (i.error.empty()) REQUIRE(i.bytes == s.size());
    }
}

TEST_CASE("concurrent decoding from several threads gives the same answers") {
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t, &wrong] {
            for (int k = 0; k < 300; ++k) {
                SoapInfo a = decode_soap(kSoap11Request);
                SoapInfo b = decode_soap(kSoap12Request);
                SoapInfo c = decode_soap(nested(1000));
                if (a.operation != "GetQuote" || b.operation != "Reserve" || c.error.empty()) ++wrong[size_t(t)];
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(wrong == std::vector<int>(4, 0));
}

namespace {
// `s` (ASCII) in UTF-16 or UTF-32, either byte order, with a BOM or not.
std::string widen(const std::string& s, int width, bool big_endian, bool bom) {
    std::string out;
    auto put = [&](uint32_t u) {
        for (int k = 0; k < width; ++k) out += char((u >> (8 * (big_endian ? width - 1 - k : k))) & 0xFF);
    };
    if (bom) put(0xFEFF);
    for (unsigned char c : s) put(c);
    return out;
}
} // namespace

TEST_CASE("UTF-16 and UTF-32 envelopes, with a BOM or not, either byte order, are decoded") {
    for (int width : {2, 4})
        for (bool be : {false, true})
            for (bool bom : {true, false}) {
                INFO("width " << width << " big-endian " << be << " bom " << bom);
                // The declaration names the encoding, as senders write it.
                std::string doc = std::string("<?xml version=\"1.0\" encoding=\"") + (width == 2 ? "utf-16" : "utf-32") +
                                  "\"?>\r\n" + soap11_body("<q:GetQuote xmlns:q=\"urn:q\"/>");
                std::string x = widen(doc, width, be, bom);
                CHECK(starts_like_xml(x));
                SoapInfo i = decode_soap(x);
                CHECK(i.error.empty());
                CHECK(i.is_soap);
                CHECK(i.operation == "GetQuote");
            }
}

TEST_CASE("DOCTYPE is refused in UTF-32 too") {
    std::string x = widen("<!DOCTYPE x [<!ENTITY e \"v\">]>" + soap11_body("<op>&e;</op>"), 4, false, true);
    SoapInfo i = decode_soap(x);
    CHECK(i.error == "DOCTYPE not allowed in SOAP");
    check_nothing_decoded(i);
}

TEST_CASE("invalid UTF-32 says why") {
    std::string x = widen(soap11_body("<op/>"), 4, true, true) + "\x7F\xFF\xFF\xFF";  // above U+10FFFF
    SoapInfo i = decode_soap(x);
    CHECK(i.error == "invalid UTF-32 code point");
    CHECK(decode_soap(x.substr(0, x.size() - 1)).error.find("multiple of 4") != std::string::npos);
}

TEST_CASE("starts_like_xml and not_xml_reason") {
    CHECK(starts_like_xml("  \r\n<a/>"));
    CHECK(starts_like_xml("\xEF\xBB\xBF<a/>"));
    CHECK(starts_like_xml(widen("<a/>", 2, false, false)));   // XML 1.0 F.1: without a BOM, "<" comes first
    CHECK(starts_like_xml(widen("  <a/>", 2, true, true)));
    CHECK_FALSE(starts_like_xml("{\"a\": 1}"));
    CHECK_FALSE(starts_like_xml(""));
    CHECK_FALSE(starts_like_xml(widen("{}", 2, false, true)));
    CHECK(not_xml_reason("{\"a\"") == "body is not XML (starts with 7b 22 61 22)");
    CHECK(not_xml_reason("") == "empty body");
}

// The decoder reuses one libxml2 reader per thread: what one document did to
// it (an error, another encoding, a refused DOCTYPE) must not leak into the next.
TEST_CASE("a reused reader decodes each document as a fresh one would") {
    const std::string latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" +
                               soap11_body("<q:Caf\xE9 xmlns:q=\"urn:q\"/>");
    const std::string doctype = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e \"boom\">]>" + soap11_body("<q:A/>");
    const std::string broken = soap11_body("<q:Broken xmlns:q=\"urn:q\"><a></b>");
    const std::string utf16 = widen("<?xml version=\"1.0\" encoding=\"utf-16\"?>" + soap11_body("<q:W xmlns:q=\"urn:q\"/>"),
                                    2, false, true);
    const std::vector<std::string> docs = {kSoap11Request, latin1, kSoap11Request, doctype, kSoap12Request,
                                           broken,         kSoap11Request, utf16, kSoap12Request, latin1};
    std::vector<SoapInfo> first;
    for (const std::string& d : docs) first.push_back(decode_soap(d));
    // The same documents again, in reverse order, and each after 300 others
    // (past the point where the reader is replaced).
    for (size_t k = docs.size(); k-- > 0;) {
        for (int i = 0; i < 300; ++i) decode_soap(kSoap12Request);
        SoapInfo again = decode_soap(docs[k]);
        INFO("document " << k);
        CHECK(again.error == first[k].error);
        CHECK(again.is_soap == first[k].is_soap);
        CHECK(again.operation == first[k].operation);
        CHECK(again.operation_ns == first[k].operation_ns);
        CHECK(again.element_count == first[k].element_count);
    }
    CHECK(first[0].operation == "GetQuote");
    CHECK(first[1].operation == "Caf\xC3\xA9");
    CHECK(first[3].error == "DOCTYPE not allowed in SOAP");
    CHECK(first[5].error.rfind("malformed XML", 0) == 0);
    CHECK(first[7].operation == "W");
    CHECK(first[8].operation == "Reserve");
    CHECK(first[9].operation == "Caf\xC3\xA9");
}

// What a document yields must not depend on what the thread decoded before
// it (the reader is reused): a UTF-16LE body without a byte-order mark, and
// a document past libxml2's depth limit, give the same before and after
// other documents and in a thread that decoded nothing yet.
TEST_CASE("a document decodes the same whatever the thread decoded before") {
    std::string utf16 = widen("<?xml version=\"1.0\" encoding=\"utf-16\"?>\r\n" + soap11_body("<q:GetQuote xmlns:q=\"urn:q\"/>"),
                              2, false, false);
    std::string deep = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>";
    for (int i = 0; i < 100000; ++i) deep += "<a>";
    for (int i = 0; i < 100000; ++i) deep += "</a>";
    deep += "</soap:Body></soap:Envelope>";
    std::string plain = soap11_body("<q:Ping xmlns:q=\"urn:q\"/>");
    auto fingerprint = [](const SoapInfo& i) { return i.error + "|" + i.operation + "|" + std::to_string(i.element_count); };
    for (const std::string* doc : {&utf16, &deep}) {
        std::string fresh;
        std::thread([&] { fresh = fingerprint(decode_soap(*doc)); }).join();
        for (int round = 0; round < 3; ++round) {
            decode_soap(plain);
            CHECK(fingerprint(decode_soap(*doc)) == fresh);
        }
    }
    CHECK(decode_soap(utf16).operation == "GetQuote");
}

// ---- The SAX pass (no tree) against the tree-building reader: same SoapInfo.

namespace {

// Odd but plausible XML: comments, CDATA, PIs, '>' inside quoted attributes,
// self-closing tags, namespaces declared, redeclared, undeclared and unbound,
// entity and character references, xml:* attributes, faults of both
// versions with mixed content, long texts, deep nesting, broken endings.
std::vector<std::string> odd_documents() {
    const std::string s11 = "http://schemas.xmlsoap.org/soap/envelope/";
    const std::string s12 = "http://www.w3.org/2003/05/soap-envelope";
    std::vector<std::string> v = {
        kSoap11Request,
        kSoap12Request,
        "<?xml version=\"1.0\"?><!-- c --><?pi x?><s:Envelope xmlns:s=\"" + s11 +
            "\"><!-- in --><s:Body><?p?><m:Op xmlns:m=\"urn:m\" a=\"x>y\" b='>'><![CDATA[<not/>]]></m:Op></s:Body></s:Envelope>",
        "<Envelope xmlns=\"" + s11 + "\"><Body><Op xmlns=\"\"/></Body></Envelope>",
        "<Envelope xmlns=\"" + s12 + "\"><Body><x:Op xmlns:x=\"urn:a\"><x:In xmlns:x=\"urn:b\"/></x:Op></Body></Envelope>",
        "<s:Envelope xmlns:s=\"" + s11 + "\"><s:Header/><s:Body/></s:Envelope>",
        "<s:Envelope xmlns:s=\"" + s11 + "\"><s:Body><m:Op xmlns:m=\"urn:m\">a &amp; b &#x41;&#66; &lt;</m:Op></s:Body></s:Envelope>",
        soap11_body("<s:Fault><faultcode>s:Client</faultcode><faultstring>  bad <![CDATA[input]]>  </faultstring></s:Fault>"),
        soap11_body("<s:Fault><faultcode> <b/> x <!-- c --> y </faultcode><faultstring xml:lang=\"en\">a<i>b</i>c</faultstring></s:Fault>"),
        soap11_body("<s:Fault><faultcode/><faultstring></faultstring><detail><faultstring>no</faultstring></detail></s:Fault>"),
        soap11_body("<s:Fault><faultcode>" + std::string(5000, 'x') + "</faultcode><faultstring>&#32;&#10;</faultstring></s:Fault>"),
        soap11_body("<s:Fault><faultstring>" + std::string(4090, ' ') + "<![CDATA[abcdefghij]]>" + "</faultstring></s:Fault>"),
        "<e:Envelope xmlns:e=\"" + s12 + "\"><e:Body><e:Fault><e:Code><e:Value>e:Sender</e:Value><e:Subcode><e:Value>m:x</e:Value>"
            "</e:Subcode></e:Code><e:Reason><e:Text xml:lang=\"en\">why</e:Text><e:Text xml:lang=\"de\">warum</e:Text></e:Reason>"
            "</e:Fault></e:Body></e:Envelope>",
        "<e:Envelope xmlns:e=\"" + s12 + "\"><e:Body><e:Fault><e:Code><e:Value xml:space=\"preserve\">  </e:Value></e:Code>"
            "<e:Reason><e:Text>a<!-- c -->b<?pi?>c</e:Text></e:Reason></e:Fault></e:Body></e:Envelope>",
        soap11_body("<op xml:id=\"good\"/>"),
        soap11_body("<op xml:id=\"1 bad\"/>"),
        soap11_body("<op xml:id=\"d\"/><op2 xml:id=\"d\"/>"),
        soap11_body("<op xml:base=\"http://x/\" xml:space=\"default\"/>"),
        soap11_body("<m:op xmlns:m=\"relative/uri\"/>"),
        soap11_body("<m:op xmlns:m=\"http://exa mple/\"/>"),
        soap11_body("<m:op xmlns:m=\"\"/>"),
        soap11_body("<p:op/>"),
        soap11_body("<op a=\"1\" a=\"2\"/>"),
        soap11_body("<op m:a=\"1\" xmlns:m=\"urn:m\" n:a=\"2\" xmlns:n=\"urn:m\"/>"),
        soap11_body("<op>&undeclared;</op>"),
        soap11_body("<op>\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80</op>"),
        soap11_body("<op>\xC3\x28</op>"),
        soap11_body("<op>\x01</op>"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>" + soap11_body("<op/>"),
        "<?xml version=\"1.0\" encoding=\"utf8\"?>" + soap11_body("<op/>"),
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + soap11_body("<op>\xE9</op>"),
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?>" + soap11_body("<op/>"),
        "<?xml version=\"1.1\"?>" + soap11_body("<op/>"),
        "<?xml version=\"2.0\"?>" + soap11_body("<op/>"),
        "\xEF\xBB\xBF" + soap11_body("<op/>"),
        "\xEF\xBB\xBF  " + soap11_body("<op/>"),
        "\xEF\xBB\xBF\xEF\xBB\xBF" + soap11_body("<op/>"),
        "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-16\"?>" + soap11_body("<op/>"),
        "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?><!-- c -->" + soap11_body("<op>\xC3\xA9</op>"),
        "\xEF\xBB\xBF" + soap11_body("<op>\xC3\x28</op>"),
        "\xEF\xBB",
        "  \r\n" + soap11_body("<op/>"),
        soap11_body("<op/>") + "  <!-- after -->\n<?pi?>",
        soap11_body("<op/>") + "<second/>",
        soap11_body("<op/>") + "junk",
        soap11_body("<op>"),
        soap11_body("<op></po>"),
        kSoap11Request.substr(0, 120),
        "<a><b></a>",
        "<a/><!DOCTYPE x>",
        "<a>]]></a>",
        "<a><![CDATA[x]]]]><![CDATA[>]]></a>",
        "<a b=\"&lt;&#x3E;\" c=\"&amp;amp;\"/>",
        "<a b=\"<\"/>",
        "<a:b:c xmlns:a=\"urn:a\"/>",
        "<xml:a/>",
        "<a xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"/>",
        "<a xmlns:xmlns=\"urn:x\"/>",
        std::string("<a>\0</a>", 8),
        "<a>" + std::string(70000, 'y') + "</a>",
        "not xml at all",
        "<",
        "<a",
    };
    for (size_t levels : {150, 199, 200, 201, 255, 256, 257, 300}) v.push_back(soap11_body(nested(levels)));
    return v;
}

} // namespace

TEST_CASE("SAX pass and reader agree on odd XML") {
    set_soap_cross_check(true);
    const auto docs = odd_documents();
    for (const std::string& d : docs) {
        INFO(d.substr(0, 300));
        SoapInfo fast = decode_soap(d);
        SoapInfo reader = decode_soap_with_reader(d);
        CHECK(same_soap_info(fast, reader));
        CHECK(fast.element_count == reader.element_count);  // the fields a mismatch would show first
        CHECK(fast.error == reader.error);
        CHECK(fast.fault_string == reader.fault_string);
    }
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.documents == docs.size());
    CHECK(t.differing == 0);
    CHECK(t.plain >= 8);                // plain XML is read by our own scan...
    CHECK(t.fast >= 20);                // well-formed UTF-8 takes the SAX pass...
    CHECK(t.fast + 20 <= t.documents);  // ...and the errors, DTDs, other encodings the reader
}

namespace {
// Did decode_soap count `d` in `counter` (fast: plain or SAX pass; plain)?
// The cross-check must be on.
bool counted(uint64_t SoapCrossCheck::*counter, const std::string& d) {
    uint64_t before = soap_cross_check_totals().*counter;
    decode_soap(d);
    return soap_cross_check_totals().*counter > before;
}
bool took_fast(const std::string& d) { return counted(&SoapCrossCheck::fast, d); }
bool took_plain(const std::string& d) { return counted(&SoapCrossCheck::plain, d); }
} // namespace

TEST_CASE("SAX pass: which documents it takes") {
    set_soap_cross_check(true);
    CHECK(took_fast(kSoap11Request));
    CHECK(took_fast(kSoap12Request));
    CHECK(took_fast(soap11_body("<s:Fault><faultcode>c</faultcode><faultstring>s</faultstring></s:Fault>")));
    CHECK(took_fast(soap11_body(nested(198))));                             // 200 levels
    CHECK_FALSE(took_fast(soap11_body(nested(199))));                       // deeper: the reader's own limits
    CHECK_FALSE(took_fast(soap11_body("<op xml:id=\"x\"/>")));             // checked by the reader's tree
    CHECK_FALSE(took_fast(soap11_body("<p:op/>")));                         // any parser message
    CHECK_FALSE(took_fast(soap11_body("<op>")));
    CHECK(took_fast("\xEF\xBB\xBF" + kSoap12Request));                      // UTF-8 byte-order mark
    CHECK(took_fast("\xEF\xBB\xBF" + kSoap11Request));                      // ... and a declaration
    CHECK_FALSE(took_fast("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>"));
    CHECK_FALSE(took_fast("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>"));
    set_soap_cross_check(false);
}

TEST_CASE("plain pass: which documents it takes") {
    set_soap_cross_check(true);
    CHECK(took_plain(kSoap11Request));
    CHECK(took_plain(kSoap12Request));
    CHECK(took_plain("<?xml version='1.0' encoding='utf-8' standalone='no' ?>\r\n" + soap11_body("<op a = 'x>y'\tb=\"\"/>") + "\r\n"));
    CHECK(took_plain(soap11_body("<s:Fault><faultcode>s:Client</faultcode><faultstring>x y</faultstring></s:Fault>")));
    CHECK(took_plain(soap11_body("<m:op xmlns:m=\"https://h.example:8080/a/b-c_d~e\" xmlns=\"\"><x/></m:op>")));
    CHECK(took_plain(soap11_body(nested(198))));
    CHECK_FALSE(took_plain(soap11_body(nested(199))));
    CHECK_FALSE(took_plain(soap11_body("<op>&amp;</op>")));                         // references
    CHECK_FALSE(took_plain(soap11_body("<op><!-- c --></op>")));                    // comments, CDATA, PIs
    CHECK_FALSE(took_plain(soap11_body("<op>\xC3\xA9</op>")));                    // non-ASCII
    CHECK_FALSE(took_plain(soap11_body("<m:op xmlns:m=\"http://h:x/\"/>")));       // an odd namespace name
    CHECK_FALSE(took_plain(soap11_body("<m:op xmlns:m=\"tempuri\"/>")));          // relative
    for (const char* odd : {"http://1.2.3.4.5/", "http://10.0.0.1/", "http://h:99999999999/", "http://h:123456/", "http://_h/",
                            "http:///x", "http://h?q", "HTTP://h/", "urn:", "urn:a/b", "http://h/a b"})
        CHECK_FALSE(took_plain(soap11_body(std::string("<m:op xmlns:m=\"") + odd + "\"/>")));
    CHECK_FALSE(took_plain(soap11_body("<op a:x=\"1\" b:x=\"2\" xmlns:a=\"urn:u\" xmlns:b=\"urn:u\"/>")));
    CHECK_FALSE(took_plain(soap11_body("<op xml:lang=\"en\"/>")));
    CHECK_FALSE(took_plain(soap11_body("<s:Fault><faultcode>a\r\nb</faultcode></s:Fault>")));  // \r in kept text
    CHECK_FALSE(took_plain(" <?xml version=\"1.0\"?><a/>"));
    CHECK_FALSE(took_plain("\xEF\xBB\xBF<a/>"));
    CHECK(took_plain("<" + std::string(1000, 'n') + "/>"));
    CHECK_FALSE(took_plain("<" + std::string(1001, 'n') + "/>"));
    CHECK_FALSE(took_plain("<" + std::string(60000, 'n') + "/>"));           // libxml2: name too long
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.differing == 0);
}

TEST_CASE("plain pass: character data read a word at a time agrees with the reader for every byte") {
    // The scan passes 8 plain bytes at a time: any byte value at any offset of a
    // text run (both sides of a word boundary) must still be seen.
    set_soap_cross_check(true);
    size_t plain = 0;
    for (int b = 0; b < 256; ++b) {
        for (size_t at = 0; at < 19; ++at) {
            std::string text(19, 'x');
            text[at] = char(b);
            const std::string d = soap11_body("<op>" + text + "</op><m:t xmlns:m=\"urn:t\">" + text + "</m:t>");
            INFO("byte " << b << " at " << at);
            CHECK(same_soap_info(decode_soap(d), decode_soap_with_reader(d)));
        }
    }
    for (const char* run : {"a]]>b", "]]]>", "]] >", "x\r\ny", "\t\t\t\t\t\t\t\t\t"}) {
        const std::string d = soap11_body(std::string("<s:Fault><faultcode>aaaaaaa") + run + "aaaaaaaa</faultcode></s:Fault>");
        CHECK(same_soap_info(decode_soap(d), decode_soap_with_reader(d)));
    }
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    plain = t.plain;
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(plain >= 94 * 19);  // every printable byte but < & > at every offset took the plain pass
}

TEST_CASE("a document decodes the same whatever the thread decoded before it") {
    // An element left open with a namespace bound (libxml2 2.9 keeps such
    // bindings across a parser reset) must not bind the next document's prefix.
    const std::string unbound = "<x:Envelope><x:Body><x:Op/></x:Body></x:Envelope>";
    const std::string aborted = "<x:Envelope xmlns:x=\"http://schemas.xmlsoap.org/soap/envelope/\"><x:Body><bad";
    const std::string too_deep = "<x:Envelope xmlns:x=\"http://schemas.xmlsoap.org/soap/envelope/\">" + nested(300);
    SoapInfo alone = decode_soap(unbound);
    SoapInfo alone_reader = decode_soap_with_reader(unbound);
    CHECK_FALSE(alone.is_soap);  // x: bound to nothing
    CHECK(same_soap_info(alone, alone_reader));
    // After a clean document a reused reader skipped the final parse step:
    // an error in the first start tag lost its message.
    const std::string bad_start = "<a b=\"<\"/>";
    SoapInfo bad_alone = decode_soap(bad_start);
    CHECK(bad_alone.error.find("Unescaped '<'") != std::string::npos);
    decode_soap_with_reader("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>");  // clean, by the reader
    CHECK(same_soap_info(decode_soap(bad_start), bad_alone));
    CHECK(same_soap_info(decode_soap_with_reader(bad_start), bad_alone));
    for (const std::string& before : {aborted, too_deep}) {
        decode_soap(before);
        CHECK(same_soap_info(decode_soap(unbound), alone));
        decode_soap_with_reader(before);
        CHECK(same_soap_info(decode_soap_with_reader(unbound), alone_reader));
    }
}

TEST_CASE("SAX pass and reader agree on mutated odd documents") {
    std::mt19937 rng(4242);
    const auto seeds = odd_documents();
    set_soap_cross_check(true);
    for (int iter = 0; iter < 4000; ++iter) {
        std::string s = seeds[size_t(rng()) % seeds.size()];
        if (s.size() > 8000) continue;
        mutate(s, rng, 1 + int(rng() % 4), true);
        decode_soap(s);
    }
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(t.fast > 100);  // mutations that stay well-formed are compared too
}

namespace {

// A random well-formed document: SOAP 1.1 or 1.2 envelopes (faults too) or
// plain XML, with namespaces declared where used, attributes ('>' and
// entities in values), comments, PIs, CDATA, references, white space and
// self-closing tags anywhere content may be.
class WellFormedXml {
public:
    // `plain`: only what the plain pass reads (ASCII, no comment, PI, CDATA,
    // reference, BOM or xml:* attribute).
    WellFormedXml(uint32_t seed, bool plain) : rng_(seed), plain_(plain) {}

    std::string document() {
        std::string d = !plain_ && pick(5) == 0 ? "\xEF\xBB\xBF" : "";
        if (pick(3) == 0) d += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
        misc(d);
        const bool v12 = pick(2) == 0;
        const std::string env = v12 ? "http://www.w3.org/2003/05/soap-envelope" : "http://schemas.xmlsoap.org/soap/envelope/";
        if (pick(6) == 0) {
            element(d, 0);
        } else {
            d += "<s:Envelope xmlns:s=\"" + env + "\"" + attributes() + ">";
            content(d, 1);
            if (pick(2) == 0) d += "<s:Header>" + std::string(pick(2) ? "<h:A xmlns:h=\"urn:h\">t</h:A>" : "") + "</s:Header>";
            d += "<s:Body>";
            misc(d);
            if (pick(3) == 0) fault(d, v12);
            else element(d, 2);
            misc(d);
            d += "</s:Body>";
            misc(d);
            d += "</s:Envelope>";
        }
        misc(d);
        return d;
    }

private:
    uint32_t pick(uint32_t n) { return rng_() % n; }

    std::string text() {
        static const char* const bits[] = {"x", " ", "\r\n", "\t", "a b", "&amp;", "&lt;", "&#x41;", "&#32;", "]", "\xC3\xA9", ">", "'", "&quot;"};
        static const char* const plain_bits[] = {"x", " ", "\n", "\t", "a b", ">", "'", "[", "\"", "=", "/"};
        std::string t;
        for (uint32_t i = pick(5); i > 0; --i)
            t += plain_ ? plain_bits[pick(sizeof plain_bits / sizeof plain_bits[0])] : bits[pick(sizeof bits / sizeof bits[0])];
        return t;
    }
    std::string attributes() {
        std::string a;
        for (uint32_t i = pick(3); i > 0; --i) {
            std::string v = text();
            if (plain_) v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
            a += " a" + std::to_string(i) + "=" + (pick(2) ? "\"" + v + "\"" : "'x>y'");
        }
        if (!plain_ && pick(4) == 0) a += " xml:lang=\"en\"";
        if (!plain_ && pick(8) == 0) a += " xml:space=\"preserve\"";
        return a;
    }
    void misc(std::string& d) {
        switch (plain_ ? 2 + pick(4) : pick(6)) {
        case 0: d += "<!--" + std::string(pick(2) ? " c > d " : "") + "-->"; break;
        case 1: d += "<?pi data?>"; break;
        case 2: d += "\n  "; break;
        default: break;
        }
    }
    void content(std::string& d, int depth) {
        for (uint32_t i = pick(4); i > 0; --i) {
            switch (pick(5)) {
            case 0: d += text(); break;
            case 1: if (!plain_) d += "<![CDATA[" + std::string(pick(2) ? "<x>&amp;" : "") + "]]>"; break;
            case 2: if (depth < 12) element(d, depth); break;
            default: misc(d); break;
            }
        }
    }
    void element(std::string& d, int depth) {
        static const char* const names[] = {"op", "Fault", "Body", "Envelope", "faultcode", "Value", "Text", "item"};
        std::string name = names[pick(sizeof names / sizeof names[0])];
        std::string decl;
        switch (pick(4)) {
        case 0: name = "m:" + name; decl = " xmlns:m=\"urn:m" + std::to_string(pick(3)) + "\""; break;
        case 1: decl = " xmlns=\"" + std::string(pick(2) ? "urn:d" : "") + "\""; break;
        default: break;
        }
        d += "<" + name + decl + attributes();
        if (pick(4) == 0) { d += "/>"; return; }
        d += ">";
        content(d, depth + 1);
        d += "</" + name + ">";
    }
    void fault(std::string& d, bool v12) {
        if (v12) {
            d += "<s:Fault><s:Code><s:Value>";
            content(d, 5);
            d += std::string("</s:Value></s:Code><s:Reason><s:Text") + (plain_ ? "" : " xml:lang=\"en\"") + ">";
            content(d, 5);
            d += "</s:Text></s:Reason></s:Fault>";
        } else {
            d += "<s:Fault><faultcode>";
            content(d, 4);
            d += "</faultcode>";
            misc(d);
            d += "<faultstring>";
            content(d, 4);
            d += "</faultstring></s:Fault>";
        }
    }

    std::mt19937 rng_;
    bool plain_;
};

} // namespace

TEST_CASE("SAX pass and reader agree on random well-formed documents") {
    WellFormedXml gen(2026, false);
    set_soap_cross_check(true);
    uint64_t faults = 0, soap = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string d = gen.document();
        SoapInfo info = decode_soap(d);
        INFO(d);
        REQUIRE(info.error.empty());  // the generator makes well-formed XML only
        faults += info.fault;
        soap += info.is_soap;
    }
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(t.fast == t.documents);  // no xml:id, no DTD, no deep nesting: all by the SAX pass
    CHECK(t.plain > 30);  // the plain ones (ASCII, no comment, CDATA, reference...) by our own scan
    CHECK(faults > 300);
    CHECK(soap > 2000);
}

TEST_CASE("plain pass and reader agree on random plain documents") {
    WellFormedXml gen(15, true);
    set_soap_cross_check(true);
    uint64_t faults = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string d = gen.document();
        SoapInfo info = decode_soap(d);
        INFO(d);
        REQUIRE(info.error.empty());
        faults += info.fault;
    }
    SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(t.plain > 2500);  // declined: \r in a fault text, the same local name twice
    CHECK(faults > 300);
}

namespace {

// What SoapRead::Head must give: an error only where the whole read has the
// same one; on a document the whole read finds well-formed, the whole read's
// head fields. (On one malformed past its head, the whole read keeps what
// the reader delivered before it stopped, which its look-ahead can make
// nothing at all, while the head read has the head.)
void check_head_read(const std::string& d, uint64_t& stopped_early) {
    const SoapInfo whole = decode_soap(d);
    const SoapInfo head = decode_soap(d, {}, SoapRead::Head);
    INFO(d.substr(0, 400));
    CHECK_FALSE(whole.head_only);
    if (!head.error.empty()) {
        CHECK(head.error == whole.error);
        return;
    }
    if (!whole.error.empty()) {
        ++stopped_early;  // the head read did not see it: it is past the head
        return;
    }
    CHECK(head.is_soap == whole.is_soap);
    CHECK(head.version == whole.version);
    CHECK(head.operation == whole.operation);
    CHECK(head.operation_ns == whole.operation_ns);
    CHECK(head.fault == whole.fault);
    CHECK(head.fault_code == whole.fault_code);
    CHECK(head.fault_string == whole.fault_string);
    CHECK(head.bytes == whole.bytes);
    CHECK(head.element_count <= whole.element_count);
    if (!head.head_only) {  // read to the end anyway: everything the whole read's
        CHECK(same_soap_info(head, whole));
    } else if (head.element_count < whole.element_count) {
        ++stopped_early;
    }
}

} // namespace

TEST_CASE("head read: the head fields of the whole read, on odd, mutated and random documents") {
    uint64_t stopped_early = 0;
    const auto docs = odd_documents();
    for (const std::string& d : docs) check_head_read(d, stopped_early);
    std::mt19937 rng(2611);
    for (int iter = 0; iter < 2000; ++iter) {
        std::string s = docs[size_t(rng()) % docs.size()];
        if (s.size() > 8000) continue;
        mutate(s, rng, 1 + int(rng() % 4), true);
        check_head_read(s, stopped_early);
    }
    WellFormedXml any(77, false), plain(78, true);
    for (int i = 0; i < 1500; ++i) {
        check_head_read(any.document(), stopped_early);
        check_head_read(plain.document(), stopped_early);
    }
    CHECK(stopped_early > 1000);  // the head read did stop before the end
}

TEST_CASE("head read: a big envelope is read to its operation only, by each pass") {
    std::string items;
    for (int i = 0; i < 20000; ++i) items += "<item>" + std::to_string(i) + "</item>";
    set_soap_cross_check(true);
    for (const std::string& body : {"<m:Put xmlns:m=\"urn:x\">" + items + "</m:Put>",
                                    "<!-- not plain --><m:Put xmlns:m=\"urn:x\">" + items + "</m:Put>",
                                    "<m:Put xmlns:m=\"urn:x\">" + items + "</m:Put><broken"}) {
        for (const std::string& doc : {soap11_body(body), "\xEF\xBB\xBF" + soap11_body(body)}) {
            const SoapInfo head = decode_soap(doc, {}, SoapRead::Head);
            const SoapInfo reader = decode_soap_with_reader(doc, {}, SoapRead::Head);
            INFO(doc.substr(0, 200));
            for (const SoapInfo* i : {&head, &reader}) {
                CHECK(i->error.empty());  // a malformation past the head is not seen
                CHECK(i->head_only);
                CHECK(i->operation == "Put");
                CHECK(i->operation_ns == "urn:x");
                CHECK(i->element_count <= 4);
            }
        }
    }
    const SoapCrossCheck t = soap_cross_check_totals();
    set_soap_cross_check(false);
    INFO(t.first_difference);
    CHECK(t.documents == 6);
    CHECK(t.differing == 0);   // the reader stops at the same place
    CHECK(t.plain == 2);       // plain: no BOM, no comment
    CHECK(t.fast == 6);        // the rest by the SAX pass: none left to the reader
    CHECK(decode_soap(soap11_body("<m:Put xmlns:m=\"urn:x\">" + items + "</m:Put>")).element_count >= 20000);
    // A fault is read to its end: code and string.
    const std::string fault = soap11_body("<s:Fault><faultcode>s:Client</faultcode><faultstring>no</faultstring>"
                                          "<detail>" + items + "</detail></s:Fault>");
    const SoapInfo f = decode_soap(fault, {}, SoapRead::Head);
    CHECK(f.fault);
    CHECK(f.fault_code == "s:Client");
    CHECK(f.fault_string == "no");
    CHECK(f.head_only);  // stopped at the Fault's end
    CHECK(f.element_count >= 20000);  // its detail included
}

namespace {

// A SoapInfo filled by an earlier decode with every field set: the one
// decode_soap_into must write over without leaving anything behind.
SoapInfo filled_soap_info() {
    SoapInfo i = decode_soap(soap11_body("<s:Fault><faultcode>s:Server</faultcode><faultstring>" + std::string(300, 'f') +
                                         "</faultstring></s:Fault>"));
    REQUIRE(i.fault);
    i.error = "left over from before " + std::string(100, 'e');
    i.error_code = SoapError::Malformed;
    i.head_only = true;
    i.operation_ns += std::string(200, 'n');
    return i;
}

// decode_soap_into gives decode_soap's SoapInfo, into a new SoapInfo and
// into `reused` (written over whatever it held).
void check_into(const std::string& doc, SoapInfo& reused, const SoapLimits& lim = {}) {
    for (SoapRead read : {SoapRead::Whole, SoapRead::Head}) {
        INFO(doc.substr(0, 300) << " read " << (read == SoapRead::Head ? "head" : "whole"));
        const SoapInfo expected = decode_soap(doc, lim, read);
        SoapInfo fresh;
        decode_soap_into(doc, fresh, lim, read);
        CHECK(same_soap_info(fresh, expected));
        CHECK(fresh.error_code == expected.error_code);
        decode_soap_into(doc, reused, lim, read);
        CHECK(same_soap_info(reused, expected));
        CHECK(reused.error_code == expected.error_code);
        SoapInfo dirty = filled_soap_info();
        decode_soap_into(doc, dirty, lim, read);
        CHECK(same_soap_info(dirty, expected));
        CHECK(dirty.error_code == expected.error_code);
    }
}

} // namespace

TEST_CASE("decode_soap_into: decode_soap's answer on every bundled document, into a new or a reused SoapInfo") {
    SoapInfo reused = filled_soap_info();
    std::vector<std::string> docs = odd_documents();
    docs.push_back("<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>");
    docs.push_back(soap11_body("<op>x</op>").insert(0, "<!DOCTYPE s:Envelope>"));
    std::string utf16;  // UTF-16LE without a byte-order mark: the reader's path
    for (char c : kSoap12Request) utf16 += std::string{c, '\0'};
    docs.push_back(utf16);
    docs.push_back("");
    for (const std::string& d : docs) check_into(d, reused);
    SoapLimits small;
    small.max_bytes = 64;
    small.max_depth = 3;
    check_into(kSoap11Request, reused, small);   // too large
    check_into(soap11_body(nested(5)), reused);
    check_into(soap11_body(nested(5)), reused, SoapLimits{4096, 3});  // too deep
    WellFormedXml any(2651, false), plain(2652, true);
    for (int i = 0; i < 300; ++i) {
        check_into(any.document(), reused);
        check_into(plain.document(), reused);
    }
}

// The markup count a whole plain read makes on the way (decode_soap_into's
// markup_bytes, used instead of analyzers' count_markup_bytes) against the
// byte rule: from each '<' outside a tag to the next '>', both counted.
TEST_CASE("decode_soap_into: the markup bytes a whole plain read counts, as the byte rule counts them") {
    auto by_bytes = [](std::string_view s) {  // the rule as two finds per tag
        uint64_t n = 0;
        for (size_t p = s.find('<'); p != std::string_view::npos; p = s.find('<', p)) {
            const size_t q = s.find('>', p);
            const size_t stop = q == std::string_view::npos ? s.size() : q + 1;
            n += stop - p;
            p = stop;
        }
        return n;
    };
    WellFormedXml any(2661, false), plain(2662, true);
    uint64_t known = 0, unknown = 0;
    SoapInfo info;
    for (int i = 0; i < 1500; ++i) {
        for (const std::string& d : {any.document(), plain.document()}) {
            uint64_t m = 1;
            decode_soap_into(d, info, {}, SoapRead::Whole, &m);
            if (m == kMarkupUnknown) {
                ++unknown;
                continue;
            }
            ++known;
            INFO(d);
            REQUIRE(m == by_bytes(d));
        }
    }
    CHECK(known > 300);    // plain documents without a '>' in a value
    CHECK(unknown > 1000);  // libxml2's passes, and a '>' in an attribute value
    const std::string env = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>";
    const std::string d = "<?xml version=\"1.0\"?>\n " + env + "<op a=\"x\">t > u</op></s:Body></s:Envelope>\n";
    uint64_t m = 0;
    decode_soap_into(d, info, {}, SoapRead::Whole, &m);
    CHECK(m == by_bytes(d));
    CHECK(m == d.size() - 2 - 5 - 1);  // less the white space around the root and the text
    // A head read that stops, a '>' in a value: not counted.
    decode_soap_into(d, info, {}, SoapRead::Head, &m);
    CHECK(m == kMarkupUnknown);
    decode_soap_into(env + "<op a=\"x>y\">t</op></s:Body></s:Envelope>", info, {}, SoapRead::Whole, &m);
    CHECK(m == kMarkupUnknown);
}

TEST_CASE("decode_soap_into: every cut of an envelope, into one reused SoapInfo") {
    SoapInfo reused = filled_soap_info();
    const std::string fault12 =
        "<e:Envelope xmlns:e=\"http://www.w3.org/2003/05/soap-envelope\"><e:Body><e:Fault><e:Code><e:Value>e:Sender"
        "</e:Value></e:Code><e:Reason><e:Text xml:lang=\"en\">why</e:Text></e:Reason></e:Fault></e:Body></e:Envelope>";
    for (const std::string& doc : {kSoap11Request, kSoap12Request, fault12})
        for (size_t n = 0; n <= doc.size(); ++n) check_into(doc.substr(0, n), reused);
}

TEST_CASE("decode_soap_into: the strings keep their memory from document to document") {
    const std::string ns(100, 'u');
    const std::string a = soap11_body("<m:Alpha xmlns:m=\"urn:" + ns + "\"/>");
    const std::string b = soap11_body("<m:Beta xmlns:m=\"urn:" + ns.substr(0, 90) + "\"/>");
    SoapInfo info;
    decode_soap_into(a, info);
    REQUIRE(info.operation_ns == "urn:" + ns);
    const char* const buffer = info.operation_ns.data();
    for (SoapRead read : {SoapRead::Whole, SoapRead::Head, SoapRead::Head}) {  // the second head read: from the memo
        decode_soap_into(b, info, {}, read);
        CHECK(info.operation == "Beta");
        CHECK(info.operation_ns == "urn:" + ns.substr(0, 90));
        CHECK(info.operation_ns.data() == buffer);  // written in place, not a new string moved in
        decode_soap_into(a, info, {}, read);
        CHECK(info.operation_ns.data() == buffer);
    }
    // A failed document empties the fields, still in place.
    decode_soap_into("<a><b></a>", info);
    CHECK(info.operation_ns.empty());
    CHECK_FALSE(info.error.empty());
    decode_soap_into(a, info);
    CHECK(info.operation_ns.data() == buffer);
}

TEST_CASE("starts_like_xml: a '<' first is XML whatever follows, as the full scan says") {
    for (int c = 0; c < 256; ++c)
        for (const std::string& tail : {std::string(), std::string("a>"), std::string(1, '\0'), std::string("\0\0", 2)}) {
            const std::string body = std::string("<") + char(c) + tail;
            INFO(c << " + " << tail.size() << " bytes");
            CHECK(starts_like_xml(body));
        }
    CHECK(starts_like_xml("<"));
    CHECK_FALSE(starts_like_xml("a<"));
    CHECK(starts_like_xml(std::string("\0<", 2)));  // UTF-16BE '<': the full scan's answer
    CHECK_FALSE(starts_like_xml(std::string("\0a\0<", 4)));
}
