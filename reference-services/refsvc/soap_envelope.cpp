#include "reference-services/refsvc/soap_envelope.h"

#include <cstdio>
#include <cstdlib>

namespace stallscope::refsvc {
namespace {

constexpr const char* kOps[] = {"doNothing", "setSize", "getString", "getIntegers", "echoVoid",
                                "echoInts", "echoDoubles", "echoStrings", "echoBase64"};
constexpr const char* kNs = "urn:stallscope-refsvc";

const char* kEnvelopeOpen =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" "
    "xmlns:SOAP-ENC=\"http://schemas.xmlsoap.org/soap/encoding/\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
    "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
    "SOAP-ENV:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\">"
    "<SOAP-ENV:Body>";
const char* kEnvelopeClose = "</SOAP-ENV:Body></SOAP-ENV:Envelope>\n";

bool has_items(const std::string& op) {
    return op == "echoInts" || op == "echoDoubles" || op == "echoStrings";
}
bool takes_size(const std::string& op) { return op == "setSize" || op == "getString" || op == "getIntegers"; }

const char* item_type(const std::string& op) {
    if (op == "echoDoubles") return "xsd:double";
    if (op == "echoStrings") return "xsd:string";
    return "xsd:int";
}

std::string base64(long n) {
    static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string raw(static_cast<size_t>(n), '\0');
    unsigned x = 12345;  // deterministic pseudo-random bytes
    for (auto& c : raw) { x = x * 1103515245u + 12345u; c = static_cast<char>(x >> 16); }
    std::string out;
    out.reserve((raw.size() + 2) / 3 * 4);
    for (size_t i = 0; i < raw.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(raw[i]) << 16;
        if (i + 1 < raw.size()) v |= static_cast<unsigned char>(raw[i + 1]) << 8;
        if (i + 2 < raw.size()) v |= static_cast<unsigned char>(raw[i + 2]);
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += i + 1 < raw.size() ? tbl[(v >> 6) & 63] : '=';
        out += i + 2 < raw.size() ? tbl[v & 63] : '=';
    }
    return out;
}

std::string items(const std::string& op, long n) {
    std::string s;
    char buf[64];
    for (long i = 0; i < n; ++i) {
        if (op == "echoDoubles") std::snprintf(buf, sizeof buf, "<item>%.6g</item>", i * 1.25 + 0.5);
        else if (op == "echoStrings") std::snprintf(buf, sizeof buf, "<item>str%ld</item>", i);
        else std::snprintf(buf, sizeof buf, "<item>%ld</item>", i * 7 - 3);
        s += buf;
    }
    return s;
}

std::string array_attrs(const char* type, long n) {
    return " xsi:type=\"SOAP-ENC:Array\" SOAP-ENC:arrayType=\"" + std::string(type) + "[" + std::to_string(n) + "]\"";
}

std::string wrap(const std::string& element, const std::string& inner) {
    return std::string(kEnvelopeOpen) + "<ns1:" + element + " xmlns:ns1=\"" + kNs + "\">" + inner + "</ns1:" +
           element + ">" + kEnvelopeClose;
}

// Inner text of the first element whose name is `name` (attributes allowed, no nesting of the same name).
bool element_content(std::string_view xml, const std::string& name, std::string_view& out) {
    const std::string open = "<" + name;
    size_t pos = 0;
    while ((pos = xml.find(open, pos)) != std::string_view::npos) {
        size_t after = pos + open.size();
        if (after < xml.size() && (xml[after] == '>' || xml[after] == ' ' || xml[after] == '/')) break;
        pos = after;
    }
    if (pos == std::string_view::npos) return false;
    size_t gt = xml.find('>', pos);
    if (gt == std::string_view::npos) return false;
    if (xml[gt - 1] == '/') { out = {}; return true; }
    size_t close = xml.find("</" + name + ">", gt + 1);
    if (close == std::string_view::npos) return false;
    out = xml.substr(gt + 1, close - gt - 1);
    return true;
}

long count_items(std::string_view inner) {
    long n = 0;
    for (size_t p = 0; (p = inner.find("<item>", p)) != std::string_view::npos; p += 6) ++n;
    return n;
}

bool parse_size(std::string_view s, long& out) {
    std::string t(s);
    char* end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || v < 0 || v > 1000000) return false;
    out = v;
    return true;
}

}  // namespace

bool is_known_op(const std::string& op) {
    for (auto o : kOps)
        if (op == o) return true;
    return false;
}

std::string op_names() {
    std::string s;
    for (auto o : kOps) {
        if (!s.empty()) s += ", ";
        s += o;
    }
    return s;
}

std::string build_request(const std::string& op, long size) {
    std::string inner;
    if (takes_size(op)) inner = "<size xsi:type=\"xsd:int\">" + std::to_string(size) + "</size>";
    else if (has_items(op)) inner = "<input" + array_attrs(item_type(op), size) + ">" + items(op, size) + "</input>";
    else if (op == "echoBase64") inner = "<input xsi:type=\"xsd:base64Binary\">" + base64(size) + "</input>";
    return wrap(op, inner);
}

std::string parse_request(std::string_view body, SoapCall& out) {
    size_t b = body.find(":Body>");
    if (b == std::string_view::npos) b = body.find("<Body>");
    if (b == std::string_view::npos) return "no SOAP Body element";
    size_t lt = body.find('<', b + 1);
    if (lt == std::string_view::npos || lt + 1 >= body.size() || body[lt + 1] == '/') return "empty SOAP Body";
    size_t end = body.find_first_of(" />", lt + 1);
    if (end == std::string_view::npos) return "truncated operation element";
    std::string qname(body.substr(lt + 1, end - lt - 1));
    auto colon = qname.find(':');
    out.op = colon == std::string::npos ? qname : qname.substr(colon + 1);
    if (!is_known_op(out.op)) return "unknown operation '" + out.op + "'";
    out.size = 0;
    out.payload.clear();
    std::string_view inner;
    if (takes_size(out.op)) {
        if (!element_content(body, "size", inner) || !parse_size(inner, out.size)) return "missing or bad <size>";
    } else if (has_items(out.op) || out.op == "echoBase64") {
        if (!element_content(body, "input", inner)) return "missing <input>";
        out.payload.assign(inner);
        if (out.op == "echoBase64") {
            if (out.payload.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") !=
                std::string::npos)
                return "bad base64 in <input>";
            out.size = static_cast<long>(out.payload.size() / 4 * 3);
        } else {
            out.size = count_items(inner);
        }
    }
    return "";
}

std::string build_response(const SoapCall& c) {
    std::string ret;
    if (c.op == "getString") ret = "<return xsi:type=\"xsd:string\">" + std::string(c.size, 'x') + "</return>";
    else if (c.op == "getIntegers")
        ret = "<return" + array_attrs("xsd:int", c.size) + ">" + items("echoInts", c.size) + "</return>";
    else if (has_items(c.op)) ret = "<return" + array_attrs(item_type(c.op), c.size) + ">" + c.payload + "</return>";
    else if (c.op == "echoBase64") ret = "<return xsi:type=\"xsd:base64Binary\">" + c.payload + "</return>";
    return wrap(c.op + "Response", ret);
}

std::string build_fault(const std::string& reason) {
    return std::string(kEnvelopeOpen) + "<SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode><faultstring>" +
           reason + "</faultstring></SOAP-ENV:Fault>" + kEnvelopeClose;
}

std::string check_response(const std::string& op, long size, std::string_view request, std::string_view response) {
    std::string_view inner;
    if (!element_content(response, "ns1:" + op + "Response", inner)) return "response has no " + op + "Response";
    std::string_view ret, sent;
    bool has_ret = element_content(inner, "return", ret);
    if (op == "getString") {
        if (!has_ret || static_cast<long>(ret.size()) != size) return "getString returned the wrong length";
    } else if (op == "getIntegers") {
        if (!has_ret || count_items(ret) != size) return "getIntegers returned the wrong item count";
    } else if (has_items(op) || op == "echoBase64") {
        if (!has_ret || !element_content(request, "input", sent) || ret != sent) return op + " did not echo the input";
    }
    return "";
}

}  // namespace stallscope::refsvc
