#pragma once
// Both directions of one TLS connection: record framing per direction, the
// clear-text handshake reassembled and parsed, and which records are
// encrypted. Qt-free and capture-free (only the Side enum of capture/side.h):
// the caller gives stream bytes with its own tags (segment indexes) and gets
// records and the handshake back. A direction is named by the side sending it.
#include "capture/side.h"
#include "dissectors/tls/tls_handshake.h"
#include "dissectors/tls/tls_record.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace stallscope {

// What the handshake said, as far as it was seen in clear (or decrypted and
// fed back with feed_decrypted_handshake).
struct TlsConnectionInfo {
    std::optional<ClientHello> client_hello;
    std::optional<ServerHello> server_hello;   // the last one (after a HelloRetryRequest, the real one)
    uint64_t client_hello_tag = 0, server_hello_tag = 0;  // tags of the records that completed them
    bool hello_retry = false;
    uint16_t version = 0;                      // negotiated (0: no ServerHello seen)
    uint16_t cipher_suite = 0;
    std::string sni;
    std::string alpn;                          // negotiated, when visible
    bool resumed = false;                      // TLS 1.2 session id echoed, TLS 1.3 PSK accepted
    bool early_data_accepted = false;          // TLS 1.3, from EncryptedExtensions (decrypted only)
    // The server's Certificate message(s) (clear in TLS <= 1.2; 1.3 when decrypted).
    uint64_t certificate_bytes = 0;
    uint64_t certificate_first_tag = 0, certificate_last_tag = 0;
    uint32_t session_tickets = 0;              // NewSessionTicket messages seen
    PerSide<bool> change_cipher_spec = {false, false};
    uint32_t clear_alerts = 0;
    uint8_t last_alert_level = 0, last_alert_description = 0;
    PerSide<uint64_t> records = {0, 0};
    bool tls13() const { return version == tls::kTls13; }
};

class TlsConnectionListener {
public:
    virtual ~TlsConnectionListener() = default;
    // Every framed record sent by `from`.
    // `encrypted`: its body is ciphertext (application data, and handshake or
    // alerts after the direction's ChangeCipherSpec before TLS 1.3).
    // `handshake_types`: bit t set when a clear handshake message of type t
    // (< 32) ended in this record.
    virtual void on_tls_record(Side from, const TlsRecord& record, bool encrypted, uint32_t handshake_types) = 0;
    virtual void on_tls_error(Side from, TlsError code, uint64_t offset, uint64_t tag) = 0;
    // Each clear handshake message (after the parser took what it needs).
    virtual void on_tls_handshake(Side from, const HandshakeMessage& message) {}
};

class TlsConnectionParser {
public:
    TlsConnectionParser(TlsConnectionListener& listener, TlsLimits limits = {});
    ~TlsConnectionParser();

    void feed(Side from, uint64_t offset, std::span<const uint8_t> data, uint64_t tag);
    void gap(Side from, uint64_t offset, uint64_t len, uint64_t tag);
    void end(Side from, uint64_t tag);
    // Handshake bytes the caller decrypted (TLS 1.3 EncryptedExtensions,
    // Certificate, NewSessionTicket...; TLS 1.2 Finished), in order. Returns
    // the handshake types that ended in them (bit t: type t), as the record
    // callback gives them for clear records.
    uint32_t feed_decrypted_handshake(Side from, std::span<const uint8_t> data, uint64_t tag);

    const TlsConnectionInfo& info() const { return info_; }
    bool in_sync(Side from) const;
    // Both directions are over: their framing and handshake buffers go (a
    // closed connection lingers a second of capture time with its info
    // only). Later feeds, gaps and ends are ignored; in_sync says false.
    void release();

private:
    struct Dir;
    void on_record(Side from, const TlsRecord& r);
    void on_message(Side from, const HandshakeMessage& m, bool decrypted);
    bool is_encrypted(Side from, uint8_t type) const;

    TlsConnectionListener& l_;
    TlsConnectionInfo info_;
    PerSide<std::unique_ptr<Dir>> dirs_;
};

} // namespace stallscope
