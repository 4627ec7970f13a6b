#include "analyzers/calls/tls_session.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace stallscope {

namespace {
constexpr size_t kMaxPendingBytes = 256 * 1024;  // 0-RTT data held until the ServerHello names the suite
constexpr size_t kMaxBoundaries = 4096;          // records remembered per direction for ACK translation
}

TlsSession::TlsSession(SegmentStore& segments, ExchangeHost& host, ExchangeTracker& tracker,
                       std::shared_ptr<const TlsKeyStore> keys)
    : segs_(segments), host_(host), tracker_(tracker), keys_(std::move(keys)), parser_(*this) {}

TlsSession::~TlsSession() = default;

void TlsSession::on_data(Side dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg) {
    last_seg_[dir] = seg;
    parser_.feed(dir, offset, data, seg);
}

void TlsSession::on_gap(Side dir, uint64_t offset, uint64_t len) { parser_.gap(dir, offset, len, last_seg_[dir]); }

void TlsSession::on_end_of_stream(Side dir) {
    parser_.end(dir, last_seg_[dir]);
    if (dec_state_.decrypted) tracker_.on_end_of_stream(dir);
    if (observer_) observer_->on_tls_end_of_stream(dir);
    ended_[dir] = true;
    if (ended_[Side::Client] && ended_[Side::Server]) {
        // No record can come any more: the keys, cipher contexts and buffers
        // go now, not when the closed connection finally leaves the flow table
        // (on the 1M-packet HTTPS bench file about 14,000 closed ones linger
        // at once). The record boundaries stay, cut to what they hold: late
        // ACKs are still translated (plain_ack).
        dec_.reset();
        std::vector<uint8_t>().swap(plain_);
        pending_ = Fifo<Pending>();
        pending_bytes_ = 0;
        parser_.release();
        for (Side d : kSides) bounds_[d].shrink();
    }
}

uint64_t TlsSession::frame_of(uint64_t seg) {
    const SegmentInfo* s = segs_.at(seg);
    return s ? s->frame : 0;
}

void TlsSession::on_tls_record(Side dir, const TlsRecord& r, bool encrypted, uint32_t handshake_types) {
    TlsRecordEvent e;
    e.type = r.type;
    e.length = r.length;
    e.first_offset = r.first_offset;
    e.last_offset = r.last_offset;
    e.first_seg = r.first_tag;
    e.last_seg = r.last_tag;
    e.encrypted = encrypted;
    e.handshake_types = handshake_types;
    if (encrypted && keyed() && !stopped_) {
        if (!info().server_hello && info().client_hello && pending_bytes_ + r.body.size() <= kMaxPendingBytes) {
            // 0-RTT data comes before the ServerHello that names its cipher suite.
            Pending p{dir, r, std::vector<uint8_t>(r.body.begin(), r.body.end())};
            p.record.body = p.body;
            pending_bytes_ += p.body.size();
            pending_.push_back(std::move(p));
        } else {
            decrypt(dir, r, &e);
        }
    }
    if (observer_) observer_->on_tls_record(dir, e);
}

void TlsSession::on_tls_handshake(Side dir, const HandshakeMessage& m) {
    if (dec_) dec_->on_handshake_message(dir, m.type, m.body);
    if (m.type == tls::kEncryptedExtensions) check_alpn(m.last_tag);
    if (dir == Side::Server && m.type == tls::kServerHello && info().server_hello && !pending_.empty()) {
        // The suite is known: the held 0-RTT records go first, in order.
        Fifo<Pending> held;
        std::swap(held, pending_);
        pending_bytes_ = 0;
        for (Pending& p : held) {
            p.record.body = p.body;
            if (!stopped_) decrypt(p.dir, p.record, nullptr);
        }
    }
}

void TlsSession::set_up(uint64_t tag) {
    set_up_ = true;
    dec_state_.attempted = true;
    const TlsConnectionInfo& i = info();
    if (!i.client_hello || !i.server_hello) return fail(TlsDecryptFailure::HandshakeMissing, tag);
    std::optional<TlsSecrets> secrets = keys_->find(i.client_hello->random);
    const TlsCipherSuite* suite = find_cipher_suite(i.cipher_suite);
    if (!secrets)
        return fail(suite && suite->rsa_key_exchange ? TlsDecryptFailure::RsaNoKey : TlsDecryptFailure::NoKey, tag);
    TlsDecryptFailure why = TlsDecryptFailure::None;
    bool etm = i.client_hello->encrypt_then_mac && i.server_hello->encrypt_then_mac;
    dec_ = TlsDecryptor::create(i.version, i.cipher_suite, i.client_hello->random, i.server_hello->random, *secrets, etm,
                                why);
    if (!dec_) return fail(why, tag);
    have_early_ = !secrets->client_early.empty();
    check_alpn(tag);
}

// HTTP/2 is not analysed: say so, and give the tracker nothing.
void TlsSession::check_alpn(uint64_t tag) {
    if (info().alpn == "h2" && !stopped_) fail(TlsDecryptFailure::Http2, tag);
}

void TlsSession::decrypt(Side dir, const TlsRecord& r, TlsRecordEvent* event) {
    if (!set_up_) set_up(r.last_tag);
    if (!dec_ || stopped_) return;
    uint8_t inner = 0;
    TlsDecryptor::Result res = dec_->decrypt(dir, r, plain_, inner);
    if (res != TlsDecryptor::Result::Ok) {
        ++dec_state_.records_failed;
        // 0-RTT data without CLIENT_EARLY_TRAFFIC_SECRET: those records only.
        bool early = dir == Side::Client && dec_->tls13() && !have_early_ && !client_decrypted_ && info().client_hello &&
                     info().client_hello->early_data;
        if (early) {
            if (early_skipped_++ == 0)
                host_.warn(WarningCode::TlsUndecrypted, "TLS: 0-RTT (early) data at frame " + std::to_string(frame_of(r.last_tag)) +
                               " not decrypted: the key log has no CLIENT_EARLY_TRAFFIC_SECRET for this connection",
                           frame_of(r.last_tag));
            return;
        }
        if (gap_frame_[dir]) return fail(TlsDecryptFailure::Gap, r.last_tag);
        return fail(res == TlsDecryptor::Result::NoKey ? TlsDecryptFailure::NoKey : TlsDecryptFailure::AuthFailed,
                    r.last_tag);
    }
    ++dec_state_.records_decrypted;
    if (dir == Side::Client) client_decrypted_ = true;
    if (gap_frame_[dir]) {
        host_.warn(WarningCode::TlsUndecrypted, std::string("TLS: decryption of the ") + side_name(dir) + " records resumed at frame " +
                       std::to_string(frame_of(r.last_tag)) + " after the gap before frame " +
                       std::to_string(gap_frame_[dir]),
                   frame_of(r.last_tag));
        gap_frame_[dir] = 0;
    }
    if (event) {
        event->inner_type = inner;
        event->plaintext_length = uint32_t(plain_.size());
    }
    if (inner == tls::kHandshake) {
        const uint32_t types = parser_.feed_decrypted_handshake(dir, plain_, r.last_tag);
        if (event) event->handshake_types |= types;  // event traces name them
    } else if (inner == tls::kApplicationData && !plain_.empty() && !stopped_) {
        dec_state_.decrypted = true;
        tracker_.on_data(dir, plain_off_[dir], plain_, r.last_tag);
        plain_off_[dir] += plain_.size();
        auto& b = bounds_[dir];
        if (b.size() >= kMaxBoundaries) b.pop_front();
        b.push_back({r.last_offset + 1, plain_off_[dir]});
    }
}

uint32_t TlsSession::plain_ack(Side dir, uint32_t ack) const {
    if (ack == 0) return 0;
    const auto& b = bounds_[dir];
    // Wire bytes acknowledged, in the 32-bit space (streams over 4 GiB wrap).
    uint32_t acked = ack - 1;
    // The last record ending within them (records are in wire order).
    auto it = std::upper_bound(b.begin(), b.end(), acked,
                               [](uint32_t a, const Boundary& x) { return int32_t(a - uint32_t(x.wire_end)) < 0; });
    if (it == b.begin()) return b.empty() || b.size() < kMaxBoundaries ? 1 : 0;
    return uint32_t(std::prev(it)->plain_end) + 1;
}

void TlsSession::fail(TlsDecryptFailure why, uint64_t tag) {
    stopped_ = true;
    dec_.reset();
    dec_state_.failure = why;
    uint64_t frame = frame_of(tag);
    dec_state_.failure_frame = frame;
    const TlsConnectionInfo& i = info();
    std::string at = " (frame " + std::to_string(frame) + ")";
    std::string what;
    switch (why) {
    case TlsDecryptFailure::HandshakeMissing:
        what = "TLS handshake not captured (the capture began after it): connection not decrypted" + at;
        break;
    case TlsDecryptFailure::NoKey:
        what = "no key for this TLS connection (its client random is not in the key log): not decrypted" + at;
        break;
    case TlsDecryptFailure::RsaNoKey:
        what = "no key for this TLS connection, which uses RSA key exchange: not decrypted (RSA private-key files are "
               "not supported; a key log is)" + at;
        break;
    case TlsDecryptFailure::UnsupportedSuite: {
        char suite[16];
        std::snprintf(suite, sizeof suite, "0x%04x", i.cipher_suite);
        what = std::string("TLS cipher suite ") + suite + " is not one StallScope decrypts: not decrypted" + at;
        break;
    }
    case TlsDecryptFailure::AuthFailed:
        what = "a TLS record at frame " + std::to_string(frame) +
               " failed authentication (wrong key in the key log?): records from there are not decrypted";
        break;
    case TlsDecryptFailure::Gap:
        what = "a gap in the TLS stream before frame " + std::to_string(frame) +
               ": the records after it could not be decrypted";
        break;
    case TlsDecryptFailure::Http2:
        what = "HTTP/2 negotiated (ALPN h2): decrypted but not analysed" + at;
        break;
    case TlsDecryptFailure::None:
    case TlsDecryptFailure::NoKeyLog:
        return;
    }
    host_.warn(WarningCode::TlsUndecrypted, what, frame);
}

// Framing faults are the sender's or the capture's: one warning per
// direction when framing is lost (a gap is warned by whoever reports gaps),
// and one when it is found again.
void TlsSession::on_tls_error(Side dir, TlsError code, uint64_t offset, uint64_t tag) {
    switch (code) {
    case TlsError::BadContentType:
    case TlsError::BadVersion:
    case TlsError::RecordTooLong:
        ++framing_errors_;
        if (dec_) dec_->on_gap(dir);
        if (!gap_frame_[dir]) gap_frame_[dir] = frame_of(tag);
        if (desync_warned_[dir]) return;
        desync_warned_[dir] = true;
        host_.warn(WarningCode::TlsFraming, std::string("TLS: ") + side_name(dir) + " record framing lost at frame " + std::to_string(frame_of(tag)) +
                       " (" + tls_error_name(code) + ", stream offset " + std::to_string(offset) +
                       "): bytes are skipped until records are found again",
                   frame_of(tag));
        return;
    case TlsError::Resynchronised:
        if (!desync_warned_[dir]) return;  // after a plain gap: nothing was lost beyond the gap
        host_.warn(WarningCode::TlsFraming, std::string("TLS: ") + side_name(dir) + " records found again at frame " + std::to_string(frame_of(tag)) +
                       " (stream offset " + std::to_string(offset) + ")",
                   frame_of(tag));
        desync_warned_[dir] = false;
        return;
    case TlsError::Gap:
        // Records were lost: the decryptor searches the next one's sequence
        // number, and the HTTP parser learns of a gap of unknown size.
        if (dec_) {
            dec_->on_gap(dir);
            if (!gap_frame_[dir]) gap_frame_[dir] = frame_of(tag);
            if (dec_state_.decrypted) {
                tracker_.on_gap(dir, plain_off_[dir], 1);
                plain_off_[dir] += 1;
            }
        }
        return;
    case TlsError::HandshakeTooLong:
    case TlsError::MalformedHandshake:
    case TlsError::UnexpectedMessage:
        if (handshake_warned_[dir]) return;
        handshake_warned_[dir] = true;
        host_.warn(WarningCode::TlsFraming, std::string("TLS: ") + side_name(dir) + " handshake message at frame " + std::to_string(frame_of(tag)) +
                       " not understood (" + tls_error_name(code) + ")",
                   frame_of(tag));
        return;
    case TlsError::Truncated:
    case TlsError::Alert:
        return;  // the keyless model reads alerts and ends
    }
}

} // namespace stallscope
