#pragma once
// The fast way through a SOAP document: libxml2's SAX2 push parser feeding
// the EnvelopeWalker directly, building no tree. It yields the same SoapInfo
// as the tree-building reader for every document it accepts, and accepts
// only documents where that is known to hold; anything else (any error or
// warning, a DTD, an entity, xml:id, nesting past a bound) is left to the
// reader, which then decodes it as before. Internal to dissectors/soap.
#include "dissectors/soap/soap_decoder.h"

#include <string_view>

namespace stallscope::soap_detail {

// Decodes `doc` (UTF-8 or ASCII, no other declared encoding: the caller
// checks) into `info`. `bom`: it starts with a UTF-8 byte-order mark, which
// libxml2 then finds as a reader made for the document does. False: not
// decoded here, `info` is to be thrown away and the document read with the
// reader. SoapRead::Head: stops after the head (EnvelopeWalker::done).
bool sax_decode(std::string_view doc, bool bom, const SoapLimits& limits, SoapInfo& info,
                SoapRead read = SoapRead::Whole);

} // namespace stallscope::soap_detail
