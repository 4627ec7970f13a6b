#pragma once
// What a warning is about, as the JSON's `code` (snake_case) and for code
// that must tell warnings apart: never by their text (docs/json-format.md).
#include <cstdint>

namespace stallscope {

enum class WarningCode : uint8_t {
    Other,
    CaptureDamaged,          // the file is damaged: analysed up to the damage
    FrameUndecodable,        // a frame could not be decoded (link, IP, tunnel)
    UnsupportedLinkType,
    FragmentDropped,         // IP fragment reassembly gave up or found overlap
    UntimedFramesCap,
    MissingTimestamp,
    BackwardsTimestamp,
    OpenConnectionCap,
    UnackedSegmentCap,
    OutOfOrderCap,
    SegmentHistoryCap,
    BytesUnplaced,
    BeganBeforeCapture,      // a connection without a handshake: what was missed           // stream bytes whose segment is gone: dropped as a gap
    HttpStreamError,         // the HTTP parser's complaint about a stream
    NotHttp,                 // a stream's first line is not HTTP/1.x
    ResponseBeforeRequest,
    ResponseWithoutRequest,
    ResponseNotCaptured,
    PendingRequestCap,
    BodyNotCaptured,
    DecompressedSizeCap,
    SoapBodyCap,
    SpillUnavailable,        // no temp file: results kept in memory
    WarningsSuppressed,      // past the warnings cap
    LiveRun,                 // a live capture's run (child exit, capture file)
    LiveWriteFailed,
};

const char* warning_code_name(WarningCode c);
// Whether a warning of this code names its own frame in its text ("frame 12:
// ..."), so a report does not add "[frame 12]" again.
bool warning_text_names_frame(WarningCode c);

}  // namespace stallscope
