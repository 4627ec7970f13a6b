#include "dissectors/http/http_error.h"

namespace stallscope {

const char* http_error_name(HttpError code) {
    switch (code) {
    case HttpError::ExtraWhitespace: return "extra_whitespace";
    case HttpError::LowerCaseVersion: return "lower_case_version";
    case HttpError::BareLineFeed: return "bare_line_feed";
    case HttpError::LengthAndChunked: return "length_and_chunked";
    case HttpError::NotHttp: return "not_http";
    case HttpError::UnsupportedVersion: return "unsupported_version";
    case HttpError::MalformedStartLine: return "malformed_start_line";
    case HttpError::StartLineTooLong: return "start_line_too_long";
    case HttpError::MalformedHeader: return "malformed_header";
    case HttpError::HeaderTooLarge: return "header_too_large";
    case HttpError::TooManyHeaders: return "too_many_headers";
    case HttpError::InvalidContentLength: return "invalid_content_length";
    case HttpError::ConflictingContentLength: return "conflicting_content_length";
    case HttpError::BadTransferEncoding: return "bad_transfer_encoding";
    case HttpError::BadChunk: return "bad_chunk";
    case HttpError::Gap: return "gap";
    case HttpError::StreamEnded: return "stream_ended";
    case HttpError::Abandoned: return "abandoned";
    case HttpError::TunnelEntered: return "tunnel_entered";
    }
    return "unknown";
}

} // namespace stallscope
