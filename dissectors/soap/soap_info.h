#pragma once
// What we learn from a SOAP envelope. Plain data; no libxml2 here.
#include <cstdint>
#include <string>
#include <utility>

namespace stallscope {

// Why an envelope was not decoded; code tells errors apart by this, never by
// the text beside it.
enum class SoapError : uint8_t {
    None,
    Empty,
    TooLarge,             // over SoapLimits::max_bytes
    UnsupportedEncoding,  // EBCDIC, odd UCS-4, an encoding not allowed
    Doctype,              // a DTD: nothing is decoded from such a document
    EntityReference,
    TooDeep,
    Malformed,
    ReaderFailed,
    ContentEncoding,      // gzip/deflate could not be undone
    NotXml,               // the body does not look like XML
    BodyCapped,           // over the analysis's SOAP body cap
};

struct SoapInfo {
    bool is_soap = false;        // a SOAP Envelope was found
    std::string version;         // "1.1" or "1.2"
    std::string operation;       // local name of the first child of Body
    std::string operation_ns;    // its namespace URI
    bool fault = false;
    std::string fault_code;      // 1.1 faultcode / 1.2 Code/Value
    std::string fault_string;    // 1.1 faultstring / 1.2 Reason/Text
    uint32_t element_count = 0;  // elements in the whole document (head_only: up to the head)
    uint32_t max_depth = 0;      // likewise
    // Read only up to the head (SoapRead::Head): version, operation and
    // fault are exact; element_count and max_depth count the elements up to
    // there, and a document malformed past there has no error.
    bool head_only = false;
    uint64_t bytes = 0;          // envelope bytes parsed
    std::string error;           // non-empty: not decoded, and why (DOCTYPE, malformed, too deep...)
    SoapError error_code = SoapError::None;  // set with `error`

    void fail(SoapError code, std::string why) {
        error_code = code;
        error = std::move(why);
    }
    // Back to a default SoapInfo's values in place: the strings keep their
    // memory, so a SoapInfo decoded into again and again stops allocating.
    void clear() {
        is_soap = fault = head_only = false;
        version.clear();
        operation.clear();
        operation_ns.clear();
        fault_code.clear();
        fault_string.clear();
        error.clear();
        element_count = max_depth = 0;
        bytes = 0;
        error_code = SoapError::None;
    }
};

} // namespace stallscope
