#pragma once
// The cheapest way through a SOAP document: our own scan of plain XML (ASCII
// only; elements, attributes, namespaces, character data; no comment, PI,
// CDATA, reference or DOCTYPE; namespace URIs of the usual http(s): and urn:
// forms), feeding the EnvelopeWalker. Everything it takes is well-formed and
// namespace-well-formed for libxml2 without any message, so the reader would
// yield the same SoapInfo; anything else it declines, and the SAX pass or the
// reader decodes the document. Internal to dissectors/soap.
#include "dissectors/soap/soap_decoder.h"

#include <string_view>

namespace stallscope::soap_detail {

// False: declined, `info` is to be thrown away.
// SoapRead::Head: stops after the head; only what comes before is checked.
// SoapRead::Head: a document starting with the bytes of a head this thread
// read before up to where that scan stopped yields that SoapInfo unscanned.
// `markup_bytes` (if given): see decode_soap_into; kMarkupUnknown unless
// the document was read to its end and the figure is exact.
bool plain_decode(std::string_view doc, const SoapLimits& limits, SoapInfo& info, SoapRead read = SoapRead::Whole,
                  uint64_t* markup_bytes = nullptr);

// Test aid: head reads on this thread answered from the memo.
uint64_t plain_head_memo_hits();

} // namespace stallscope::soap_detail
