#pragma once
// TLS handshake messages: reassembled from handshake records (a message may
// span records, a record may hold several messages; records of other types
// in between are tolerated) and the clear-text ones parsed: ClientHello,
// ServerHello (and HelloRetryRequest), EncryptedExtensions (ALPN, once
// decrypted), NewSessionTicket, KeyUpdate. Bounded by TlsLimits.
#include "dissectors/tls/tls_error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stallscope {

namespace tls {
enum HandshakeType : uint8_t {
    kHelloRequest = 0,
    kClientHello = 1,
    kServerHello = 2,
    kNewSessionTicket = 4,
    kEndOfEarlyData = 5,
    kEncryptedExtensions = 8,
    kCertificate = 11,
    kServerKeyExchange = 12,
    kCertificateRequest = 13,
    kServerHelloDone = 14,
    kCertificateVerify = 15,
    kClientKeyExchange = 16,
    kFinished = 20,
    kKeyUpdate = 24,
    kMessageHash = 254,
};
constexpr uint16_t kTls10 = 0x0301, kTls11 = 0x0302, kTls12 = 0x0303, kTls13 = 0x0304;
constexpr size_t kHandshakeHeaderBytes = 4;
} // namespace tls

struct TlsLimits {
    size_t max_handshake_bytes = 1 << 20;  // a certificate chain is far less; 2^24 is only the field's range
};

struct HandshakeMessage {
    uint8_t type = 0;
    std::span<const uint8_t> body;   // without the 4-byte header; valid during the callback only
    // The caller's tags of the records that carried its first and last byte.
    uint64_t first_tag = 0, last_tag = 0;
};

class HandshakeListener {
public:
    virtual ~HandshakeListener() = default;
    virtual void on_handshake_message(const HandshakeMessage& message) = 0;
    virtual void on_handshake_error(TlsError code, uint64_t tag) = 0;
};

class HandshakeReassembler {
public:
    HandshakeReassembler(HandshakeListener& listener, TlsLimits limits = {}) : l_(listener), lim_(limits) {}
    // The clear body of one handshake record, tagged by the caller.
    void feed(std::span<const uint8_t> data, uint64_t tag);
    // Forget a message in progress (a gap, or keys changed: RFC 8446 5.1
    // forbids a message across a key change).
    void reset() { buf_.clear(); broken_ = false; }
    bool in_message() const { return !buf_.empty(); }

private:
    HandshakeListener& l_;
    TlsLimits lim_;
    std::vector<uint8_t> buf_;
    uint64_t first_tag_ = 0;
    bool broken_ = false;  // after an error: the rest of the direction's handshake bytes are not framed
};

struct ClientHello {
    uint16_t legacy_version = 0;
    std::array<uint8_t, 32> random{};
    std::vector<uint8_t> session_id;
    std::vector<uint16_t> cipher_suites;
    std::string sni;                         // the first host_name
    std::vector<std::string> alpn;
    std::vector<uint16_t> supported_versions;
    bool session_ticket = false;             // the extension offered
    size_t session_ticket_bytes = 0;         // a ticket presented (resumption attempt)
    bool pre_shared_key = false;
    bool early_data = false;
    bool encrypt_then_mac = false;
    bool extended_master_secret = false;
    bool key_share = false;
    // The highest version offered (supported_versions, else legacy_version).
    uint16_t max_version() const;
};

struct ServerHello {
    uint16_t legacy_version = 0;
    std::array<uint8_t, 32> random{};
    std::vector<uint8_t> session_id;
    uint16_t cipher_suite = 0;
    uint16_t selected_version = 0;           // supported_versions extension, 0 when absent
    std::string alpn;                        // TLS 1.2 (TLS 1.3: in EncryptedExtensions)
    bool key_share = false;
    bool pre_shared_key = false;             // TLS 1.3: the server accepted a PSK (resumed)
    bool encrypt_then_mac = false;
    bool extended_master_secret = false;
    bool session_ticket = false;             // TLS 1.2: the server will send a NewSessionTicket
    bool hello_retry_request = false;        // the special random of RFC 8446 4.1.3
    uint16_t version() const { return selected_version ? selected_version : legacy_version; }
};

struct EncryptedExtensions {
    std::string alpn;
    bool early_data = false;                 // the server accepted 0-RTT
};

struct NewSessionTicket {
    uint32_t lifetime = 0;
    size_t ticket_bytes = 0;
};

// Each returns nullopt and sets `error` when the message's lengths do not add up.
std::optional<ClientHello> parse_client_hello(std::span<const uint8_t> body, TlsError& error);
std::optional<ServerHello> parse_server_hello(std::span<const uint8_t> body, TlsError& error);
std::optional<EncryptedExtensions> parse_encrypted_extensions(std::span<const uint8_t> body, TlsError& error);
std::optional<NewSessionTicket> parse_new_session_ticket(std::span<const uint8_t> body, bool tls13, TlsError& error);

} // namespace stallscope
