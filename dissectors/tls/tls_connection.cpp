#include "dissectors/tls/tls_connection.h"

namespace stallscope {

struct TlsConnectionParser::Dir : TlsRecordListener, HandshakeListener {
    Dir(TlsConnectionParser& p, Side from, TlsLimits lim)
        : p(p), from(from), reader(*this), clear(*this, lim), decrypted(*this, lim) {}
    void on_record(const TlsRecord& r) override { p.on_record(from, r); }
    void on_record_error(TlsError code, uint64_t offset, uint64_t tag) override {
        if (code == TlsError::Gap) clear.reset();
        p.l_.on_tls_error(from, code, offset, tag);
    }
    void on_handshake_message(const HandshakeMessage& m) override {
        if (m.type < 32) types |= 1u << m.type;
        p.on_message(from, m, feeding_decrypted);
    }
    void on_handshake_error(TlsError code, uint64_t tag) override { p.l_.on_tls_error(from, code, 0, tag); }

    TlsConnectionParser& p;
    Side from;
    TlsRecordReader reader;
    HandshakeReassembler clear, decrypted;
    uint32_t types = 0;           // handshake types ended in the record being parsed
    bool feeding_decrypted = false;
};

TlsConnectionParser::TlsConnectionParser(TlsConnectionListener& listener, TlsLimits limits) : l_(listener) {
    for (Side s : kSides) dirs_[s] = std::make_unique<Dir>(*this, s, limits);
}

TlsConnectionParser::~TlsConnectionParser() = default;

void TlsConnectionParser::feed(Side from, uint64_t offset, std::span<const uint8_t> data, uint64_t tag) {
    if (dirs_[from]) dirs_[from]->reader.feed(offset, data, tag);
}

void TlsConnectionParser::gap(Side from, uint64_t offset, uint64_t len, uint64_t tag) {
    if (dirs_[from]) dirs_[from]->reader.gap(offset, len, tag);
}

void TlsConnectionParser::end(Side from, uint64_t tag) {
    if (dirs_[from]) dirs_[from]->reader.end(tag);
}

bool TlsConnectionParser::in_sync(Side from) const { return dirs_[from] && dirs_[from]->reader.in_sync(); }

void TlsConnectionParser::release() {
    for (Side s : kSides) dirs_[s].reset();
}

uint32_t TlsConnectionParser::feed_decrypted_handshake(Side from, std::span<const uint8_t> data, uint64_t tag) {
    if (!dirs_[from]) return 0;
    Dir& d = *dirs_[from];
    d.types = 0;
    d.feeding_decrypted = true;
    d.decrypted.feed(data, tag);
    d.feeding_decrypted = false;
    return d.types;
}

// Before TLS 1.3, everything after a direction's ChangeCipherSpec is
// encrypted; TLS 1.3 sends every encrypted record as application data (its
// ChangeCipherSpec is only for middleboxes, and a second ClientHello after a
// HelloRetryRequest is clear).
bool TlsConnectionParser::is_encrypted(Side from, uint8_t type) const {
    if (type == tls::kApplicationData) return true;
    if (type == tls::kChangeCipherSpec || info_.tls13()) return false;
    return info_.change_cipher_spec[from];
}

void TlsConnectionParser::on_record(Side from, const TlsRecord& r) {
    Dir& d = *dirs_[from];
    ++info_.records[from];
    bool encrypted = is_encrypted(from, r.type);
    d.types = 0;
    if (!encrypted) {
        if (r.type == tls::kHandshake) {
            d.clear.feed(r.body, r.last_tag);
        } else if (r.type == tls::kAlert && r.body.size() >= 2) {
            ++info_.clear_alerts;
            info_.last_alert_level = r.body[0];
            info_.last_alert_description = r.body[1];
            l_.on_tls_error(from, TlsError::Alert, r.first_offset, r.last_tag);
        } else if (r.type == tls::kChangeCipherSpec) {
            info_.change_cipher_spec[from] = true;
            if (!info_.tls13()) d.clear.reset();  // a message across a key change is not one
        }
    }
    l_.on_tls_record(from, r, encrypted, d.types);
}

void TlsConnectionParser::on_message(Side from, const HandshakeMessage& m, bool decrypted) {
    TlsError err = TlsError::MalformedHandshake;
    switch (m.type) {
    case tls::kClientHello:
        if (from != Side::Client) { l_.on_tls_error(from, TlsError::UnexpectedMessage, 0, m.last_tag); break; }
        if (auto ch = parse_client_hello(m.body, err)) {
            info_.sni = ch->sni;
            info_.client_hello = std::move(*ch);
            info_.client_hello_tag = m.last_tag;
        } else {
            l_.on_tls_error(from, err, 0, m.last_tag);
        }
        break;
    case tls::kServerHello:
        if (from != Side::Server) { l_.on_tls_error(from, TlsError::UnexpectedMessage, 0, m.last_tag); break; }
        if (auto sh = parse_server_hello(m.body, err)) {
            if (sh->hello_retry_request) {
                info_.hello_retry = true;
                break;
            }
            info_.version = sh->version();
            info_.cipher_suite = sh->cipher_suite;
            if (!sh->alpn.empty()) info_.alpn = sh->alpn;
            if (info_.tls13()) {
                info_.resumed = sh->pre_shared_key;
            } else {
                info_.resumed = info_.client_hello && !sh->session_id.empty() &&
                                sh->session_id == info_.client_hello->session_id;
            }
            info_.server_hello = std::move(*sh);
            info_.server_hello_tag = m.last_tag;
        } else {
            l_.on_tls_error(from, err, 0, m.last_tag);
        }
        break;
    case tls::kEncryptedExtensions:
        if (auto ee = parse_encrypted_extensions(m.body, err)) {
            if (!ee->alpn.empty()) info_.alpn = ee->alpn;
            info_.early_data_accepted = ee->early_data;
        } else {
            l_.on_tls_error(from, err, 0, m.last_tag);
        }
        break;
    case tls::kCertificate:
        if (from == Side::Server) {
            if (!info_.certificate_bytes) info_.certificate_first_tag = m.first_tag;
            info_.certificate_bytes += m.body.size() + tls::kHandshakeHeaderBytes;
            info_.certificate_last_tag = m.last_tag;
        }
        break;
    case tls::kNewSessionTicket:
        if (from == Side::Server) {
            if (parse_new_session_ticket(m.body, info_.tls13(), err)) ++info_.session_tickets;
            else l_.on_tls_error(from, err, 0, m.last_tag);
        }
        break;
    default: break;
    }
    (void)decrypted;
    l_.on_tls_handshake(from, m);
}

} // namespace stallscope
