#include "dissectors/tls/tls_crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace stallscope::tlscrypto {

namespace {

struct CtxFree { void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); } };
struct KdfCtxFree { void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); } };

// Fetched once per name (a fetch is a locked lookup): ciphers and KDFs live until exit.
// The cache is never destroyed, so the fetched objects stay reachable at exit
// (a destroyed map would leave them to LeakSanitizer, and freeing them from a
// static destructor could run after OpenSSL's own atexit cleanup).
template <class T, class Fetch>
T* fetched(const char* name, Fetch fetch) {
    static std::mutex mu;
    static auto* cache = new std::map<std::string, T*>;
    std::lock_guard lock(mu);
    T*& item = (*cache)[name];
    if (!item) item = fetch(nullptr, name, nullptr);
    return item;
}
const EVP_CIPHER* cipher_by_name(const char* name) { return fetched<EVP_CIPHER>(name, EVP_CIPHER_fetch); }
EVP_KDF* kdf_by_name(const char* name) { return fetched<EVP_KDF>(name, EVP_KDF_fetch); }
// A digest by name, for every HMAC: the few names a thread has used, looked
// up without fetched()'s lock and string (names are the suite table's).
const EVP_MD* md_by_name(const char* name) {
    thread_local std::vector<std::pair<std::string, const EVP_MD*>> seen;
    for (const auto& [n, md] : seen)
        if (n == name) return md;
    const EVP_MD* md = fetched<EVP_MD>(name, EVP_MD_fetch);
    if (md) seen.emplace_back(name, md);
    return md;
}

// OSSL_PARAM refuses a null pointer even for an empty octet string.
uint8_t kEmpty = 0;
void* mut(View v) { return v.empty() ? &kEmpty : const_cast<uint8_t*>(v.data()); }

bool derive(const char* kdf_name, OSSL_PARAM* params, size_t length, Bytes& out) {
    EVP_KDF* kdf = kdf_by_name(kdf_name);
    if (!kdf) return false;
    std::unique_ptr<EVP_KDF_CTX, KdfCtxFree> ctx(EVP_KDF_CTX_new(kdf));
    if (!ctx) return false;
    out.assign(length, 0);
    return EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) == 1;
}

} // namespace

size_t digest_size(const char* digest) {
    const EVP_MD* md = md_by_name(digest);
    return md ? size_t(EVP_MD_get_size(md)) : 0;
}

namespace {

struct MdCtxFree { void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); } };

// HMAC (RFC 2104) of the concatenated `parts`, over libcrypto's digest
// fetched once, with one digest context per thread. libcrypto's own HMAC
// (EVP_MAC) and TLS13-KDF cost 1.2 and 1.7 us a call, mostly in looking up
// their parameters by name, for 0.35-0.45 us of hashing; a TLS 1.3
// connection derives 8 to 10 keys and IVs, and the CBC suites MAC every
// record: on the HTTPS bench file the KDF was a third of a decrypting
// worker's instructions (docs/https.md, "Speed"). Key, pads and inner hash are
// wiped, and the context is reset (which wipes its state) after each use.
bool hmac_parts(const char* digest, View key, std::initializer_list<View> parts, uint8_t* out, size_t& out_len) {
    const EVP_MD* md = md_by_name(digest);
    thread_local std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    if (!md || !ctx) return false;
    const size_t block = size_t(EVP_MD_get_block_size(md)), hlen = size_t(EVP_MD_get_size(md));
    constexpr size_t kMaxBlock = 144;  // SHA3-224's; SHA-384 and SHA-512 have 128
    if (block == 0 || block > kMaxBlock || hlen == 0 || hlen > EVP_MAX_MD_SIZE) return false;
    uint8_t k[kMaxBlock] = {}, pad[kMaxBlock], inner[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    bool ok = true;
    if (key.size() > block) ok = EVP_Digest(key.data(), key.size(), k, &len, md, nullptr) == 1;
    else if (!key.empty()) std::memcpy(k, key.data(), key.size());
    auto hash = [&](uint8_t x, std::initializer_list<View> data, uint8_t* to) {
        for (size_t i = 0; i < block; ++i) pad[i] = uint8_t(k[i] ^ x);
        ok = ok && EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1 && EVP_DigestUpdate(ctx.get(), pad, block) == 1;
        for (View v : data) ok = ok && (v.empty() || EVP_DigestUpdate(ctx.get(), v.data(), v.size()) == 1);
        ok = ok && EVP_DigestFinal_ex(ctx.get(), to, &len) == 1 && len == hlen;
    };
    hash(0x36, parts, inner);
    hash(0x5c, {View(inner, hlen)}, out);
    EVP_MD_CTX_reset(ctx.get());
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(pad, sizeof pad);
    OPENSSL_cleanse(inner, sizeof inner);
    out_len = ok ? hlen : 0;
    return ok;
}

} // namespace

bool hkdf_expand_label(const char* digest, View secret, std::string_view label, View context, size_t length,
                       Bytes& out) {
    // HkdfLabel (RFC 8446 7.1): length, "tls13 " + label, context; then
    // HKDF-Expand (RFC 5869 2.3): T(i) = HMAC(secret, T(i-1) | info | i).
    static constexpr std::string_view kPrefix = "tls13 ";
    const size_t hlen = digest_size(digest);
    out.clear();
    // 255 blocks at most (RFC 5869), which also keeps the length in HkdfLabel's 16 bits.
    if (hlen == 0 || label.size() > 255 - kPrefix.size() || context.size() > 255 || length > 255 * hlen) return false;
    uint8_t info[2 + 1 + 255 + 1 + 255];
    size_t n = 0;
    info[n++] = uint8_t(length >> 8);
    info[n++] = uint8_t(length);
    info[n++] = uint8_t(kPrefix.size() + label.size());
    std::memcpy(info + n, kPrefix.data(), kPrefix.size());
    n += kPrefix.size();
    std::memcpy(info + n, label.data(), label.size());
    n += label.size();
    info[n++] = uint8_t(context.size());
    if (!context.empty()) std::memcpy(info + n, context.data(), context.size());
    n += context.size();
    out.assign(length, 0);
    uint8_t t[EVP_MAX_MD_SIZE];
    size_t t_len = 0;
    bool ok = true;
    for (size_t at = 0, i = 1; ok && at < length; ++i) {
        const uint8_t counter = uint8_t(i);
        ok = hmac_parts(digest, secret, {View(t, t_len), View(info, n), View(&counter, 1)}, t, t_len);
        const size_t take = std::min(t_len, length - at);
        if (ok) std::memcpy(out.data() + at, t, take);
        at += take;
    }
    OPENSSL_cleanse(t, sizeof t);
    if (!ok) {
        OPENSSL_cleanse(out.data(), out.size());
        out.clear();
    }
    return ok;
}

bool tls_prf(const char* digest, View secret, std::string_view label, View seed, size_t length, Bytes& out) {
    std::string lab(label);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, mut(secret), secret.size()),
        // Several seed parameters are concatenated: label || seed.
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, lab.data(), lab.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, mut(seed), seed.size()),
        OSSL_PARAM_construct_end(),
    };
    return derive("TLS1-PRF", params, length, out);
}

size_t aead_tag_size(TlsCipherKind kind) { return kind == TlsCipherKind::Ccm8 ? 8 : 16; }

struct AeadOpener::Ctx {
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> c;  // freeing it wipes the key schedule
    size_t nonce_len = 0;  // asked of libcrypto once: a provider call per record was 0.5 % of HTTPS
};

AeadOpener::AeadOpener() = default;
AeadOpener::~AeadOpener() = default;
void AeadOpener::clear() { ctx_.reset(); }

bool AeadOpener::set_key(TlsCipherKind kind, const char* cipher, View key, size_t nonce_len) {
    ctx_.reset();
    if (kind == TlsCipherKind::Cbc) return false;
    const EVP_CIPHER* c = cipher_by_name(cipher);
    auto x = std::make_unique<Ctx>();
    x->c.reset(EVP_CIPHER_CTX_new());
    EVP_CIPHER_CTX* ctx = x->c.get();
    if (!c || !ctx) return false;
    if (EVP_DecryptInit_ex(ctx, c, nullptr, nullptr, nullptr) != 1) return false;
    if (EVP_CIPHER_CTX_get_key_length(ctx) != int(key.size())) return false;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, int(nonce_len), nullptr) != 1) return false;
    // CCM fixes the tag length with the key (it is in every block's flags).
    bool ccm = kind == TlsCipherKind::Ccm || kind == TlsCipherKind::Ccm8;
    if (ccm && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, int(aead_tag_size(kind)), nullptr) != 1) return false;
    if (EVP_DecryptInit_ex(ctx, nullptr, nullptr, key.data(), nullptr) != 1) return false;
    if (EVP_CIPHER_CTX_get_iv_length(ctx) != int(nonce_len)) return false;
    x->nonce_len = nonce_len;
    kind_ = kind;
    ctx_ = std::move(x);
    return true;
}

bool AeadOpener::open(View nonce, View aad, View sealed, Bytes& out) {
    const size_t tag_len = aead_tag_size(kind_);
    if (!ctx_ || sealed.size() < tag_len) return false;
    EVP_CIPHER_CTX* ctx = ctx_->c.get();
    if (nonce.size() != ctx_->nonce_len) return false;
    const size_t n = sealed.size() - tag_len;
    View tag = sealed.subspan(n);
    bool ccm = kind_ == TlsCipherKind::Ccm || kind_ == TlsCipherKind::Ccm8;
    int len = 0;
    // CCM takes the expected tag before the data; the others after. Only
    // the nonce is set per record: the key schedule stays.
    if (ccm && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, int(tag_len), mut(tag)) != 1) return false;
    if (EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data()) != 1) return false;
    if (ccm && EVP_DecryptUpdate(ctx, nullptr, &len, nullptr, int(n)) != 1) return false;
    if (!aad.empty() && EVP_DecryptUpdate(ctx, nullptr, &len, aad.data(), int(aad.size())) != 1) return false;
    out.resize(n + 16);
    int got = 0;
    auto reject = [&] {
        OPENSSL_cleanse(out.data(), out.size());
        out.clear();
        return false;
    };
    // CCM verifies the tag in this call; GCM and ChaCha20-Poly1305 in Final.
    if (EVP_DecryptUpdate(ctx, out.data(), &got, sealed.data(), int(n)) != 1) return reject();
    if (!ccm) {
        if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, int(tag_len), mut(tag)) != 1) return reject();
        int fin = 0;
        if (EVP_DecryptFinal_ex(ctx, out.data() + got, &fin) != 1) return reject();
        got += fin;
    }
    out.resize(size_t(got));
    return true;
}

bool aead_seal(TlsCipherKind kind, const char* cipher, View key, View nonce, View aad, View plain, Bytes& out) {
    if (kind == TlsCipherKind::Ccm || kind == TlsCipherKind::Ccm8 || kind == TlsCipherKind::Cbc) return false;
    const size_t tag_len = aead_tag_size(kind);
    const EVP_CIPHER* c = cipher_by_name(cipher);
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!c || !ctx) return false;
    int len = 0;
    if (EVP_EncryptInit_ex(ctx.get(), c, nullptr, nullptr, nullptr) != 1) return false;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, int(nonce.size()), nullptr) != 1) return false;
    if (EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data()) != 1) return false;
    if (!aad.empty() && EVP_EncryptUpdate(ctx.get(), nullptr, &len, aad.data(), int(aad.size())) != 1) return false;
    out.resize(plain.size() + 16 + tag_len);
    int got = 0, fin = 0;
    if (EVP_EncryptUpdate(ctx.get(), out.data(), &got, plain.data(), int(plain.size())) != 1) return false;
    if (EVP_EncryptFinal_ex(ctx.get(), out.data() + got, &fin) != 1) return false;
    got += fin;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, int(tag_len), out.data() + got) != 1) return false;
    out.resize(size_t(got) + tag_len);
    return true;
}

bool cbc_decrypt(const char* cipher, View key, View iv, View ciphertext, Bytes& out) {
    const EVP_CIPHER* c = cipher_by_name(cipher);
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!c || !ctx || ciphertext.empty() || ciphertext.size() % 16) return false;
    if (EVP_DecryptInit_ex(ctx.get(), c, nullptr, key.data(), iv.data()) != 1) return false;
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);  // TLS padding is checked by the caller, with the MAC
    out.resize(ciphertext.size() + 16);
    int got = 0, fin = 0;
    if (EVP_DecryptUpdate(ctx.get(), out.data(), &got, ciphertext.data(), int(ciphertext.size())) != 1) return false;
    if (EVP_DecryptFinal_ex(ctx.get(), out.data() + got, &fin) != 1) return false;
    out.resize(size_t(got + fin));
    return true;
}

bool hmac(const char* digest, View key, View a, View b, Bytes& out) {
    out.resize(EVP_MAX_MD_SIZE);
    size_t len = 0;
    const bool ok = hmac_parts(digest, key, {a, b}, out.data(), len);
    out.resize(len);
    return ok;
}

} // namespace stallscope::tlscrypto
