#pragma once
// Incremental HTTP/1.x parser for ONE direction of one TCP connection.
// It is fed the reassembled byte stream in order and reports where each
// message begins, where its head ends and where it ends, as stream offsets
// (bytes since the start of this direction's stream), so the caller can map
// them back to TCP segments. No allocation proportional to body size.
#include "dissectors/http/http_message.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stallscope {

class HttpStreamListener {
public:
    virtual ~HttpStreamListener() = default;
    // First byte of a message at stream offset `offset`.
    virtual void on_message_begin(uint64_t offset) = 0;
    // The head is complete; `end_offset` is just past the blank line.
    virtual void on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) = 0;
    // Decoded body bytes (chunk framing removed) starting at body position
    // `body_pos` (0-based within the decoded body). Content-Encoding is NOT
    // undone here.
    virtual void on_body(std::span<const uint8_t> data, uint64_t body_pos) = 0;
    // Message complete; `end_offset` is just past its last byte. For a
    // close-delimited body this comes from end_of_stream().
    virtual void on_message_complete(uint64_t end_offset) = 0;
    // Something the parser could not make sense of, at stream offset.
    // After a fatal error the parser ignores the rest of the stream
    // (fatal=true); non-fatal ones are warnings (e.g. conflicting lengths).
    virtual void on_error(const std::string& message, uint64_t offset, bool fatal) = 0;
};

struct HttpParserLimits {
    size_t max_header_bytes = 64 * 1024;   // per message head
    size_t max_headers = 200;
};

class HttpStreamParser {
public:
    enum class Role { Request, Response };
    HttpStreamParser(Role role, HttpStreamListener& listener, HttpParserLimits limits = {});
    ~HttpStreamParser();

    // Feed the next contiguous stream bytes.
    void feed(std::span<const uint8_t> data);
    // `len` bytes of the stream were never captured. The current message is
    // abandoned (error reported) unless the gap lies inside a body of known
    // length, where it is skipped and the message still completes.
    // Details: inside a Content-Length body, a chunk's data or a close-delimited
    // body the bytes are skipped silently (no on_body for them; body_pos jumps).
    // Anywhere else on_error(..., fatal=false) is reported, the message in
    // progress never completes, and the parser resynchronises: the next feed()
    // whose data starts like a message (looks_like_request/_response for this
    // role) begins a new message; feeds before it are skipped whole.
    void gap(uint64_t len);
    // The sender closed the stream (FIN/RST): completes a close-delimited body.
    void end_of_stream();

    // Response role only: the method of the request each response answers,
    // in order, so HEAD responses are known to have no body. The caller pushes
    // one per request seen; 1xx responses do not consume one.
    void push_request_method(const std::string& method);

    // Is the stream at a message boundary that looks like HTTP? Used to sniff
    // HTTP by content: true if `data` starts like a request line (METHOD SP)
    // or a status line ("HTTP/1.").
    static bool looks_like_request(std::span<const uint8_t> data);
    static bool looks_like_response(std::span<const uint8_t> data);

    uint64_t offset() const;  // stream bytes consumed so far (including gaps)

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace stallscope
