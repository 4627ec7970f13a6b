#include "analyzers/calls/tls_record_sizes.h"

#include "dissectors/tls/cipher_suites.h"

#include <cstdio>

namespace stallscope {

namespace {

std::string hex16(uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04X", unsigned(v));
    return buf;
}

} // namespace

TlsRecordOverhead tls_record_overhead(uint16_t version, uint16_t cipher_suite) {
    const TlsCipherSuite* s = find_cipher_suite(cipher_suite);  // the suites StallScope decrypts
    if (!s || version < 0x0301) return {};
    const bool tls13 = version >= 0x0304;
    // TLS 1.3: tag + the inner content-type byte; 1.2: AES-GCM/CCM also carry an 8-byte explicit nonce.
    switch (s->kind) {
    case TlsCipherKind::Gcm:
    case TlsCipherKind::Ccm: return {tls13 ? 17u : 24u, true};
    case TlsCipherKind::Ccm8: return {tls13 ? 9u : 16u, true};
    case TlsCipherKind::ChaCha20Poly1305: return {tls13 ? 17u : 16u, true};
    case TlsCipherKind::Cbc: {
        uint32_t iv = version >= 0x0302 ? 16 : 0;  // TLS 1.1+ sends an explicit IV per record
        return {iv + s->mac_len + 1, false};       // at least one padding byte; the rest is unknown
    }
    }
    return {};
}

std::string tls_cipher_suite_name(uint16_t cipher_suite) {
    const char* name = cipher_suite_name(cipher_suite);
    return name ? name : hex16(cipher_suite);
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
