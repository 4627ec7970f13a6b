#include "dissectors/tls/tls_crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace stallscope::tlscrypto {

namespace {

struct CtxFree { void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); } };
struct KdfCtxFree { void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); } };
struct MacCtxFree { void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); } };

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

EVP_MAC* hmac_mac() {
    static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    return mac;
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
    const EVP_MD* md = EVP_get_digestbyname(digest);
    return md ? size_t(EVP_MD_get_size(md)) : 0;
}

namespace {

// TLS13-KDF contexts, one per thread and digest, with the mode, digest and
// prefix set once: setting a digest fetches it by name, and a fresh context
// per derivation costs about twice the derivation (a connection derives 8
// to 10 keys and IVs). Each derivation gives the secret and takes it out
// again; a context that cannot forget it is freed (which wipes it).
class Tls13Kdf {
public:
    bool expand_label(const char* digest, View secret, std::string_view label, View context, Bytes& out) {
        Entry* e = find(digest);
        if (!e) return false;
        std::string lab(label);
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, mut(secret), secret.size()),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, lab.data(), lab.size()),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, mut(context), context.size()),
            OSSL_PARAM_construct_end(),
        };
        bool ok = EVP_KDF_derive(e->ctx.get(), out.data(), out.size(), params) == 1;
        OSSL_PARAM forget[] = {
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, &kEmpty, 0),
            OSSL_PARAM_construct_end(),
        };
        if (EVP_KDF_CTX_set_params(e->ctx.get(), forget) != 1) e->ctx.reset();
        return ok;
    }

private:
    struct Entry {
        std::string digest;
        std::unique_ptr<EVP_KDF_CTX, KdfCtxFree> ctx;
    };
    Entry* find(const char* digest) {
        Entry* e = nullptr;
        for (Entry& x : cache_)
            if (x.digest == digest) e = &x;
        if (!e) e = &cache_.emplace_back(Entry{digest, nullptr});
        if (e->ctx) return e;
        EVP_KDF* kdf = kdf_by_name("TLS13-KDF");
        if (!kdf) return nullptr;
        e->ctx.reset(EVP_KDF_CTX_new(kdf));
        int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
        static const char kPrefix[] = "tls13 ";
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
            OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, const_cast<char*>(kPrefix), sizeof kPrefix - 1),
            OSSL_PARAM_construct_end(),
        };
        if (e->ctx && EVP_KDF_CTX_set_params(e->ctx.get(), params) != 1) e->ctx.reset();
        return e->ctx ? e : nullptr;
    }
    std::vector<Entry> cache_;  // a few digests: SHA256, SHA384
};

} // namespace

bool hkdf_expand_label(const char* digest, View secret, std::string_view label, View context, size_t length,
                       Bytes& out) {
    thread_local Tls13Kdf kdf;  // freed at thread exit, before OpenSSL's own cleanup at process exit
    out.assign(length, 0);
    return kdf.expand_label(digest, secret, label, context, out);
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
    kind_ = kind;
    ctx_ = std::move(x);
    return true;
}

bool AeadOpener::open(View nonce, View aad, View sealed, Bytes& out) {
    const size_t tag_len = aead_tag_size(kind_);
    if (!ctx_ || sealed.size() < tag_len) return false;
    EVP_CIPHER_CTX* ctx = ctx_->c.get();
    if (EVP_CIPHER_CTX_get_iv_length(ctx) != int(nonce.size())) return false;
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
    EVP_MAC* mac = hmac_mac();
    if (!mac) return false;
    std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(EVP_MAC_CTX_new(mac));
    if (!ctx) return false;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>(digest), 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1) return false;
    if (EVP_MAC_update(ctx.get(), a.data(), a.size()) != 1 || EVP_MAC_update(ctx.get(), b.data(), b.size()) != 1)
        return false;
    out.resize(EVP_MAX_MD_SIZE);
    size_t len = 0;
    if (EVP_MAC_final(ctx.get(), out.data(), &len, out.size()) != 1) return false;
    out.resize(len);
    return true;
}

} // namespace stallscope::tlscrypto
