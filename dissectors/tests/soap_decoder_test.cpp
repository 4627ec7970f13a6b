// SOAP decoding: versions, faults, hostile XML.
#include "dissectors/soap/soap_decoder.h"

#include <catch2/catch.hpp>

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
        int mutations = 1 + int(rng() % 6);
        for (int m = 0; m < mutations; ++m) {
            size_t pos = rng() % s.size();
            switch (rng() % 3) {
            case 0: s[pos] = char(rng() % 256); break;
            case 1: s.erase(pos, 1 + rng() % 10); break;
            default: s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 20)); break;
            }
            if (s.empty()) s = "<";
        }
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
