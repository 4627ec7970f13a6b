#pragma once
// Plaintext sizes of TLS records read without keys: what each record adds to
// its plaintext under the negotiated version and cipher suite, and the
// suite's IANA name for reports.
#include <cstdint>
#include <string>

namespace stallscope {

struct TlsRecordOverhead {
    uint32_t bytes = 0;   // added per record (0 with exact = false: unknown)
    bool exact = false;   // AEAD: explicit nonce + tag (+ TLS 1.3's content-type byte) exactly
};

// `version`: the negotiated one (0x0304 = TLS 1.3). Padding is assumed absent
// (TLS 1.3 records may be padded; no common stack pads HTTP records).
// The suites are those dissectors/tls/cipher_suites.h knows (the ones StallScope
// decrypts). CBC suites (a MAC and padding to the block) are not exact: `bytes` is then
// the least they add (IV + MAC + one padding byte), an upper bound is not known.
TlsRecordOverhead tls_record_overhead(uint16_t version, uint16_t cipher_suite);

// "TLS_AES_128_GCM_SHA256", or "0xC0FF" when not in the table.
std::string tls_cipher_suite_name(uint16_t cipher_suite);
// "TLS 1.3", "TLS 1.2", "TLS 1.1", "TLS 1.0", "SSL 3.0", or "0x0305" style.
std::string tls_version_name(uint16_t version);

} // namespace stallscope
