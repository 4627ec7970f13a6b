#pragma once
// The head of an HTTP/1.x request or response, as parsed from the wire.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// A header field: views into its head's field_bytes (or into storage whoever
// built the head by hand keeps alive).
struct HttpHeader {
    std::string_view name;   // as sent
    std::string_view value;  // trimmed
};

// The header fields the parser and the call analysis read, recognised once
// per field line (by length, then case-insensitively).
enum class HttpField : uint8_t {
    Other,
    ContentLength,
    TransferEncoding,
    Connection,
    Expect,
    ContentType,
    SoapAction,
    UserAgent,
    Server,
    ContentEncoding,
    Upgrade,
    Count,
};
HttpField http_field_of(std::string_view name);

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

    // The bytes of the parsed fields' names and values, which `headers` view.
    // A copy or move of the head views its own copy.
    std::string field_bytes;
    // Index + 1 in `headers` of the first field of each kind (0: absent), set
    // by the parser; index_fields() sets it for a head built by hand.
    std::array<uint16_t, size_t(HttpField::Count)> first_field{};
    bool fields_indexed = false;

    HttpMessageHead() = default;
    HttpMessageHead(const HttpMessageHead& o);
    HttpMessageHead(HttpMessageHead&& o) noexcept;
    HttpMessageHead& operator=(const HttpMessageHead& o);
    HttpMessageHead& operator=(HttpMessageHead&& o) noexcept;

    // Case-insensitive lookup; nullptr if absent. First occurrence.
    const std::string_view* header(std::string_view name) const;
    // The first field of a known kind (not Other); nullptr if absent.
    const std::string_view* field(HttpField kind) const {
        if (!fields_indexed) return scan_field(kind);
        uint16_t i = first_field[size_t(kind)];
        return i ? &headers[i - 1].value : nullptr;
    }
    // Fills first_field from `headers`.
    void index_fields();

private:
    const std::string_view* scan_field(HttpField kind) const;
    void view_own_bytes(const char* old_begin, size_t old_size);
};

} // namespace stallscope
