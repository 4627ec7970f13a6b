// The plain pass's scan of tags (dissectors/soap/soap_plain_pass.cpp): a
// QName read in one pass, attribute values found with memchr and checked 8
// bytes at a time, the envelope namespaces known. Held to the libxml2
// reader byte by byte, on whole and head reads.
#include "dissectors/soap/soap_decoder.h"
#include "dissectors/soap/soap_plain_pass.h"

#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

using namespace stallscope;

namespace {

const std::string kEnv11 = "http://schemas.xmlsoap.org/soap/envelope/";
const std::string kEnv12 = "http://www.w3.org/2003/05/soap-envelope";

std::string envelope(const std::string& body_child, const std::string& ns = kEnv11) {
    return "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"" + ns + "\"><s:Body>" + body_child +
           "</s:Body></s:Envelope>";
}

// Decodes `d` whole and to its head with the cross-check on (each compared
// with the reader); true if the whole read took the plain pass. `head_plain`:
// counts the head reads it took.
bool decode_both(const std::string& d, uint64_t* head_plain = nullptr) {
    const uint64_t before = soap_cross_check_totals().plain;
    decode_soap(d);
    const uint64_t between = soap_cross_check_totals().plain;
    decode_soap(d, {}, SoapRead::Head);
    if (head_plain) *head_plain += soap_cross_check_totals().plain - between;
    return between > before;
}

struct CrossCheckOn {
    CrossCheckOn() { set_soap_cross_check(true); }
    ~CrossCheckOn() { set_soap_cross_check(false); }
};

} // namespace

TEST_CASE("plain scan: every byte at every offset of a name or an attribute value, as the reader reads it") {
    CrossCheckOn on;
    uint64_t plain = 0;
    const std::string name(19, 'n'), value(19, 'v');
    for (int b = 0; b < 256; ++b) {
        for (size_t at = 0; at < 19; ++at) {
            std::string n = name, v = value;
            n[at] = char(b);
            v[at] = char(b);
            INFO("byte " << b << " at " << at);
            // In the operation's name (prefix and local part), an attribute's
            // name and value (both quotes), the envelope namespace.
            plain += decode_both(envelope("<" + n + " xmlns=\"urn:t\"/>"));
            plain += decode_both(envelope("<m:" + n + " xmlns:m=\"urn:t\"/>"));
            plain += decode_both(envelope("<" + n + ":op xmlns:" + n + "=\"urn:t\"/>"));
            plain += decode_both(envelope("<op " + n + "=\"1\"/>"));
            plain += decode_both(envelope("<op a=\"" + v + "\" b='" + v + "'/>"));
            plain += decode_both(envelope("<m:op xmlns:m=\"urn:" + v + "\"/>"));
            std::string env = kEnv11;
            env[at % env.size()] = char(b);
            plain += decode_both(envelope("<op/>", env));
        }
    }
    const SoapCrossCheck t = soap_cross_check_totals();
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(plain >= 7 * 19 * 50);  // the name and value characters at every offset took the plain pass
}

// Character data is passed a word at a time and the word that stopped the
// test byte by byte (text_run): every byte, at every offset of texts shorter
// than, as long as and longer than a word, in a kept fault string and in
// the text of elements past the head, read as the reader reads it.
TEST_CASE("plain scan: every byte at every offset of character data, as the reader reads it") {
    CrossCheckOn on;
    uint64_t plain = 0, cases = 0;
    // Lengths about a word (8 bytes) and a 16-byte block, at every offset.
    const std::vector<size_t> lengths = {1, 7, 8, 9, 15, 16, 17, 31, 33};
    size_t offsets = 0;
    for (size_t len : lengths) {
        offsets += len;
        for (int b = 0; b < 256; ++b) {
            for (size_t at = 0; at < len; ++at) {
                std::string t(len, 't');
                t[at] = char(b);
                INFO("byte " << b << " at " << at << " of " << len);
                plain += decode_both(envelope("<m:op xmlns:m=\"urn:t\"><v>" + t + "</v><w>" + t + "x" + t +
                                              "</w>" + t + "</m:op>"));
                plain += decode_both(envelope("<s:Fault><faultcode>s:Client</faultcode><faultstring>" + t +
                                              "</faultstring></s:Fault>"));
                cases += 2;
            }
        }
    }
    // "]]>" (not allowed in character data) and a lone '>' (allowed) at every offset.
    for (size_t at = 0; at <= 33; ++at) {
        INFO("at " << at);
        const std::string pre(at, 'a'), post(33 - at, 'b');
        plain += decode_both(envelope("<op><v>" + pre + "]]>" + post + "</v></op>"));
        plain += decode_both(envelope("<op><v>" + pre + "]>" + post + "</v></op>"));
        plain += decode_both(envelope("<op><v>" + pre + "] ]>" + post + "</v></op>"));
        plain += decode_both(envelope("<op><v>" + pre + "]]" + post + ">&amp;</v></op>"));
        cases += 4;
    }
    const SoapCrossCheck t = soap_cross_check_totals();
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    // The plain bytes took the plain pass, the others did not: 0x20-0x7E
    // less '<' and '&' (93), tab and LF, and CR outside the fault string
    // (libxml2 turns it into LF in the text the walker keeps), at each
    // offset; and "]>", "] ]>" at each of the 34.
    CHECK(offsets == 137);
    CHECK(cases == offsets * 256 * 2 + 34 * 4);
    CHECK(plain == offsets * (96 + 95) + 34 * 2);
}

TEST_CASE("plain scan: tags the one-pass reading handles differently, against the reader") {
    CrossCheckOn on;
    const std::vector<std::string> taken = {
        envelope("<op a=\"x>y\" b='/>' c=\"a'b\" d='a\"b'/>"),           // '>' and '/' in values
        envelope("<op\ta = \"1\"\r\n\tb\n=\n'2'  />"),                   // white space in tags
        envelope("<m:op xmlns:m=\"urn:m\" ></m:op  >"),                  // ... before '>' in both tags
        envelope("<op xmlns=\"urn:d\"><x/></op>"),                       // default namespace
        envelope("<op xmlns=\"urn:d\"><x xmlns=\"\"/></op>"),            // undeclared again
        envelope("<s:op xmlns:s=\"urn:redeclared\"/>"),                  // the envelope's prefix on the Body child
        envelope("<s:Fault xmlns:s=\"urn:other\"><faultcode>c</faultcode></s:Fault>"),  // not a Fault then
        envelope("<s:Fault><faultcode>c</faultcode><faultstring>f</faultstring></s:Fault>", kEnv11),
        envelope("<op/>", kEnv12),
        envelope("<a.b-c_d:e.f-g xmlns:a.b-c_d=\"urn:x\"/>"),            // every name character
        envelope("<op a=\"\" b=''/>"),                                   // empty values
    };
    for (const std::string& d : taken) {
        INFO(d);
        CHECK(decode_both(d));
    }
    const std::vector<std::string> declined = {
        envelope("<a:b:c xmlns:a=\"urn:x\"/>"),  // a second ':' ends no name
        envelope("<op a:b:c=\"1\"/>"),
        envelope("<m: xmlns:m=\"urn:x\"/>"),     // ':' with nothing after
        envelope("<m:1op xmlns:m=\"urn:x\"/>"),  // a local name starting with a digit
        envelope("<:op/>"),
        envelope("<op a=\"1\"b=\"2\"/>"),          // attributes not separated by white space
        envelope("<op a=\"x<y\"/>"),
        envelope("<op a=\"x&amp;y\"/>"),
        envelope("<op a=\"unclosed/>"),
        "<!-- before --><s:Envelope xmlns:s=\"" + kEnv11 + "\"><s:Body><op/></s:Body></s:Envelope>",  // comment, PI
        "<?pi x?><s:Envelope xmlns:s=\"" + kEnv11 + "\"><s:Body><op/></s:Body></s:Envelope>",          // before the root
        envelope("<op><![CDATA[x]]></op>"),
    };
    for (const std::string& d : declined) {
        INFO(d);
        CHECK_FALSE(decode_both(d));
    }
    const SoapCrossCheck t = soap_cross_check_totals();
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    // What the head read learns from the cases above that decide it.
    const SoapInfo redeclared = decode_soap(taken[5], {}, SoapRead::Head);
    CHECK(redeclared.operation == "op");
    CHECK(redeclared.operation_ns == "urn:redeclared");
    CHECK_FALSE(decode_soap(taken[6], {}, SoapRead::Head).fault);
    const SoapInfo fault = decode_soap(taken[7], {}, SoapRead::Head);
    CHECK(fault.fault);
    CHECK(fault.fault_code == "c");
    CHECK(fault.fault_string == "f");
    CHECK(decode_soap(taken[8], {}, SoapRead::Head).version == "1.2");
    CHECK(decode_soap(taken[3], {}, SoapRead::Head).operation_ns == "urn:d");
}

TEST_CASE("plain scan: an envelope cut at every byte, as the reader reads it") {
    CrossCheckOn on;
    const std::string d = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"" + kEnv11 +
                          "\" xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'>\n <soap:Header><h:Id "
                          "xmlns:h=\"urn:h\" h:must=\"1\">42</h:Id></soap:Header>\n <soap:Body >"
                          "<m:getQuote xmlns:m=\"https://quotes.example:8443/v1/q\" a='x>y/'><sym>ACME</sym>"
                          "</m:getQuote></soap:Body></soap:Envelope>\n";
    uint64_t plain = 0, head_plain = 0;
    for (size_t n = 1; n <= d.size(); ++n) {
        INFO("cut at " << n);
        plain += decode_both(d.substr(0, n), &head_plain);
    }
    const SoapCrossCheck t = soap_cross_check_totals();
    INFO(t.first_difference);
    CHECK(t.differing == 0);
    CHECK(t.documents == 2 * d.size());
    CHECK(plain == 2);  // whole reads: the document, and it less its last line end; a cut one is declined
    // Head reads: every cut at or past the operation's start tag is taken, and stops there.
    const size_t head_end = d.find("/q\" a='x>y/'>") + std::string("/q\" a='x>y/'>").size();
    CHECK(head_plain == d.size() - head_end + 1);
}

TEST_CASE("plain scan: a head read before answers a document with the same head, and nothing else") {
    using soap_detail::plain_head_memo_hits;
    CrossCheckOn on;
    const std::string head = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"" + kEnv11 +
                             "\"><s:Header><h:Id xmlns:h=\"urn:h\">7</h:Id></s:Header><s:Body><m:Get xmlns:m=\"urn:m\">";
    const std::vector<std::string> tails = {
        "<a>1</a></m:Get></s:Body></s:Envelope>",
        "<a>2</a><b/></m:Get></s:Body></s:Envelope>\n",
        "<a>&amp;<!-- past the head --></a></m:Get></s:Body></s:Envelope>",
        "<a>unclosed</m:Get></s:Body></s:Envelope>",  // malformed past the head
        "",
    };
    // What a thread that read nothing before yields for each.
    std::vector<SoapInfo> fresh(tails.size());
    std::thread([&] {
        for (size_t i = 0; i < tails.size(); ++i) fresh[i] = decode_soap(head + tails[i], {}, SoapRead::Head);
    }).join();
    // The memo is per thread: a fresh one, so what it holds is this test's.
    std::vector<SoapInfo> got;
    uint64_t repeat_hits = 0, not_hits = 0, after_run_hits = 0;
    std::vector<std::string> ops;
    SoapInfo other, too_deep;
    uint32_t whole_elements = 0;
    std::thread([&] {
        for (int round = 0; round < 2; ++round)
            for (const std::string& tail : tails) got.push_back(decode_soap(head + tail, {}, SoapRead::Head));
        repeat_hits = plain_head_memo_hits();
        // Not from the memo: the head cut short, one byte changed in it,
        // another depth limit, a whole read.
        decode_soap(head.substr(0, head.size() - 1), {}, SoapRead::Head);
        std::string changed = head;
        changed[changed.find("Get")] = 'S';
        other = decode_soap(changed + tails[0], {}, SoapRead::Head);
        SoapLimits shallow;
        shallow.max_depth = 2;  // Envelope, Body: the operation is one too deep
        too_deep = decode_soap(head + tails[0], shallow, SoapRead::Head);
        whole_elements = decode_soap(head + tails[0]).element_count;
        not_hits = plain_head_memo_hits() - repeat_hits;
        // A long run of heads that never repeat (more than it keeps), then one
        // that does: answered right all along, and from the memo again.
        for (int i = 0; i < 200; ++i) {
            const std::string op = "Op" + std::to_string(i);
            ops.push_back(decode_soap(envelope("<m:" + op + " xmlns:m=\"urn:m\"/>"), {}, SoapRead::Head).operation);
        }
        const uint64_t before_repeats = plain_head_memo_hits();
        for (int i = 0; i < 120; ++i) ops.push_back(decode_soap(head + tails[i % tails.size()], {}, SoapRead::Head).operation);
        after_run_hits = plain_head_memo_hits() - before_repeats;
    }).join();
    REQUIRE(got.size() == 2 * tails.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("document " << i);
        const size_t k = i % tails.size();
        CHECK(same_soap_info(got[i], fresh[k]));
        CHECK(got[i].operation == "Get");
        CHECK(got[i].head_only);
        CHECK(got[i].bytes == head.size() + tails[k].size());
    }
    CHECK(repeat_hits == 2 * tails.size() - 1);  // all but the first from the memo
    CHECK(not_hits == 0);
    CHECK(other.operation == "Set");
    CHECK(too_deep.error_code == SoapError::TooDeep);
    CHECK(whole_elements == 6);  // whole: Envelope, Header, Id, Body, Get, a
    REQUIRE(ops.size() == 320);
    for (size_t i = 0; i < 200; ++i) CHECK(ops[i] == "Op" + std::to_string(i));
    for (size_t i = 200; i < ops.size(); ++i) CHECK(ops[i] == "Get");
    CHECK(after_run_hits >= 120 - 64 - 16);  // kept within 64 calls, looked up within 16 more
    const SoapCrossCheck t = soap_cross_check_totals();
    INFO(t.first_difference);
    CHECK(t.differing == 0);
}
