// libFuzzer: decode_soap on any bytes. It must never expand an entity: the
// decoded strings may only contain text that occurs in the input.
#include "dissectors/soap/soap_decoder.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view xml(reinterpret_cast<const char*>(data), size);
    SoapLimits lim;
    lim.max_depth = 64;
    SoapInfo info = decode_soap(xml, lim);
    if (info.max_depth > lim.max_depth + 1) std::abort();
    if (!info.error.empty() && (info.error.rfind("DOCTYPE", 0) == 0 || info.error.rfind("entity", 0) == 0) &&
        (info.is_soap || !info.operation.empty()))
        std::abort();  // a document with a DTD decodes nothing
    // The operation name is a local name copied from the input, never produced by expansion.
    if (!info.operation.empty() && xml.find(info.operation) == std::string_view::npos) std::abort();
    return 0;
}
