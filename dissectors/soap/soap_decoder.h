#pragma once
// Decodes a SOAP 1.1/1.2 envelope with libxml2's pull reader: no network,
// no DTD loading, no entity expansion, any DOCTYPE rejected before content
// is looked at (SOAP forbids DTDs).
#include "dissectors/soap/soap_info.h"

#include <string_view>

namespace stallscope {

struct SoapLimits {
    size_t max_bytes = 4 * 1024 * 1024;  // larger documents are not parsed
    uint32_t max_depth = 256;
};

SoapInfo decode_soap(std::string_view xml, const SoapLimits& limits = {});

} // namespace stallscope
