#pragma once
// What the HTTP/1.x parser reports when bytes are not what it expected:
// a code to act on (never match the human text) and what happened to the
// message in progress.
#include <cstdint>
#include <string>

namespace stallscope {

enum class HttpError : uint8_t {
    // Lenient forms accepted (effect Warning), as Zeek and Wireshark accept them.
    ExtraWhitespace,       // several SP/HTAB between start-line words, or after the version
    LowerCaseVersion,      // "http/1.1"
    BareLineFeed,          // a head line ended by LF alone
    LengthAndChunked,      // Transfer-Encoding and Content-Length: Transfer-Encoding wins
    // The start line is not HTTP/1.x (effect Rejected: not a message at all).
    NotHttp,               // not a request/status line (another protocol, HTTP/0.9, garbage)
    UnsupportedVersion,    // a version other than HTTP/1.x (HTTP/2.0, HTTP/0.9 spelled out)
    MalformedStartLine,    // HTTP/1.x-like but broken (control byte in the target, bad status code)
    StartLineTooLong,      // no line end within the header-section cap
    // The head or the framing is broken (effect Dropped: the message ends incomplete).
    MalformedHeader,       // header line without a colon, bad field name, obs-fold first
    HeaderTooLarge,        // header (or trailer) section over HttpParserLimits::max_header_bytes
    TooManyHeaders,        // more than HttpParserLimits::max_headers fields (or trailer fields)
    InvalidContentLength,
    ConflictingContentLength,
    BadTransferEncoding,   // request Transfer-Encoding that does not end in chunked
    BadChunk,              // chunk size or chunk CRLF broken, chunk-size line too long
    // Not the sender's fault.
    Gap,                   // bytes never captured outside a body of known length
    StreamEnded,           // FIN/RST inside a message
    Abandoned,             // the caller called HttpStreamParser::abandon()
    TunnelEntered,         // the caller called enter_tunnel() inside a message (no warning wanted)
};

// What the error did to the message in progress. After anything but
// Warning the parser resynchronises: it skips bytes up to the next line (or,
// after an error, the next fed chunk) that starts a complete, valid HTTP/1.x
// start line, and reports that message's on_message_begin only then.
enum class HttpErrorEffect : uint8_t {
    Warning,   // nothing: the message goes on
    Dropped,   // the message (its start line was accepted) ends here, incomplete
    Rejected,  // the bytes since on_message_begin are not an HTTP/1.x message: forget it (not a call)
    Skipped,   // no message was open; bytes are skipped up to the next start line
};

struct HttpParseError {
    HttpError code = HttpError::NotHttp;
    HttpErrorEffect effect = HttpErrorEffect::Warning;
    uint64_t offset = 0;   // stream offset the problem is at
    std::string message;   // for people: what was wrong
};

const char* http_error_name(HttpError code);  // "not_http", "bare_line_feed", ...

} // namespace stallscope
