#include "dissectors/tls/cipher_suites.h"

namespace stallscope {

namespace {

using K = TlsCipherKind;

// {id, name, kind, cipher, key, fixed iv, mac, mac len, prf, tls13, rsa}
constexpr TlsCipherSuite kSuites[] = {
    {0x1301, "TLS_AES_128_GCM_SHA256", K::Gcm, "AES-128-GCM", 16, 12, nullptr, 0, "SHA256", true, false},
    {0x1302, "TLS_AES_256_GCM_SHA384", K::Gcm, "AES-256-GCM", 32, 12, nullptr, 0, "SHA384", true, false},
    {0x1303, "TLS_CHACHA20_POLY1305_SHA256", K::ChaCha20Poly1305, "ChaCha20-Poly1305", 32, 12, nullptr, 0, "SHA256", true, false},
    {0x1304, "TLS_AES_128_CCM_SHA256", K::Ccm, "AES-128-CCM", 16, 12, nullptr, 0, "SHA256", true, false},
    {0x1305, "TLS_AES_128_CCM_8_SHA256", K::Ccm8, "AES-128-CCM", 16, 12, nullptr, 0, "SHA256", true, false},

    {0x009C, "TLS_RSA_WITH_AES_128_GCM_SHA256", K::Gcm, "AES-128-GCM", 16, 4, nullptr, 0, "SHA256", false, true},
    {0x009D, "TLS_RSA_WITH_AES_256_GCM_SHA384", K::Gcm, "AES-256-GCM", 32, 4, nullptr, 0, "SHA384", false, true},
    {0x009E, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", K::Gcm, "AES-128-GCM", 16, 4, nullptr, 0, "SHA256", false, false},
    {0x009F, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", K::Gcm, "AES-256-GCM", 32, 4, nullptr, 0, "SHA384", false, false},
    {0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", K::Gcm, "AES-128-GCM", 16, 4, nullptr, 0, "SHA256", false, false},
    {0xC02C, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", K::Gcm, "AES-256-GCM", 32, 4, nullptr, 0, "SHA384", false, false},
    {0xC02F, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", K::Gcm, "AES-128-GCM", 16, 4, nullptr, 0, "SHA256", false, false},
    {0xC030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", K::Gcm, "AES-256-GCM", 32, 4, nullptr, 0, "SHA384", false, false},
    {0xCCA8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", K::ChaCha20Poly1305, "ChaCha20-Poly1305", 32, 12, nullptr, 0, "SHA256", false, false},
    {0xCCA9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", K::ChaCha20Poly1305, "ChaCha20-Poly1305", 32, 12, nullptr, 0, "SHA256", false, false},
    {0xCCAA, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", K::ChaCha20Poly1305, "ChaCha20-Poly1305", 32, 12, nullptr, 0, "SHA256", false, false},

    {0x002F, "TLS_RSA_WITH_AES_128_CBC_SHA", K::Cbc, "AES-128-CBC", 16, 16, "SHA1", 20, "SHA256", false, true},
    {0x0035, "TLS_RSA_WITH_AES_256_CBC_SHA", K::Cbc, "AES-256-CBC", 32, 16, "SHA1", 20, "SHA256", false, true},
    {0x003C, "TLS_RSA_WITH_AES_128_CBC_SHA256", K::Cbc, "AES-128-CBC", 16, 16, "SHA256", 32, "SHA256", false, true},
    {0x003D, "TLS_RSA_WITH_AES_256_CBC_SHA256", K::Cbc, "AES-256-CBC", 32, 16, "SHA256", 32, "SHA256", false, true},
    {0x0033, "TLS_DHE_RSA_WITH_AES_128_CBC_SHA", K::Cbc, "AES-128-CBC", 16, 16, "SHA1", 20, "SHA256", false, false},
    {0x0039, "TLS_DHE_RSA_WITH_AES_256_CBC_SHA", K::Cbc, "AES-256-CBC", 32, 16, "SHA1", 20, "SHA256", false, false},
    {0x0067, "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", K::Cbc, "AES-128-CBC", 16, 16, "SHA256", 32, "SHA256", false, false},
    {0x006B, "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", K::Cbc, "AES-256-CBC", 32, 16, "SHA256", 32, "SHA256", false, false},
    {0xC009, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", K::Cbc, "AES-128-CBC", 16, 16, "SHA1", 20, "SHA256", false, false},
    {0xC00A, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", K::Cbc, "AES-256-CBC", 32, 16, "SHA1", 20, "SHA256", false, false},
    {0xC013, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", K::Cbc, "AES-128-CBC", 16, 16, "SHA1", 20, "SHA256", false, false},
    {0xC014, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", K::Cbc, "AES-256-CBC", 32, 16, "SHA1", 20, "SHA256", false, false},
    {0xC023, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", K::Cbc, "AES-128-CBC", 16, 16, "SHA256", 32, "SHA256", false, false},
    {0xC024, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", K::Cbc, "AES-256-CBC", 32, 16, "SHA384", 48, "SHA384", false, false},
    {0xC027, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", K::Cbc, "AES-128-CBC", 16, 16, "SHA256", 32, "SHA256", false, false},
    {0xC028, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", K::Cbc, "AES-256-CBC", 32, 16, "SHA384", 48, "SHA384", false, false},
};

} // namespace

const TlsCipherSuite* find_cipher_suite(uint16_t id) {
    for (const auto& s : kSuites)
        if (s.id == id) return &s;
    return nullptr;
}

const char* cipher_suite_name(uint16_t id) {
    const TlsCipherSuite* s = find_cipher_suite(id);
    return s ? s->name : nullptr;
}

} // namespace stallscope
