#include "dissectors/soap/soap_decoder.h"

#include "dissectors/soap/envelope_walker.h"
#include "dissectors/soap/soap_plain_pass.h"
#include "dissectors/soap/soap_sax_pass.h"

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <atomic>
#include <mutex>

namespace stallscope {

namespace {

using soap_detail::EnvelopeWalker;

constexpr const char* kDoctypeError = "DOCTYPE not allowed in SOAP";

void silent_generic(void*, const char*, ...) {}
void silent_structured(void*, xmlErrorPtr) {}

// libxml2 keeps its error callbacks per thread, so every thread that decodes
// must silence its own copy; the ThrDef defaults cover threads created later.
void init_libxml_for_this_thread() {
    static std::once_flag once;
    std::call_once(once, [] {
        xmlInitParser();
        xmlThrDefSetGenericErrorFunc(nullptr, silent_generic);
        xmlThrDefSetStructuredErrorFunc(nullptr, silent_structured);
    });
    thread_local bool silenced = false;
    if (!silenced) {
        xmlSetGenericErrorFunc(nullptr, silent_generic);
        xmlSetStructuredErrorFunc(nullptr, silent_structured);
        silenced = true;
    }
}

// ---- Prolog scan: reject a DOCTYPE before libxml2 ever parses its internal subset.

// Reads the document as ASCII code units whatever its (supported) encoding:
// 1 byte per unit, 2 for UTF-16, 4 for UTF-32. Non-ASCII units read as 0xFFFF.
struct UnitReader {
    std::string_view bytes;
    size_t start = 0;
    int width = 1;
    bool big_endian = false;

    size_t size() const { return (bytes.size() - start) / size_t(width); }
    unsigned at(size_t i) const {
        if (width == 1) {  // UTF-8 and the one-byte encodings: most documents
            const unsigned c = uint8_t(bytes[start + i]);
            return c < 0x80 ? c : 0xFFFF;
        }
        size_t b = start + i * size_t(width);
        uint32_t u = 0;
        for (int k = 0; k < width; ++k) {
            uint32_t byte = uint8_t(bytes[b + size_t(big_endian ? k : width - 1 - k)]);
            u = (u << 8) | byte;
        }
        return u < 0x80 ? unsigned(u) : 0xFFFF;
    }
    bool starts_with(size_t i, std::string_view s) const {
        if (i + s.size() > size()) return false;
        for (size_t j = 0; j < s.size(); ++j)
            if (at(i + j) != unsigned(uint8_t(s[j]))) return false;
        return true;
    }
    // First `s` at or after unit i that ends by unit `limit` (default: the end).
    size_t find(size_t i, std::string_view s, size_t limit = SIZE_MAX) const {
        size_t n = std::min(limit, size());
        if (width == 1) {  // `s` is ASCII: a byte >= 0x80 (read as 0xFFFF) never matches it either way
            if (i >= n) return SIZE_MAX;
            size_t k = bytes.substr(start, n).find(s, i);
            return k == std::string_view::npos ? SIZE_MAX : k;
        }
        for (; i + s.size() <= n; ++i)
            if (starts_with(i, s)) return i;
        return SIZE_MAX;
    }
};

bool has_utf8_bom(std::string_view doc) { return doc.size() >= 3 && doc.substr(0, 3) == "\xEF\xBB\xBF"; }

bool is_xml_space(unsigned c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string upper_ascii(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    return s;
}

// Encodings whose bytes (or UTF-16/32 units) spell "<!DOCTYPE" as ASCII, so the scan is sound.
bool encoding_allowed(const std::string& declared) {
    static const char* const kAllowed[] = {"UTF-8",      "UTF8",        "US-ASCII",     "ASCII",   "ISO-8859-1",
                                           "ISO-LATIN-1", "LATIN1",     "ISO-8859-15",  "WINDOWS-1252",
                                           "CP1252",     "UTF-16",      "UTF-16LE",     "UTF-16BE",
                                           "UTF-32",     "UTF-32LE",    "UTF-32BE",     "UCS-4",   "ISO-10646-UCS-4"};
    std::string u = upper_ascii(declared);
    return std::any_of(std::begin(kAllowed), std::end(kAllowed), [&](const char* a) { return u == a; });
}

// Extracts encoding="..." from an XML declaration's units [b, e).
std::string declared_encoding(const UnitReader& r, size_t b, size_t e) {
    size_t k = r.find(b, "encoding", e);  // inside the declaration only, not the whole document
    if (k == SIZE_MAX || k >= e) return {};
    k += 8;
    while (k < e && is_xml_space(r.at(k))) ++k;
    if (k >= e || r.at(k) != '=') return {};
    ++k;
    while (k < e && is_xml_space(r.at(k))) ++k;
    if (k >= e || (r.at(k) != '"' && r.at(k) != '\'')) return {};
    unsigned quote = r.at(k++);
    std::string name;
    for (; k < e && r.at(k) != quote && name.size() < 64; ++k) name += r.at(k) == 0xFFFF ? '?' : char(r.at(k));
    return name;
}

// Why a prolog is refused: code None when it is acceptable (or so broken
// that libxml2 will reject it before any content).
struct Refusal {
    SoapError code = SoapError::None;
    std::string why;
};

// `declared`: the XML declaration's encoding, if it names one.
Refusal check_prolog(std::string_view xml, std::string& declared) {
    auto b = [&](size_t i) { return i < xml.size() ? unsigned(uint8_t(xml[i])) : 0x100u; };
    UnitReader r{xml};
    if (b(0) == 0x4C && b(1) == 0x6F && b(2) == 0xA7 && b(3) == 0x94) return {SoapError::UnsupportedEncoding, "unsupported document encoding (EBCDIC)"};
    // UTF-32 (with a BOM, or starting with '<'), then UTF-16, then UTF-8 with a BOM (XML 1.0 F.1).
    if (b(0) == 0x00 && b(1) == 0x00 && b(2) == 0xFE && b(3) == 0xFF) {
        r = {xml, 4, 4, true};
    } else if (b(0) == 0xFF && b(1) == 0xFE && b(2) == 0x00 && b(3) == 0x00) {
        r = {xml, 4, 4, false};
    } else if (b(0) == 0x00 && b(1) == 0x00 && b(2) == 0x00 && b(3) == 0x3C) {
        r = {xml, 0, 4, true};
    } else if (b(0) == 0x3C && b(1) == 0x00 && b(2) == 0x00 && b(3) == 0x00) {
        r = {xml, 0, 4, false};
    } else if (b(0) == 0x00 && b(1) == 0x00) {
        return {SoapError::UnsupportedEncoding, "unsupported document encoding (UCS-4 in an unusual byte order)"};
    } else if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF) {
        r.start = 3;
    } else if (b(0) == 0xFE && b(1) == 0xFF) {
        r = {xml, 2, 2, true};
    } else if (b(0) == 0xFF && b(1) == 0xFE) {
        r = {xml, 2, 2, false};
    } else if (b(0) == 0x00 && b(1) == 0x3C) {
        r = {xml, 0, 2, true};
    } else if (b(0) == 0x3C && b(1) == 0x00) {
        r = {xml, 0, 2, false};
    }
    size_t i = 0;
    const size_t n = r.size();
    for (;;) {
        while (i < n && is_xml_space(r.at(i))) ++i;
        if (i >= n) return {};
        if (r.starts_with(i, "<?")) {
            size_t end = r.find(i + 2, "?>");
            if (end == SIZE_MAX) return {};
            if (r.starts_with(i, "<?xml") && i + 5 < n && is_xml_space(r.at(i + 5))) {
                std::string enc = declared_encoding(r, i + 5, end);
                if (!enc.empty() && !encoding_allowed(enc))
                    return {SoapError::UnsupportedEncoding, "unsupported document encoding " + enc};
                declared = enc;
            }
            i = end + 2;
        } else if (r.starts_with(i, "<!--")) {
            size_t end = r.find(i + 4, "-->");
            if (end == SIZE_MAX) return {};
            i = end + 3;
        } else if (r.starts_with(i, "<!DOCTYPE")) {
            return {SoapError::Doctype, kDoctypeError};
        } else {
            return {};  // the root element (or garbage libxml2 will reject)
        }
    }
}

// ---- UTF-32: libxml2 reads it only in some byte orders, so it gets UTF-8.

// UTF-32 (BOM or '<' first, XML 1.0 F.1): 4 and big-endian or not; else 0.
int utf32_order(std::string_view x) {
    auto b = [&](size_t i) { return i < x.size() ? unsigned(uint8_t(x[i])) : 0x100u; };
    if ((b(0) == 0x00 && b(1) == 0x00 && b(2) == 0xFE && b(3) == 0xFF) ||
        (b(0) == 0x00 && b(1) == 0x00 && b(2) == 0x00 && b(3) == 0x3C))
        return +1;
    if ((b(0) == 0xFF && b(1) == 0xFE && b(2) == 0x00 && b(3) == 0x00) ||
        (b(0) == 0x3C && b(1) == 0x00 && b(2) == 0x00 && b(3) == 0x00))
        return -1;
    return 0;
}

// UTF-32 to UTF-8 (BOM dropped). Empty `why` on success.
std::string utf32_to_utf8(std::string_view x, bool big_endian, std::string& why) {
    std::string out;
    out.reserve(x.size());
    if (x.size() % 4 != 0) { why = "UTF-32 document whose length is not a multiple of 4"; return {}; }
    for (size_t i = 0; i < x.size(); i += 4) {
        uint32_t u = 0;
        for (int k = 0; k < 4; ++k) u = (u << 8) | uint8_t(x[i + size_t(big_endian ? k : 3 - k)]);
        if (i == 0 && u == 0xFEFF) continue;
        if (u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)) { why = "invalid UTF-32 code point"; return {}; }
        if (u < 0x80) {
            out += char(u);
        } else if (u < 0x800) {
            out += char(0xC0 | (u >> 6));
            out += char(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            out += char(0xE0 | (u >> 12));
            out += char(0x80 | ((u >> 6) & 0x3F));
            out += char(0x80 | (u & 0x3F));
        } else {
            out += char(0xF0 | (u >> 18));
            out += char(0x80 | ((u >> 12) & 0x3F));
            out += char(0x80 | ((u >> 6) & 0x3F));
            out += char(0x80 | (u & 0x3F));
        }
    }
    return out;
}

// ---- Pull-parse the envelope.

struct ErrorSink {
    std::string first_fatal;
};

void capture_error(void* arg, xmlErrorPtr err) {
    auto* sink = static_cast<ErrorSink*>(arg);
    if (!err || err->level < XML_ERR_FATAL || !sink->first_fatal.empty()) return;
    std::string msg = err->message ? err->message : "malformed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    sink->first_fatal = "malformed XML (line " + std::to_string(err->line) + "): " + msg;
}

std::string_view sv(const xmlChar* s) { return s ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view(); }

void trim(std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) { s.clear(); return; }
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    s.erase(0, b);
}

// Hands the reader's current node to the walker. False: stop reading.
bool on_reader_node(EnvelopeWalker& walker, SoapInfo& info, xmlTextReaderPtr r) {
    const int type = xmlTextReaderNodeType(r);
    const int depth = xmlTextReaderDepth(r);
    switch (type) {
    case XML_READER_TYPE_DOCUMENT_TYPE:
        info.fail(SoapError::Doctype, kDoctypeError);
        return false;
    case XML_READER_TYPE_ENTITY_REFERENCE:
    case XML_READER_TYPE_ENTITY:
        info.fail(SoapError::EntityReference, "entity reference not allowed in SOAP");
        return false;
    case XML_READER_TYPE_ELEMENT:
        // Names are looked up only for elements the walker counts.
        if (depth < 0) return true;
        return walker.element(depth, sv(xmlTextReaderConstLocalName(r)), sv(xmlTextReaderConstNamespaceUri(r)),
                              xmlTextReaderIsEmptyElement(r) == 1);
    case XML_READER_TYPE_END_ELEMENT:
        walker.end_element(depth);
        return true;
    case XML_READER_TYPE_TEXT:
    case XML_READER_TYPE_CDATA:
    case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
        walker.text(depth, sv(xmlTextReaderConstValue(r)));
        return true;
    default:
        return true;
    }
}

// A reader for one document, freed after it: the reader only sees what the
// SAX pass leaves (errors, DTDs, other encodings, deep nesting), and a reused
// one carries state from document to document in libxml2 2.9 (after a clean
// document it skips the final parse step, so an error in the first start tag
// loses its message; a reset keeps the namespace bindings of elements left
// open), and what a document yields must not depend on what the thread read
// before it (one analysis thread or several, docs/architecture.md).
// A document starting with ASCII is read through a reset, as before: a reader
// made for the document itself reads a little further into one it stops on
// (libxml2's depth limit: 147 elements fresh, 145 reset). One that does not
// (UTF-16, a byte-order mark) needs the fresh reader's encoding detection.
class DocumentReader {
public:
    DocumentReader(std::string_view doc, const char* encoding, int options) {
        unsigned c = doc.empty() ? 0 : uint8_t(doc[0]);
        // "<\0" is UTF-16LE without a byte-order mark: only a fresh reader detects it.
        bool ascii_start = encoding || (c != 0 && c < 0x80 && (doc.size() < 2 || doc[1] != 0));
        if (!ascii_start) {
            reader_ = xmlReaderForMemory(doc.data(), int(doc.size()), nullptr, encoding, options);
            return;
        }
        static constexpr char kEmpty[] = "<x/>";
        reader_ = xmlReaderForMemory(kEmpty, int(sizeof kEmpty - 1), nullptr, nullptr, options);
        if (reader_ && xmlReaderNewMemory(reader_, doc.data(), int(doc.size()), nullptr, encoding, options) != 0) {
            xmlFreeTextReader(reader_);
            reader_ = xmlReaderForMemory(doc.data(), int(doc.size()), nullptr, encoding, options);
        }
    }
    ~DocumentReader() {
        if (reader_) xmlFreeTextReader(reader_);
    }
    DocumentReader(const DocumentReader&) = delete;
    DocumentReader& operator=(const DocumentReader&) = delete;
    xmlTextReaderPtr get() const { return reader_; }

private:
    xmlTextReaderPtr reader_ = nullptr;
};

} // namespace

bool starts_like_xml(std::string_view body) {
    // Nearly every body: '<' then a byte other than 0, which no byte-order
    // test below takes (they all want a 0, FE, FF or EF first or a 0 second),
    // so the scan would find that '<' at once.
    if (!body.empty() && body[0] == '<' && (body.size() == 1 || body[1] != 0)) return true;
    auto b = [&](size_t i) { return i < body.size() ? unsigned(uint8_t(body[i])) : 0x100u; };
    UnitReader r{body};
    if (int order = utf32_order(body)) r = {body, b(0) == 0x3C || b(3) == 0x3C ? 0u : 4u, 4, order > 0};
    else if (b(0) == 0xFE && b(1) == 0xFF) r = {body, 2, 2, true};
    else if (b(0) == 0xFF && b(1) == 0xFE) r = {body, 2, 2, false};
    else if (b(0) == 0x00 && b(1) == 0x3C) r = {body, 0, 2, true};
    else if (b(0) == 0x3C && b(1) == 0x00) r = {body, 0, 2, false};
    else if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF) r.start = 3;
    size_t i = 0;
    while (i < r.size() && i < 4096 && is_xml_space(r.at(i))) ++i;
    return i < r.size() && r.at(i) == '<';
}

std::string not_xml_reason(std::string_view body) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string first;
    for (size_t i = 0; i < body.size() && i < 4; ++i) {
        if (i) first += ' ';
        first += kHex[uint8_t(body[i]) >> 4];
        first += kHex[uint8_t(body[i]) & 15];
    }
    return body.empty() ? "empty body" : "body is not XML (starts with " + first + ")";
}

namespace {

// UTF-8 (or ASCII), with a byte-order mark or not, and no other encoding
// declared: the documents the SAX pass takes (the reader reads the rest).
bool sax_pass_takes(std::string_view doc, const std::string& declared_encoding) {
    if (!has_utf8_bom(doc)) {
        const unsigned c = uint8_t(doc[0]);
        if (c == 0 || c >= 0x80 || (doc.size() >= 2 && doc[1] == 0)) return false;
    }
    if (declared_encoding.empty()) return true;
    const std::string u = upper_ascii(declared_encoding);
    return u == "UTF-8" || u == "UTF8";
}

// Reads `doc` with the reader, node by node, into `info`.
void decode_with_reader(std::string_view doc, const char* forced_encoding, const SoapLimits& limits, SoapRead read,
                        SoapInfo& info) {
    const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
    DocumentReader dr(doc, forced_encoding, options);
    xmlTextReaderPtr reader = dr.get();
    if (!reader) {
        info.fail(SoapError::ReaderFailed, "cannot create XML reader");
        return;
    }
    ErrorSink sink;
    xmlTextReaderSetStructuredErrorHandler(reader, capture_error, &sink);

    EnvelopeWalker walker(info, limits, read);
    int rc = 0;
    while ((rc = xmlTextReaderRead(reader)) == 1) {
        if (!on_reader_node(walker, info, reader)) break;
        if (walker.done()) break;
    }
    // Stopped after the head: what the reader met past it (it parses ahead) is not this decode's business.
    if (walker.done()) sink.first_fatal.clear(), rc = 1;
    xmlTextReaderSetStructuredErrorHandler(reader, nullptr, nullptr);

    if (info.error_code == SoapError::Doctype || info.error_code == SoapError::EntityReference) {
        // Decode nothing from a document with a DTD.
        const SoapError code = info.error_code;
        std::string why = std::move(info.error);
        info.clear();
        info.fail(code, std::move(why));
        return;
    }
    if (info.error.empty() && (rc < 0 || !sink.first_fatal.empty())) {
        // libxml2 stops at 256 levels by itself (no XML_PARSE_HUGE).
        if (sink.first_fatal.find("depth") != std::string::npos)
            info.fail(SoapError::TooDeep, "too deeply nested (libxml2 depth limit)");
        else
            info.fail(SoapError::Malformed, sink.first_fatal.empty() ? "malformed XML" : sink.first_fatal);
    }
}

enum class Path { Any, ReaderOnly };
enum class Pass { Plain, Sax, Reader };  // which one decoded a document

// Over `info`, cleared first (its strings keep their memory).
void decode(std::string_view xml, const SoapLimits& limits, SoapRead read, Path path, SoapInfo& info,
            Pass* took = nullptr, uint64_t* markup_bytes = nullptr) {
    if (markup_bytes) *markup_bytes = kMarkupUnknown;
    info.clear();
    if (xml.empty()) {
        info.fail(SoapError::Empty, "empty document");
        return;
    }
    if (xml.size() > limits.max_bytes || xml.size() > size_t(INT_MAX)) {
        info.fail(SoapError::TooLarge, "document larger than " + std::to_string(limits.max_bytes) + " bytes");
        return;
    }
    auto finish = [&](Pass pass) {
        if (took) *took = pass;
        trim(info.fault_code);
        trim(info.fault_string);
        info.bytes = xml.size();
    };
    // '<' and a byte other than 0 (neither UTF-16 nor UTF-32, nor EBCDIC's
    // 4C 6F A7 94, whose third byte ends no name): the plain pass first.
    // What it takes has nothing but an XML declaration of version 1.0 and
    // UTF-8 (or none) before its root, so the prolog check and the encoding
    // test below would let it through: the order changes no answer, and
    // most documents skip their scans.
    const bool plain_first = path == Path::Any && xml.size() >= 2 && xml[0] == '<' && xml[1] != 0;
    if (plain_first) {
        if (soap_detail::plain_decode(xml, limits, info, read, markup_bytes)) {
            finish(Pass::Plain);
            return;
        }
        info.clear();
    }
    std::string declared;
    if (Refusal no = check_prolog(xml, declared); no.code != SoapError::None) {
        info.fail(no.code, std::move(no.why));
        return;
    }
    init_libxml_for_this_thread();

    // UTF-32 is handed over as UTF-8 (after the DOCTYPE check on the original).
    std::string transcoded;
    const char* forced_encoding = nullptr;
    std::string_view doc = xml;
    if (int order = utf32_order(xml)) {
        std::string why;
        transcoded = utf32_to_utf8(xml, order > 0, why);
        if (!why.empty()) {
            info.fail(SoapError::Malformed, why);
            return;
        }
        // libxml2 follows encoding="UTF-32" in the declaration even when told
        // UTF-8, so the declaration is made to say what the bytes now are.
        if (transcoded.rfind("<?xml", 0) == 0) {
            size_t end = transcoded.find("?>");
            size_t k = transcoded.find("encoding", 0);
            if (end != std::string::npos && k != std::string::npos && k < end) {
                size_t q1 = transcoded.find_first_of("\"'", k);
                size_t q2 = q1 < end ? transcoded.find(transcoded[q1], q1 + 1) : std::string::npos;
                if (q2 != std::string::npos && q2 < end) transcoded.replace(q1 + 1, q2 - q1 - 1, "UTF-8");
            }
        }
        doc = transcoded;
        forced_encoding = "UTF-8";
    }
    Pass pass = Pass::Reader;
    if (path == Path::Any && !forced_encoding && sax_pass_takes(doc, declared)) {
        if (!plain_first && !has_utf8_bom(doc) && soap_detail::plain_decode(doc, limits, info, read, markup_bytes)) {
            pass = Pass::Plain;
        } else {
            info.clear();
            if (soap_detail::sax_decode(doc, has_utf8_bom(doc), limits, info, read)) pass = Pass::Sax;
        }
    }
    if (pass == Pass::Reader) {
        info.clear();
        decode_with_reader(doc, forced_encoding, limits, read, info);
    }
    finish(pass);
}

std::atomic<bool> g_cross_check{false};
std::mutex g_cross_check_mutex;
SoapCrossCheck g_cross_check_totals;

std::string describe(const SoapInfo& i) {
    return "is_soap=" + std::to_string(i.is_soap) + " version=" + i.version + " operation=" + i.operation +
           " ns=" + i.operation_ns + " fault=" + std::to_string(i.fault) + " code=" + i.fault_code +
           " string=" + i.fault_string + " elements=" + std::to_string(i.element_count) +
           " depth=" + std::to_string(i.max_depth) + " bytes=" + std::to_string(i.bytes) + " head_only=" + std::to_string(i.head_only) + " error=" + i.error;
}

} // namespace

SoapInfo decode_soap(std::string_view xml, const SoapLimits& limits, SoapRead read) {
    SoapInfo info;
    decode_soap_into(xml, info, limits, read);
    return info;
}

void decode_soap_into(std::string_view xml, SoapInfo& info, const SoapLimits& limits, SoapRead read,
                      uint64_t* markup_bytes) {
    if (!g_cross_check.load(std::memory_order_relaxed))
        return decode(xml, limits, read, Path::Any, info, nullptr, markup_bytes);
    Pass pass = Pass::Reader;
    SoapInfo& a = info;
    decode(xml, limits, read, Path::Any, a, &pass, markup_bytes);
    SoapInfo b;
    decode(xml, limits, read, Path::ReaderOnly, b);
    bool same = same_soap_info(a, b);
    if (!same && a.head_only && a.error.empty() && !b.error.empty()) {
        // The reader parses ahead of the node it delivers, so it can fail on
        // an error past the head before delivering the head. Then the head
        // read is right iff the whole reads agree that the document is bad.
        SoapInfo aw, bw;
        decode(xml, limits, SoapRead::Whole, Path::Any, aw);
        decode(xml, limits, SoapRead::Whole, Path::ReaderOnly, bw);
        same = same_soap_info(aw, bw) && !bw.error.empty();
    }
    std::lock_guard<std::mutex> lock(g_cross_check_mutex);
    SoapCrossCheck& t = g_cross_check_totals;
    ++t.documents;
    if (pass != Pass::Reader) ++t.fast;
    if (pass == Pass::Plain) ++t.plain;
    if (!same) {
        if (t.differing++ == 0)
            t.first_difference = "fast: " + describe(a) + "\nreader: " + describe(b) + "\ndocument: " +
                                 std::string(xml.substr(0, 2048));
    }
}

bool same_soap_info(const SoapInfo& a, const SoapInfo& b) {
    return a.is_soap == b.is_soap && a.version == b.version && a.operation == b.operation &&
           a.operation_ns == b.operation_ns && a.fault == b.fault && a.fault_code == b.fault_code &&
           a.fault_string == b.fault_string && a.element_count == b.element_count && a.max_depth == b.max_depth &&
           a.bytes == b.bytes && a.error == b.error && a.head_only == b.head_only;
}

SoapInfo decode_soap_with_reader(std::string_view xml, const SoapLimits& limits, SoapRead read) {
    SoapInfo info;
    decode(xml, limits, read, Path::ReaderOnly, info);
    return info;
}

void set_soap_cross_check(bool on) {
    std::lock_guard<std::mutex> lock(g_cross_check_mutex);
    if (on) g_cross_check_totals = {};
    g_cross_check.store(on);
}

SoapCrossCheck soap_cross_check_totals() {
    std::lock_guard<std::mutex> lock(g_cross_check_mutex);
    return g_cross_check_totals;
}

} // namespace stallscope
