// libFuzzer: decode_soap on any bytes. It must never expand an entity: the
// decoded strings may only contain text that occurs in the input. And the
// SAX pass must answer as the libxml2 reader does (the cross-check decodes
// every input both ways).
#include "dissectors/soap/soap_decoder.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view xml(reinterpret_cast<const char*>(data), size);
    SoapLimits lim;
    lim.max_depth = 64;
    static const bool cross_checking = (set_soap_cross_check(true), true);
    (void)cross_checking;
    SoapInfo info = decode_soap(xml, lim);
    if (soap_cross_check_totals().differing != 0) {
        std::fprintf(stderr, "%s\n", soap_cross_check_totals().first_difference.c_str());
        std::abort();
    }
    if (info.max_depth > lim.max_depth + 1) std::abort();
    if ((info.error_code == SoapError::Doctype || info.error_code == SoapError::EntityReference) &&
        (info.is_soap || !info.operation.empty()))
        std::abort();  // a document with a DTD decodes nothing
    // An ASCII operation name is a local name copied from the input, never produced
    // by expansion (UTF-16 and other 8-bit encodings change the bytes: not checked).
    bool ascii_input = xml.find('\0') == std::string_view::npos;
    for (char c : xml) ascii_input = ascii_input && (static_cast<unsigned char>(c) < 0x80);
    if (ascii_input && !info.operation.empty() && xml.find(info.operation) == std::string_view::npos) std::abort();
    return 0;
}
