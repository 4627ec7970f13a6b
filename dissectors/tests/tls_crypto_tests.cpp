// TLS key derivation against the RFC 8448 test vectors (section 3, a simple
// 1-RTT handshake with TLS_AES_128_GCM_SHA256), and the RFC 8446 KeyUpdate rule.
#include "dissectors/tls/tls_crypto.h"

#include <catch2/catch.hpp>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>

#include <array>
#include <string>
#include <vector>

using namespace stallscope;
namespace tc = stallscope::tlscrypto;

namespace {

tc::Bytes hex(const std::string& s) {
    tc::Bytes b;
    for (size_t i = 0; i + 1 < s.size(); i += 2) b.push_back(uint8_t(std::stoi(s.substr(i, 2), nullptr, 16)));
    return b;
}

tc::Bytes expand(const tc::Bytes& secret, const char* label, size_t n) {
    tc::Bytes out;
    REQUIRE(tc::hkdf_expand_label("SHA256", secret, label, {}, n, out));
    return out;
}

} // namespace

TEST_CASE("HKDF-Expand-Label gives the RFC 8448 traffic keys and IVs") {
    auto server_hs = hex("b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38");
    auto client_hs = hex("b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21");
    auto server_app = hex("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643");
    CHECK(expand(server_hs, "key", 16) == hex("3fce516009c21727d0f2e4e86ee403bc"));
    CHECK(expand(server_hs, "iv", 12) == hex("5d313eb2671276ee13000b30"));
    CHECK(expand(client_hs, "key", 16) == hex("dbfaa693d1762c5b666af5d950258d01"));
    CHECK(expand(client_hs, "iv", 12) == hex("5bd3c71b836e0b76bb73265f"));
    CHECK(expand(server_app, "key", 16) == hex("9f02283b6c9c07efc26bb9f2ac92e356"));
    CHECK(expand(server_app, "iv", 12) == hex("cf782b88dd83549aadf1e984"));
}

// HMAC and HKDF-Expand-Label are composed in tls_crypto.cpp from libcrypto's
// digests (for speed): on random keys, labels, contexts and lengths (past
// one digest's output, keys past a block) they must give exactly what
// libcrypto's own EVP_MAC HMAC and TLS13-KDF give.
TEST_CASE("HMAC and HKDF-Expand-Label equal libcrypto's EVP_MAC and TLS13-KDF on random inputs") {
    uint64_t x = 11;
    auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return uint32_t(x >> 33); };
    auto bytes = [&](size_t n) {
        tc::Bytes b(n);
        for (auto& v : b) v = uint8_t(next());
        return b;
    };
    auto lib_kdf = [](const char* digest, const tc::Bytes& secret, const std::string& label, const tc::Bytes& context,
                      size_t length) {
        EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "TLS13-KDF", nullptr);
        EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
        int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
        static uint8_t empty = 0;
        std::string prefix = "tls13 ", lab = label;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
            OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(secret.data()), secret.size()),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, prefix.data(), prefix.size()),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, lab.data(), lab.size()),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, context.empty() ? &empty : const_cast<uint8_t*>(context.data()),
                                              context.size()),
            OSSL_PARAM_construct_end(),
        };
        tc::Bytes out(length);
        const bool ok = EVP_KDF_derive(ctx, out.data(), out.size(), params) == 1;
        EVP_KDF_CTX_free(ctx);
        EVP_KDF_free(kdf);
        REQUIRE(ok);
        return out;
    };
    auto lib_hmac = [](const char* digest, const tc::Bytes& key, const tc::Bytes& a, const tc::Bytes& b) {
        tc::Bytes out(EVP_MAX_MD_SIZE);
        unsigned int len = 0;
        tc::Bytes msg = a;
        msg.insert(msg.end(), b.begin(), b.end());
        static uint8_t empty = 0;
        REQUIRE(HMAC(EVP_get_digestbyname(digest), key.empty() ? &empty : key.data(), int(key.size()),
                     msg.empty() ? &empty : msg.data(), msg.size(), out.data(), &len));
        out.resize(len);
        return out;
    };
    const std::vector<std::string> labels = {"key", "iv", "traffic upd", "finished", "c hs traffic", ""};
    for (int round = 0; round < 200; ++round) {
        const char* digest = round % 2 ? "SHA384" : "SHA256";
        const tc::Bytes secret = bytes(round % 3 ? tc::digest_size(digest) : 1 + next() % 64);
        const std::string label = labels[next() % labels.size()];
        const tc::Bytes context = bytes(next() % 3 == 0 ? 0 : next() % 49);
        const size_t length = 1 + next() % 100;  // up to two or four digests' output
        CAPTURE(round, digest, label, context.size(), length);
        tc::Bytes ours;
        REQUIRE(tc::hkdf_expand_label(digest, secret, label, context, length, ours));
        CHECK(ours == lib_kdf(digest, secret, label, context, length));
    }
    for (int round = 0; round < 200; ++round) {
        const char* digest = std::array<const char*, 4>{"SHA1", "SHA256", "SHA384", "MD5"}[round % 4];
        const tc::Bytes key = bytes(next() % 200), a = bytes(next() % 40), b = bytes(next() % 300);  // keys past a block too
        CAPTURE(round, digest, key.size(), a.size(), b.size());
        tc::Bytes ours;
        REQUIRE(tc::hmac(digest, key, a, b, ours));
        CHECK(ours == lib_hmac(digest, key, a, b));
    }
    tc::Bytes out;
    CHECK_FALSE(tc::hkdf_expand_label("no-such-digest", bytes(32), "key", {}, 16, out));
    CHECK_FALSE(tc::hkdf_expand_label("SHA256", bytes(32), "key", {}, 255 * 32 + 1, out));  // past HKDF's limit
    CHECK_FALSE(tc::hmac("no-such-digest", bytes(32), {}, {}, out));
}

TEST_CASE("digest sizes come from libcrypto") {
    CHECK(tc::digest_size("SHA256") == 32);
    CHECK(tc::digest_size("SHA384") == 48);
}

// One AEAD context keyed once and used for many records (each its own
// nonce): every record opens as if with a fresh context, a forged one is
// refused without plaintext, and the context still opens the next record.
TEST_CASE("AeadOpener: one keyed context opens record after record, a forged one in between included") {
    struct Suite { TlsCipherKind kind; const char* cipher; size_t key_len; };
    for (Suite s : {Suite{TlsCipherKind::Gcm, "AES-128-GCM", 16}, Suite{TlsCipherKind::Gcm, "AES-256-GCM", 32},
                    Suite{TlsCipherKind::ChaCha20Poly1305, "ChaCha20-Poly1305", 32}}) {
        CAPTURE(s.cipher);
        tc::Bytes key(s.key_len), other(s.key_len);
        for (size_t i = 0; i < key.size(); ++i) { key[i] = uint8_t(i * 7 + 1); other[i] = uint8_t(i * 5 + 3); }
        const uint8_t aad[5] = {23, 3, 3, 0, 0};
        std::vector<tc::Bytes> sealed, plain;
        std::vector<std::array<uint8_t, 12>> nonces;
        for (int r = 0; r < 4; ++r) {
            std::array<uint8_t, 12> nonce{};
            nonce[11] = uint8_t(r);
            nonce[0] = 0x5a;
            tc::Bytes p(size_t(100 + 37 * r), uint8_t('a' + r)), c;
            REQUIRE(tc::aead_seal(s.kind, s.cipher, key, nonce, aad, p, c));
            nonces.push_back(nonce);
            plain.push_back(p);
            sealed.push_back(c);
        }
        sealed[2][5] ^= 1;  // forged
        tc::AeadOpener opener;
        REQUIRE_FALSE(opener.ready());
        REQUIRE(opener.set_key(s.kind, s.cipher, key, 12));
        tc::Bytes out;
        for (int r = 0; r < 4; ++r) {
            bool ok = opener.open(nonces[size_t(r)], aad, sealed[size_t(r)], out);
            if (r == 2) {
                CHECK_FALSE(ok);
                CHECK(out.empty());
            } else {
                CHECK(ok);
                CHECK(out == plain[size_t(r)]);
            }
        }
        CHECK_FALSE(opener.open(nonces[0], aad, sealed[1], out));  // the wrong record's nonce
        CHECK(opener.open(nonces[3], aad, sealed[3], out));
        // Keyed again (a KeyUpdate): the old key's records no longer open.
        REQUIRE(opener.set_key(s.kind, s.cipher, other, 12));
        CHECK_FALSE(opener.open(nonces[0], aad, sealed[0], out));
        CHECK_FALSE(opener.set_key(s.kind, s.cipher, tc::Bytes(s.key_len - 1), 12));  // a key of the wrong size
        CHECK_FALSE(opener.ready());
    }
}
