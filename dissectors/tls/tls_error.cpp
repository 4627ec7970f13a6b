#include "dissectors/tls/tls_error.h"

namespace stallscope {

const char* tls_error_name(TlsError code) {
    switch (code) {
    case TlsError::BadContentType: return "bad_content_type";
    case TlsError::BadVersion: return "bad_version";
    case TlsError::RecordTooLong: return "record_too_long";
    case TlsError::Gap: return "gap";
    case TlsError::Truncated: return "truncated";
    case TlsError::Resynchronised: return "resynchronised";
    case TlsError::HandshakeTooLong: return "handshake_too_long";
    case TlsError::MalformedHandshake: return "malformed_handshake";
    case TlsError::UnexpectedMessage: return "unexpected_message";
    case TlsError::Alert: return "alert";
    }
    return "unknown";
}

} // namespace stallscope
