#pragma once
// The head of an HTTP/1.x request or response, as parsed from the wire.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct HttpHeader {
    std::string name;   // as sent
    std::string value;  // trimmed
};

struct HttpMessageHead {
    bool is_request = true;
    std::string method;          // requests
    std::string uri;             // requests
    std::string version;         // "HTTP/1.1" / "HTTP/1.0"
    int status = 0;              // responses
    std::string reason;          // responses
    std::vector<HttpHeader> headers;
    uint64_t header_bytes = 0;   // start line + headers + blank line

    // Derived framing facts (filled by the parser).
    std::optional<uint64_t> content_length;
    bool chunked = false;
    bool connection_close = false;   // Connection: close, or HTTP/1.0 without keep-alive
    bool expect_continue = false;    // Expect: 100-continue

    // Case-insensitive lookup; nullptr if absent. First occurrence.
    const std::string* header(std::string_view name) const;
};

} // namespace stallscope
