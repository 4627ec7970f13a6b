#pragma once
// Record protection of one TLS connection, both directions, from the
// secrets of a key log: TLS 1.3 (handshake, application and 0-RTT epochs,
// KeyUpdate) and TLS 1.0-1.2 (AEAD and CBC with HMAC, encrypt-then-MAC).
// Every primitive is libcrypto's (tls_crypto.h). Key material stays inside.
#include "capture/side.h"
#include "dissectors/tls/cipher_suites.h"
#include "dissectors/tls/keylog.h"
#include "dissectors/tls/tls_record.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace stallscope {

// Why a connection cannot be (or stopped being) decrypted.
enum class TlsDecryptFailure : uint8_t {
    None,
    NoKeyLog,          // no secrets were given at all (keyless analysis, no warning)
    HandshakeMissing,  // no ClientHello/ServerHello captured: capture started late
    NoKey,             // the key log has nothing for this connection's client random
    RsaNoKey,          // ... and it used RSA key exchange (private-key files are out of scope)
    UnsupportedSuite,  // a cipher suite we do not decrypt
    AuthFailed,        // a record did not authenticate: wrong key (or corrupted)
    Gap,               // bytes lost in the TLS stream and the record sequence not recovered
    Http2,             // ALPN h2: decrypted but not analysed
};
const char* tls_decrypt_failure_name(TlsDecryptFailure f);  // "no_key", "auth_failed", ...

class TlsDecryptor {
public:
    // Version, suite and randoms from the hellos. Null and `why` when the
    // secrets for this suite/version are missing or the suite is unknown.
    static std::unique_ptr<TlsDecryptor> create(uint16_t version, uint16_t suite_id, const ClientRandom& client_random,
                                                const std::array<uint8_t, 32>& server_random, const TlsSecrets& secrets,
                                                bool encrypt_then_mac, TlsDecryptFailure& why);
    ~TlsDecryptor();

    enum class Result : uint8_t { Ok, AuthFailed, NoKey, Malformed };
    // One encrypted record sent by `from`. On Ok, `plain`
    // holds the content and `inner_type` its real content type.
    Result decrypt(Side from, const TlsRecord& record, std::vector<uint8_t>& plain, uint8_t& inner_type);
    // A decrypted handshake message: Finished, EndOfEarlyData and KeyUpdate move the direction's keys.
    void on_handshake_message(Side from, uint8_t type, std::span<const uint8_t> body);
    // Records sent by `from` were lost: the next record's sequence number is searched.
    void on_gap(Side from) { lost_[from] = true; }
    bool tls13() const;

private:
    struct Epoch;
    struct Dir;
    TlsDecryptor();
    Result open_with(Dir& d, int epoch, const TlsRecord& r, uint64_t seq, std::vector<uint8_t>& plain,
                     uint8_t& inner_type);

    const TlsCipherSuite* suite_ = nullptr;
    uint16_t version_ = 0;
    bool etm_ = false;
    PerSide<std::unique_ptr<Dir>> dirs_;
    PerSide<bool> lost_ = {false, false};
};

} // namespace stallscope
