#pragma once
// Decodes a SOAP 1.1/1.2 envelope with libxml2's pull reader: no network,
// no DTD loading, no entity expansion, any DOCTYPE rejected before content
// is looked at (SOAP forbids DTDs).
#include "dissectors/soap/soap_info.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope {

struct SoapLimits {
    size_t max_bytes = 4 * 1024 * 1024;  // larger documents are not parsed
    uint32_t max_depth = 256;
};

// How far to read. Head: the Envelope up to the first child of Body, or to
// the end of a Fault there (what a latency report needs: version, operation,
// fault), then stop, so the cost does not grow with the envelope. Whole: to
// the end (element_count, max_depth, well-formedness of the whole document).
enum class SoapRead : uint8_t { Whole, Head };

// Plain ASCII XML is read by our own scan (soap_plain_pass.h), other
// well-formed UTF-8 documents by a SAX pass that builds no tree
// (soap_sax_pass.h), the rest (errors, DTDs, other encodings, deep nesting)
// by the tree-building reader. All yield the reader's SoapInfo.
SoapInfo decode_soap(std::string_view xml, const SoapLimits& limits = {}, SoapRead read = SoapRead::Whole);
// The same answer as decode_soap, written over `info` (whatever it held):
// its strings keep their memory, so a SoapInfo reused message after message
// (a pooled call's) is decoded into without allocating or moving strings.
// `markup_bytes` (if given): the document's bytes from each '<' outside a
// tag to the next '>', both counted (analyzers' count_markup_bytes), when
// the plain pass read it to its end and so counted them on the way; else
// kMarkupUnknown (the caller counts them itself).
inline constexpr uint64_t kMarkupUnknown = UINT64_MAX;
void decode_soap_into(std::string_view xml, SoapInfo& info, const SoapLimits& limits = {},
                      SoapRead read = SoapRead::Whole, uint64_t* markup_bytes = nullptr);

// Test aids. decode_soap_with_reader: the reader alone, the reference the SAX
// and plain passes are held to. While the cross-check is on (process-wide), decode_soap
// decodes every document both ways and counts those whose SoapInfo differ
// (SoapRead::Head: a head read without an error also agrees with a reader
// that failed past the head, when both whole reads call the document bad).
SoapInfo decode_soap_with_reader(std::string_view xml, const SoapLimits& limits = {}, SoapRead read = SoapRead::Whole);
bool same_soap_info(const SoapInfo& a, const SoapInfo& b);  // every field equal
struct SoapCrossCheck {
    uint64_t documents = 0;  // decoded while on
    uint64_t fast = 0;       // of which not by the reader (plain or SAX pass)
    uint64_t plain = 0;      // of which by the plain pass
    uint64_t differing = 0;  // SAX pass and reader disagree (must stay 0)
    std::string first_difference;
};
void set_soap_cross_check(bool on);  // on: totals start from zero
SoapCrossCheck soap_cross_check_totals();

// Does `body` start like an XML document (after white space) in an encoding
// decode_soap reads: UTF-8 (with or without BOM), UTF-16 or UTF-32 (BOM, or
// '<' as the first unit, XML 1.0 appendix F)? Cheap; looks at a few bytes.
bool starts_like_xml(std::string_view body);
// Why `body` is not decoded when starts_like_xml() says no, e.g.
// "body is not XML (starts with 7b 22 61 22)".
std::string not_xml_reason(std::string_view body);

} // namespace stallscope
