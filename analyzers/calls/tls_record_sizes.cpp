#include "analyzers/calls/tls_record_sizes.h"

#include <cstdio>

namespace stallscope {

namespace {

enum class Mode : uint8_t { Gcm, Ccm, Ccm8, ChaCha, CbcSha1, CbcSha256, CbcSha384 };

struct Suite {
    uint16_t id;
    const char* name;
    Mode mode;
};

// The suites common stacks negotiate (RFC 8446, 5288, 5289, 6655, 7251, 7905, 5246).
constexpr Suite kSuites[] = {
    {0x1301, "TLS_AES_128_GCM_SHA256", Mode::Gcm},
    {0x1302, "TLS_AES_256_GCM_SHA384", Mode::Gcm},
    {0x1303, "TLS_CHACHA20_POLY1305_SHA256", Mode::ChaCha},
    {0x1304, "TLS_AES_128_CCM_SHA256", Mode::Ccm},
    {0x1305, "TLS_AES_128_CCM_8_SHA256", Mode::Ccm8},
    {0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Mode::Gcm},
    {0xC02C, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", Mode::Gcm},
    {0xC02F, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", Mode::Gcm},
    {0xC030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", Mode::Gcm},
    {0x009C, "TLS_RSA_WITH_AES_128_GCM_SHA256", Mode::Gcm},
    {0x009D, "TLS_RSA_WITH_AES_256_GCM_SHA384", Mode::Gcm},
    {0x009E, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", Mode::Gcm},
    {0x009F, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", Mode::Gcm},
    {0xCCA8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", Mode::ChaCha},
    {0xCCA9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", Mode::ChaCha},
    {0xCCAA, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", Mode::ChaCha},
    {0xC0AC, "TLS_ECDHE_ECDSA_WITH_AES_128_CCM", Mode::Ccm},
    {0xC0AD, "TLS_ECDHE_ECDSA_WITH_AES_256_CCM", Mode::Ccm},
    {0xC0AE, "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", Mode::Ccm8},
    {0xC0AF, "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8", Mode::Ccm8},
    {0xC009, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", Mode::CbcSha1},
    {0xC00A, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", Mode::CbcSha1},
    {0xC013, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", Mode::CbcSha1},
    {0xC014, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", Mode::CbcSha1},
    {0xC023, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", Mode::CbcSha256},
    {0xC024, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", Mode::CbcSha384},
    {0xC027, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", Mode::CbcSha256},
    {0xC028, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", Mode::CbcSha384},
    {0x002F, "TLS_RSA_WITH_AES_128_CBC_SHA", Mode::CbcSha1},
    {0x0035, "TLS_RSA_WITH_AES_256_CBC_SHA", Mode::CbcSha1},
    {0x003C, "TLS_RSA_WITH_AES_128_CBC_SHA256", Mode::CbcSha256},
    {0x003D, "TLS_RSA_WITH_AES_256_CBC_SHA256", Mode::CbcSha256},
};

const Suite* find(uint16_t id) {
    for (const Suite& s : kSuites)
        if (s.id == id) return &s;
    return nullptr;
}

std::string hex16(uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04X", unsigned(v));
    return buf;
}

} // namespace

TlsRecordOverhead tls_record_overhead(uint16_t version, uint16_t cipher_suite) {
    const Suite* s = find(cipher_suite);
    if (!s || version < 0x0301) return {};
    const bool tls13 = version >= 0x0304;
    // TLS 1.3: tag + the inner content-type byte; 1.2: AES-GCM/CCM also carry an 8-byte explicit nonce.
    switch (s->mode) {
    case Mode::Gcm:
    case Mode::Ccm: return {tls13 ? 17u : 24u, true};
    case Mode::Ccm8: return {tls13 ? 9u : 16u, true};
    case Mode::ChaCha: return {tls13 ? 17u : 16u, true};
    case Mode::CbcSha1:
    case Mode::CbcSha256:
    case Mode::CbcSha384: {
        uint32_t mac = s->mode == Mode::CbcSha1 ? 20 : s->mode == Mode::CbcSha256 ? 32 : 48;
        uint32_t iv = version >= 0x0302 ? 16 : 0;  // TLS 1.1+ sends an explicit IV per record
        return {iv + mac + 1, false};
    }
    }
    return {};
}

std::string tls_cipher_suite_name(uint16_t cipher_suite) {
    const Suite* s = find(cipher_suite);
    return s ? s->name : hex16(cipher_suite);
}

std::string tls_version_name(uint16_t version) {
    switch (version) {
    case 0x0300: return "SSL 3.0";
    case 0x0301: return "TLS 1.0";
    case 0x0302: return "TLS 1.1";
    case 0x0303: return "TLS 1.2";
    case 0x0304: return "TLS 1.3";
    }
    return hex16(version);
}

} // namespace stallscope
