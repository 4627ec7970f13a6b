#pragma once
// What the TLS record layer and handshake parser report when bytes are not
// what TLS allows: a code to act on (never match text). Each names a fault;
// the caller decides what it costs (a desynchronised direction, a handshake
// field unknown).
#include <cstdint>

namespace stallscope {

enum class TlsError : uint8_t {
    // Record layer: the direction is out of step until resynchronised.
    BadContentType,     // a record type outside 20..24
    BadVersion,         // a record version whose major byte is not 3
    RecordTooLong,      // a record length past 2^14 + 2048 (RFC 5246 6.2.3, the largest any version allows)
    Gap,                // bytes never captured: the records after it cannot be framed until resynchronised
    Truncated,          // the stream ended inside a record
    Resynchronised,     // framing found again after a gap or a desync (at the offset given)
    // Handshake layer.
    HandshakeTooLong,   // a handshake message past TlsLimits::max_handshake_bytes
    MalformedHandshake, // a handshake message whose own lengths do not add up
    UnexpectedMessage,  // a message out of place (a ClientHello from the server)
    Alert,              // an alert record in clear text (not a parsing fault; the caller may warn)
};

const char* tls_error_name(TlsError code);  // "bad_content_type", ...

} // namespace stallscope
