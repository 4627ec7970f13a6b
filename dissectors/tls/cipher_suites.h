#pragma once
// The cipher suites StallScope decrypts: what record protection each uses.
#include <cstdint>

namespace stallscope {

enum class TlsCipherKind : uint8_t { Gcm, ChaCha20Poly1305, Ccm, Ccm8, Cbc };

struct TlsCipherSuite {
    uint16_t id = 0;
    const char* name = "";
    TlsCipherKind kind = TlsCipherKind::Gcm;
    const char* cipher = "";      // OpenSSL EVP cipher name
    uint8_t key_len = 0;
    uint8_t fixed_iv_len = 0;     // TLS 1.2 key-block IV bytes (GCM 4, ChaCha 12, CBC 16 for TLS 1.0)
    const char* mac = nullptr;    // CBC: HMAC digest; null for AEAD
    uint8_t mac_len = 0;
    const char* prf = "SHA256";   // TLS 1.2 PRF / TLS 1.3 HKDF hash
    bool tls13 = false;
    bool rsa_key_exchange = false;  // the premaster secret travels RSA-encrypted
};

// nullptr for a suite we do not decrypt.
const TlsCipherSuite* find_cipher_suite(uint16_t id);
// The name, or nullptr when unknown.
const char* cipher_suite_name(uint16_t id);

} // namespace stallscope
