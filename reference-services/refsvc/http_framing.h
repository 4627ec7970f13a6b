// HTTP/1.x message framing: building request/response heads, chunked encoding,
// and reading one message (head, then Content-Length / chunked / until-close body).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference-services/refsvc/socket_io.h"

namespace stallscope::refsvc {

struct HttpHead {
    bool is_response = false;
    std::string method, target, version;  // version: "HTTP/1.0" or "HTTP/1.1"
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    const std::string* header(std::string_view name) const;  // case-insensitive; nullptr if absent
    bool header_has_token(std::string_view name, std::string_view token) const;
};

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kMaxBodyBytes = 32 * 1024 * 1024;
constexpr size_t kChunkBytes = 4096;  // chunk size the server uses for chunked responses

std::string build_request_head(const std::string& path, const std::string& host_port, bool http11,
                               size_t content_length, bool expect_100, const std::string& soap_action);
std::string build_response_head(int status, bool http11, bool keep_alive, bool chunked, size_t content_length);
std::string continue_head();  // "HTTP/1.1 100 Continue\r\n\r\n"
std::string chunk_encode(std::string_view body);

// "" on success. Parses the text before the blank line (without it).
std::string parse_head(std::string_view text, bool response, HttpHead& out);

// Reads through conn's buffer; consumed bytes are removed from the buffer.
// read_head waits for a complete head; read_body reads the body the head announces
// (for responses without length: until EOF).
std::string read_head(Conn& conn, bool response, int64_t deadline_ns, HttpHead& out);
std::string read_body(Conn& conn, const HttpHead& head, int64_t deadline_ns, std::string& body);

}  // namespace stallscope::refsvc
