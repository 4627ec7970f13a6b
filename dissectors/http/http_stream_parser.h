#pragma once
// Incremental HTTP/1.x parser for ONE direction of one TCP connection.
// It is fed the reassembled byte stream in order and reports where each
// message begins, where its head ends and where it ends, as stream offsets
// (bytes since the start of this direction's stream), so the caller can map
// them back to TCP segments. No allocation proportional to body size.
#include "dissectors/http/http_error.h"
#include "dissectors/http/http_message.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stallscope {

// Every on_message_begin is followed by exactly one of on_message_complete
// or on_error with an effect other than Warning (Dropped or Rejected).
class HttpStreamListener {
public:
    virtual ~HttpStreamListener() = default;
    // First byte of a message at stream offset `offset`. At a message
    // boundary this comes with the first byte, before the start line is
    // judged (so its timing is right); an invalid start line then gets
    // on_error(effect Rejected): the bytes were not an HTTP/1.x message. While
    // resynchronising, it comes only once a whole valid start line was seen
    // (so `offset` can lie in bytes fed earlier), immediately followed by
    // on_start_line.
    virtual void on_message_begin(uint64_t offset) = 0;
    // The start line is a valid HTTP/1.x request or status line: method,
    // uri, version (or status, reason, version) of `head` are set. From here
    // the message is HTTP; errors drop it (effect Dropped), never reject it.
    virtual void on_start_line(const HttpMessageHead& head, uint64_t end_offset) {
        (void)head;
        (void)end_offset;
    }
    // The head is complete; `end_offset` is just past the blank line.
    virtual void on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) = 0;
    // Decoded body bytes (chunk framing removed) starting at body position
    // `body_pos` (0-based within the decoded body). Content-Encoding is NOT
    // undone here.
    virtual void on_body(std::span<const uint8_t> data, uint64_t body_pos) = 0;
    // Message complete; `end_offset` is just past its last byte. For a
    // close-delimited body this comes from end_of_stream().
    virtual void on_message_complete(uint64_t end_offset) = 0;
    // Something the parser could not make sense of, or a lenient form it
    // accepted. See HttpErrorEffect for what happened to the message; act on
    // `code`/`effect`, never on the text.
    virtual void on_error(const HttpParseError& error) = 0;
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
    // `len` bytes of the stream were never captured. Inside a Content-Length
    // body, a chunk's data or a close-delimited body the bytes are skipped
    // silently (no on_body for them; body_pos jumps) and the message still
    // completes. Anywhere else the message in progress ends (on_error Gap,
    // effect Dropped, or Rejected if its start line was not complete yet;
    // Skipped between messages) and the parser resynchronises (see abandon()).
    void gap(uint64_t len);
    // The sender closed the stream (FIN/RST): completes a close-delimited
    // body; inside any other message reports StreamEnded (Dropped/Rejected).
    void end_of_stream();
    // Drop the message in progress (on_error Abandoned, Dropped or Rejected;
    // nothing if between messages) and resynchronise: bytes are skipped up to
    // the next fed chunk or line that starts with a complete, valid HTTP/1.x
    // start line for this role. For the caller that knows from TCP that a
    // message was lost. Not from inside this parser's own callbacks.
    void abandon();
    // No more HTTP in this direction (the other one saw 101 Switching
    // Protocols or a CONNECT 2xx): every later byte is opaque, no callbacks,
    // no warnings. A message in progress is dropped (on_error TunnelEntered,
    // no warning wanted). The parser enters Tunnel by itself after a 101 or
    // CONNECT 2xx response it parsed. Not from inside its own callbacks.
    void enter_tunnel();
    bool in_tunnel() const;

    // Response role only: the method of the request each response answers,
    // in order, so HEAD responses are known to have no body. The caller pushes
    // one per request seen; 1xx responses do not consume one.
    void push_request_method(const std::string& method);
    // Response role: forget the oldest pushed method (its response was lost).
    void discard_request_method();

    // Guess on ONE chunk (connection orientation): true if `data` holds a
    // valid request line, or starts like one (a method with a letter, then
    // white space) and ends before the line does; or starts like a status
    // line ("HTTP/1.", any case). To decide whether a stream is HTTP use HttpSniffer, which
    // judges whole start lines across chunks.
    static bool looks_like_request(std::span<const uint8_t> data);
    static bool looks_like_response(std::span<const uint8_t> data);

    uint64_t offset() const;  // stream bytes consumed so far (including gaps)

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace stallscope
