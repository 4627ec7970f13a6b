#include "dissectors/tls/tls_decryptor.h"

#include "dissectors/tls/tls_crypto.h"
#include "dissectors/tls/tls_handshake.h"

#include <openssl/crypto.h>

#include <algorithm>

namespace stallscope {

namespace tc = tlscrypto;

namespace {
constexpr uint64_t kSeqSearch = 64;  // records a gap may have swallowed that we try to skip
constexpr size_t kBlock = 16;

void put_u64(uint8_t* p, uint64_t v) {
    for (int i = 7; i >= 0; --i) { p[i] = uint8_t(v); v >>= 8; }
}
void wipe(std::vector<uint8_t>& v) {
    if (!v.empty()) OPENSSL_cleanse(v.data(), v.size());
}
} // namespace

const char* tls_decrypt_failure_name(TlsDecryptFailure f) {
    switch (f) {
    case TlsDecryptFailure::None: return "none";
    case TlsDecryptFailure::NoKeyLog: return "no_key_log";
    case TlsDecryptFailure::HandshakeMissing: return "handshake_missing";
    case TlsDecryptFailure::NoKey: return "no_key";
    case TlsDecryptFailure::RsaNoKey: return "rsa_no_key";
    case TlsDecryptFailure::UnsupportedSuite: return "unsupported_cipher_suite";
    case TlsDecryptFailure::AuthFailed: return "auth_failed";
    case TlsDecryptFailure::Gap: return "gap";
    case TlsDecryptFailure::Http2: return "http2";
    }
    return "unknown";
}

// The keys of one direction between two key changes.
struct TlsDecryptor::Epoch {
    std::vector<uint8_t> secret;   // TLS 1.3 traffic secret (for KeyUpdate)
    std::vector<uint8_t> key, iv, mac_key;
    uint64_t seq = 0;
    bool usable = false;
    ~Epoch() { wipe(secret); wipe(key); wipe(iv); wipe(mac_key); }
};

// TLS 1.3: epochs in order (client: early, handshake, application; server:
// handshake, application); `cur` is the one in use. TLS <= 1.2: one epoch.
struct TlsDecryptor::Dir {
    enum Kind { kEarly = 0, kHandshake = 1, kApplication = 2 };
    Epoch epochs[3];
    int cur = kHandshake;
    // The AEAD context keyed for one epoch (-1: none): set up at that
    // epoch's first record, so each record only sets its nonce. One per
    // direction, not per epoch: a connection holds two at most.
    tc::AeadOpener aead;
    int aead_epoch = -1;
};

TlsDecryptor::TlsDecryptor() {
    for (auto& d : dirs_) d = std::make_unique<Dir>();
}
TlsDecryptor::~TlsDecryptor() = default;

bool TlsDecryptor::tls13() const { return version_ == tls::kTls13; }

namespace {

bool tls13_epoch_keys(const TlsCipherSuite& s, const std::vector<uint8_t>& secret, std::vector<uint8_t>& key,
                      std::vector<uint8_t>& iv) {
    return tc::hkdf_expand_label(s.prf, secret, "key", {}, s.key_len, key) &&
           tc::hkdf_expand_label(s.prf, secret, "iv", {}, 12, iv);
}

} // namespace

std::unique_ptr<TlsDecryptor> TlsDecryptor::create(uint16_t version, uint16_t suite_id, const ClientRandom& cr,
                                                   const std::array<uint8_t, 32>& sr, const TlsSecrets& secrets,
                                                   bool encrypt_then_mac, TlsDecryptFailure& why) {
    const TlsCipherSuite* s = find_cipher_suite(suite_id);
    if (!s || s->tls13 != (version == tls::kTls13) || (version < tls::kTls10 && version != 0)) {
        why = TlsDecryptFailure::UnsupportedSuite;
        return nullptr;
    }
    std::unique_ptr<TlsDecryptor> d(new TlsDecryptor);
    d->suite_ = s;
    d->version_ = version;
    d->etm_ = encrypt_then_mac && s->kind == TlsCipherKind::Cbc;
    if (s->tls13) {
        if (!secrets.any_tls13()) {
            why = TlsDecryptFailure::NoKey;
            return nullptr;
        }
        const std::vector<uint8_t>* src[2][3] = {
            {&secrets.client_early, &secrets.client_handshake, &secrets.client_traffic_0},
            {nullptr, &secrets.server_handshake, &secrets.server_traffic_0}};
        for (size_t i = 0; i < 2; ++i) {  // src's rows: client, server
            const Side side = kSides[i];
            for (int k = 0; k < 3; ++k) {
                Epoch& e = d->dirs_[side]->epochs[k];
                if (!src[i][k] || src[i][k]->empty()) continue;
                e.secret = *src[i][k];
                e.usable = tls13_epoch_keys(*s, e.secret, e.key, e.iv);
            }
            // The client starts in 0-RTT when it has that key (the ClientHello's early data comes first).
            d->dirs_[side]->cur = side == Side::Client && d->dirs_[Side::Client]->epochs[Dir::kEarly].usable
                                      ? Dir::kEarly : Dir::kHandshake;
        }
        return d;
    }
    if (secrets.master_secret.size() != 48) {
        why = s->rsa_key_exchange ? TlsDecryptFailure::RsaNoKey : TlsDecryptFailure::NoKey;
        return nullptr;
    }
    // RFC 5246 6.3: key_block = PRF(master_secret, "key expansion", server_random + client_random).
    std::vector<uint8_t> seed(sr.begin(), sr.end());
    seed.insert(seed.end(), cr.begin(), cr.end());
    const size_t mac = s->mac_len, key = s->key_len, iv = s->fixed_iv_len;
    std::vector<uint8_t> block;
    const char* prf = version >= tls::kTls12 ? s->prf : "MD5-SHA1";
    if (!tc::tls_prf(prf, secrets.master_secret, "key expansion", seed, 2 * (mac + key + iv), block)) {
        why = TlsDecryptFailure::UnsupportedSuite;
        return nullptr;
    }
    auto take = [&](size_t at, size_t n) { return std::vector<uint8_t>(block.begin() + ptrdiff_t(at), block.begin() + ptrdiff_t(at + n)); };
    for (size_t i = 0; i < 2; ++i) {  // the key block's order: client, server
        Dir& side = *d->dirs_[kSides[i]];
        Epoch& e = side.epochs[Dir::kApplication];
        e.mac_key = take(i * mac, mac);
        e.key = take(2 * mac + i * key, key);
        e.iv = take(2 * mac + 2 * key + i * iv, iv);
        e.usable = true;
        side.cur = Dir::kApplication;
    }
    wipe(block);
    return d;
}

void TlsDecryptor::on_handshake_message(Side from, uint8_t type, std::span<const uint8_t> body) {
    if (!tls13()) return;
    Dir& d = *dirs_[from];
    if (type == tls::kEndOfEarlyData && d.cur == Dir::kEarly) {
        d.cur = Dir::kHandshake;
    } else if (type == tls::kFinished && d.cur == Dir::kHandshake) {
        d.cur = Dir::kApplication;
    } else if (type == tls::kKeyUpdate && d.cur == Dir::kApplication) {
        // RFC 8446 7.2: application_traffic_secret_N+1 = HKDF-Expand-Label(secret_N, "traffic upd", "", Hash.length).
        Epoch& e = d.epochs[Dir::kApplication];
        std::vector<uint8_t> next;
        if (e.usable && tc::hkdf_expand_label(suite_->prf, e.secret, "traffic upd", {}, e.secret.size(), next)) {
            wipe(e.secret);
            e.secret = std::move(next);
            e.usable = tls13_epoch_keys(*suite_, e.secret, e.key, e.iv);
            d.aead.clear();
            d.aead_epoch = -1;
            e.seq = 0;
        }
    }
}

TlsDecryptor::Result TlsDecryptor::decrypt(Side from, const TlsRecord& r, std::vector<uint8_t>& plain,
                                           uint8_t& inner_type) {
    Dir& d = *dirs_[from];
    const bool lost = lost_[from];
    // TLS 1.3 moves on when a record does not open with the current keys but
    // with the next epoch's (0-RTT the server rejected, a Finished not seen).
    int last = tls13() ? Dir::kApplication : d.cur;
    bool any_key = false;
    for (int k = d.cur; k <= last; ++k) {
        Epoch& e = d.epochs[k];
        if (!e.usable) continue;
        any_key = true;
        uint64_t tries = lost || k != d.cur ? kSeqSearch : 1;
        for (uint64_t i = 0; i < tries; ++i) {
            Result res = open_with(d, k, r, e.seq + i, plain, inner_type);
            if (res == Result::Malformed) return res;
            if (res != Result::Ok) continue;
            e.seq += i + 1;
            d.cur = k;
            lost_[from] = false;
            return Result::Ok;
        }
    }
    return any_key ? Result::AuthFailed : Result::NoKey;
}

TlsDecryptor::Result TlsDecryptor::open_with(Dir& d, int epoch, const TlsRecord& r, uint64_t seq,
                                             std::vector<uint8_t>& plain, uint8_t& inner_type) {
    const TlsCipherSuite& s = *suite_;
    Epoch& e = d.epochs[epoch];
    std::span<const uint8_t> body = r.body;
    uint8_t seqb[8];
    put_u64(seqb, seq);
    if (s.kind != TlsCipherKind::Cbc && d.aead_epoch != epoch) {
        d.aead_epoch = d.aead.set_key(s.kind, s.cipher, e.key, 12) ? epoch : -1;
        if (d.aead_epoch < 0) return Result::AuthFailed;
    }
    if (s.tls13) {
        // RFC 8446 5.3: nonce = iv XOR padded seq; AAD = the record header.
        uint8_t nonce[12];
        for (int i = 0; i < 12; ++i) nonce[i] = e.iv[size_t(i)] ^ (i >= 4 ? seqb[i - 4] : 0);
        uint8_t aad[5] = {r.type, uint8_t(r.version >> 8), uint8_t(r.version), uint8_t(r.length >> 8), uint8_t(r.length)};
        if (!d.aead.open(nonce, aad, body, plain)) return Result::AuthFailed;
        // TLSInnerPlaintext: content, type, zero padding.
        while (!plain.empty() && plain.back() == 0) plain.pop_back();
        if (plain.empty()) return Result::Malformed;
        inner_type = plain.back();
        plain.pop_back();
        return Result::Ok;
    }
    inner_type = r.type;
    uint8_t aad[13];
    std::copy(seqb, seqb + 8, aad);
    aad[8] = r.type;
    aad[9] = uint8_t(r.version >> 8);
    aad[10] = uint8_t(r.version);
    auto set_len = [&](size_t n) { aad[11] = uint8_t(n >> 8); aad[12] = uint8_t(n); };
    if (s.kind == TlsCipherKind::Gcm) {
        // RFC 5288: nonce = fixed IV (4) || explicit nonce (8, first in the record).
        if (body.size() < 8 + 16) return Result::Malformed;
        uint8_t nonce[12];
        std::copy(e.iv.begin(), e.iv.begin() + 4, nonce);
        std::copy(body.begin(), body.begin() + 8, nonce + 4);
        set_len(body.size() - 8 - 16);
        return d.aead.open(nonce, aad, body.subspan(8), plain) ? Result::Ok : Result::AuthFailed;
    }
    if (s.kind == TlsCipherKind::ChaCha20Poly1305) {
        // RFC 7905: nonce = IV XOR padded seq.
        if (body.size() < 16) return Result::Malformed;
        uint8_t nonce[12];
        for (int i = 0; i < 12; ++i) nonce[i] = e.iv[size_t(i)] ^ (i >= 4 ? seqb[i - 4] : 0);
        set_len(body.size() - 16);
        return d.aead.open(nonce, aad, body, plain) ? Result::Ok : Result::AuthFailed;
    }
    if (s.kind != TlsCipherKind::Cbc) return Result::Malformed;
    // CBC with HMAC. TLS 1.1+ carries an explicit IV first; TLS 1.0 chains
    // from the previous record's last block (kept in e.iv).
    const bool explicit_iv = version_ >= tls::kTls11;
    const size_t mac_len = s.mac_len;
    std::vector<uint8_t> mac;
    if (etm_) {
        // RFC 7366: MAC(seq || header with the ciphertext's length || IV + ciphertext), checked first.
        if (body.size() < mac_len + kBlock) return Result::Malformed;
        auto ct = body.first(body.size() - mac_len);
        set_len(ct.size());
        if (!tc::hmac(s.mac, e.mac_key, std::span<const uint8_t>(aad, 13), ct, mac) ||
            CRYPTO_memcmp(mac.data(), body.data() + ct.size(), mac_len) != 0)
            return Result::AuthFailed;
        body = ct;
    }
    if (body.size() < kBlock || body.size() % kBlock) return Result::Malformed;
    std::span<const uint8_t> iv = explicit_iv ? body.first(kBlock) : std::span<const uint8_t>(e.iv);
    std::span<const uint8_t> ct = explicit_iv ? body.subspan(kBlock) : body;
    if (ct.empty()) return Result::Malformed;
    if (!tc::cbc_decrypt(s.cipher, e.key, iv, ct, plain)) return Result::Malformed;
    size_t pad = plain.back();
    if (pad + 1 > plain.size()) return Result::AuthFailed;
    for (size_t i = plain.size() - pad - 1; i < plain.size(); ++i)
        if (plain[i] != pad) return Result::AuthFailed;
    plain.resize(plain.size() - pad - 1);
    if (!etm_) {
        if (plain.size() < mac_len) return Result::AuthFailed;
        size_t n = plain.size() - mac_len;
        set_len(n);
        if (!tc::hmac(s.mac, e.mac_key, std::span<const uint8_t>(aad, 13), std::span<const uint8_t>(plain).first(n), mac) ||
            CRYPTO_memcmp(mac.data(), plain.data() + n, mac_len) != 0)
            return Result::AuthFailed;
        plain.resize(n);
    }
    if (!explicit_iv) e.iv.assign(body.end() - kBlock, body.end());  // the next record's IV
    return Result::Ok;
}

} // namespace stallscope
