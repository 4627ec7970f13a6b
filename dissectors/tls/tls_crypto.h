#pragma once
// The cryptographic primitives TLS decryption needs, over OpenSSL 3's
// libcrypto: its ciphers, digests and "TLS1-PRF". No cipher or hash is
// written here; HMAC (RFC 2104) and HKDF-Expand-Label (RFC 8446 7.1) are
// composed here from its digests, as EVP_MAC and the "TLS13-KDF" spent 3-4
// times the hashing in parameter handling (tls_crypto.cpp; a test holds them
// equal to libcrypto's own on random inputs).
#include "dissectors/tls/cipher_suites.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace stallscope::tlscrypto {

using Bytes = std::vector<uint8_t>;
using View = std::span<const uint8_t>;

// RFC 8446 7.1 HKDF-Expand-Label(secret, label, context, length); `label` without "tls13 ".
bool hkdf_expand_label(const char* digest, View secret, std::string_view label, View context, size_t length,
                       Bytes& out);
// RFC 5246 5 PRF(secret, label, seed); digest "MD5-SHA1" gives the TLS 1.0/1.1 PRF.
bool tls_prf(const char* digest, View secret, std::string_view label, View seed, size_t length, Bytes& out);
size_t digest_size(const char* digest);

size_t aead_tag_size(TlsCipherKind kind);

// AEAD decryption with one key for many records: the cipher context is set
// up with the key once (its key schedule), and each record sets only its
// nonce. A connection keeps one per direction and key epoch.
class AeadOpener {
public:
    AeadOpener();
    ~AeadOpener();
    AeadOpener(const AeadOpener&) = delete;
    AeadOpener& operator=(const AeadOpener&) = delete;
    // False when the cipher is unknown or the key does not fit it.
    bool set_key(TlsCipherKind kind, const char* cipher, View key, size_t nonce_len);
    bool ready() const { return ctx_ != nullptr; }
    void clear();
    // Decrypts `sealed` (ciphertext then tag) into `out`; false (and `out`
    // wiped and empty) when the tag does not verify.
    bool open(View nonce, View aad, View sealed, Bytes& out);

private:
    struct Ctx;
    std::unique_ptr<Ctx> ctx_;
    TlsCipherKind kind_ = TlsCipherKind::Gcm;
};
// AEAD encryption (GCM, ChaCha20-Poly1305; not CCM): `out` = ciphertext then
// tag. For generating test and benchmark traffic, never on captured data.
bool aead_seal(TlsCipherKind kind, const char* cipher, View key, View nonce, View aad, View plain, Bytes& out);
// CBC decryption without padding removal; false when the length is not whole blocks.
bool cbc_decrypt(const char* cipher, View key, View iv, View ciphertext, Bytes& out);
// HMAC(key, a || b).
bool hmac(const char* digest, View key, View a, View b, Bytes& out);

} // namespace stallscope::tlscrypto
