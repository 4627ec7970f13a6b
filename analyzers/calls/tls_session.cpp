#include "analyzers/calls/tls_session.h"

#include <string>

namespace stallscope {

namespace {
const char* side(int dir) { return dir == 0 ? "client" : "server"; }
}

TlsSession::TlsSession(SegmentStore& segments, ExchangeHost& host)
    : segs_(segments), host_(host), parser_(*this) {}

TlsSession::~TlsSession() = default;

void TlsSession::on_data(int dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg) {
    last_seg_[dir] = seg;
    parser_.feed(dir, offset, data, seg);
}

void TlsSession::on_gap(int dir, uint64_t offset, uint64_t len) { parser_.gap(dir, offset, len, last_seg_[dir]); }

void TlsSession::on_end_of_stream(int dir) {
    parser_.end(dir, last_seg_[dir]);
    if (observer_) observer_->on_tls_end_of_stream(dir);
}

uint64_t TlsSession::frame_of(uint64_t seg) {
    const SegmentInfo* s = segs_.at(seg);
    return s ? s->frame : 0;
}

void TlsSession::on_tls_record(int dir, const TlsRecord& r, bool encrypted, uint32_t handshake_types) {
    if (!observer_) return;
    TlsRecordEvent e;
    e.type = r.type;
    e.length = r.length;
    e.first_offset = r.first_offset;
    e.last_offset = r.last_offset;
    e.first_seg = r.first_tag;
    e.last_seg = r.last_tag;
    e.encrypted = encrypted;
    e.handshake_types = handshake_types;
    observer_->on_tls_record(dir, e);
}

// Framing faults are the sender's or the capture's: one warning per
// direction when framing is lost (a gap is warned by whoever reports gaps),
// and one when it is found again.
void TlsSession::on_tls_error(int dir, TlsError code, uint64_t offset, uint64_t tag) {
    switch (code) {
    case TlsError::BadContentType:
    case TlsError::BadVersion:
    case TlsError::RecordTooLong:
        ++framing_errors_;
        if (desync_warned_[dir]) return;
        desync_warned_[dir] = true;
        host_.warn(std::string("TLS: ") + side(dir) + " record framing lost at frame " + std::to_string(frame_of(tag)) +
                       " (" + tls_error_name(code) + ", stream offset " + std::to_string(offset) +
                       "): bytes are skipped until records are found again",
                   frame_of(tag));
        return;
    case TlsError::Resynchronised:
        if (!desync_warned_[dir]) return;  // after a plain gap: nothing was lost beyond the gap
        host_.warn(std::string("TLS: ") + side(dir) + " records found again at frame " + std::to_string(frame_of(tag)) +
                       " (stream offset " + std::to_string(offset) + ")",
                   frame_of(tag));
        desync_warned_[dir] = false;
        return;
    case TlsError::HandshakeTooLong:
    case TlsError::MalformedHandshake:
    case TlsError::UnexpectedMessage:
        if (handshake_warned_[dir]) return;
        handshake_warned_[dir] = true;
        host_.warn(std::string("TLS: ") + side(dir) + " handshake message at frame " + std::to_string(frame_of(tag)) +
                       " not understood (" + tls_error_name(code) + ")",
                   frame_of(tag));
        return;
    case TlsError::Gap:
    case TlsError::Truncated:
    case TlsError::Alert:
        return;  // the TCP layer warns about gaps; the keyless model reads alerts and ends
    }
}

} // namespace stallscope
