#include "app/cli/synthetic_tls.h"

#include "dissectors/tls/tls_crypto.h"

namespace stallscope::cli {

namespace tc = tlscrypto;

namespace {

constexpr const char* kDigest = "SHA256";   // TLS_AES_128_GCM_SHA256
constexpr const char* kCipher = "AES-128-GCM";
constexpr uint16_t kSuite = 0x1301;

void put8(std::string& s, unsigned v) { s.push_back(char(uint8_t(v))); }
void put16(std::string& s, unsigned v) { put8(s, v >> 8); put8(s, v); }
void put24(std::string& s, unsigned v) { put8(s, v >> 16); put16(s, v & 0xFFFF); }
template <class C> void put_bytes(std::string& s, const C& c) { s.append(c.begin(), c.end()); }

std::string handshake(uint8_t type, const std::string& body) {
    std::string m;
    put8(m, type);
    put24(m, unsigned(body.size()));
    return m + body;
}

std::string clear_record(uint8_t type, uint16_t version, const std::string& body) {
    std::string r;
    put8(r, type);
    put16(r, version);
    put16(r, unsigned(body.size()));
    return r + body;
}

std::string hex(const std::vector<uint8_t>& v) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t b : v) { s += d[b >> 4]; s += d[b & 15]; }
    return s;
}

} // namespace

SyntheticTls::SyntheticTls(uint64_t index) {
    std::vector<uint8_t> seed(32);
    for (size_t i = 0; i < 8; ++i) seed[i] = uint8_t(index >> (8 * i));
    tc::Bytes out;
    ok_ = tc::hkdf_expand_label(kDigest, seed, "client random", {}, 32, out);
    std::copy(out.begin(), out.end(), client_random_.begin());
    ok_ = ok_ && tc::hkdf_expand_label(kDigest, seed, "server random", {}, 32, out);
    std::copy(out.begin(), out.end(), server_random_.begin());
    const char* labels[2][2] = {{"c hs", "c ap"}, {"s hs", "s ap"}};
    for (int d = 0; d < 2; ++d) {
        Dir& x = dir_[d];
        ok_ = ok_ && tc::hkdf_expand_label(kDigest, seed, labels[d][0], {}, 32, x.hs_secret) &&
              tc::hkdf_expand_label(kDigest, seed, labels[d][1], {}, 32, x.app_secret) &&
              tc::hkdf_expand_label(kDigest, x.hs_secret, "key", {}, 16, x.hs_key) &&
              tc::hkdf_expand_label(kDigest, x.hs_secret, "iv", {}, 12, x.hs_iv) &&
              tc::hkdf_expand_label(kDigest, x.app_secret, "key", {}, 16, x.app_key) &&
              tc::hkdf_expand_label(kDigest, x.app_secret, "iv", {}, 12, x.app_iv);
    }
}

std::string SyntheticTls::client_hello() const {
    std::string b;
    put16(b, 0x0303);
    put_bytes(b, client_random_);
    put8(b, 0);                 // no legacy session id
    put16(b, 2);
    put16(b, kSuite);
    put8(b, 1);
    put8(b, 0);                 // null compression
    std::string ext;
    put16(ext, 43);             // supported_versions: TLS 1.3
    put16(ext, 3);
    put8(ext, 2);
    put16(ext, 0x0304);
    put16(b, unsigned(ext.size()));
    b += ext;
    return clear_record(22, 0x0301, handshake(1, b));
}

std::string SyntheticTls::server_flight() {
    std::string b;
    put16(b, 0x0303);
    put_bytes(b, server_random_);
    put8(b, 0);
    put16(b, kSuite);
    put8(b, 0);
    std::string ext;
    put16(ext, 43);
    put16(ext, 2);
    put16(ext, 0x0304);
    put16(b, unsigned(ext.size()));
    b += ext;
    std::string hello = clear_record(22, 0x0303, handshake(2, b));
    std::string ee = handshake(8, std::string("\0\0", 2));  // no extensions
    std::string fin = handshake(20, std::string(32, '\x5a'));
    return hello + record(dir_[1], ee + fin, 22);
}

std::string SyntheticTls::client_finished() { return record(dir_[0], handshake(20, std::string(32, '\xa5')), 22); }

std::string SyntheticTls::seal(bool from_client, const std::string& plain) {
    // One write, as many records as 2^14 bytes of plaintext a record allows (RFC 8446 5.1).
    constexpr size_t kMaxPlain = 16384;
    std::string out;
    for (size_t at = 0; at < plain.size() || at == 0; at += kMaxPlain)
        out += record(dir_[from_client ? 0 : 1], plain.substr(at, kMaxPlain), 23);
    return out;
}

// One TLS 1.3 record (RFC 8446 5.2): the inner plaintext and its type,
// sealed with the epoch's key and the IV xor the record number; a
// handshake Finished moves the direction to its application keys.
std::string SyntheticTls::record(Dir& d, const std::string& inner, uint8_t inner_type) {
    std::string plain = inner;
    put8(plain, inner_type);
    std::string hdr;
    put8(hdr, 23);
    put16(hdr, 0x0303);
    put16(hdr, unsigned(plain.size() + 16));
    std::vector<uint8_t> nonce = d.app ? d.app_iv : d.hs_iv;
    for (int i = 0; i < 8; ++i) nonce[11 - i] ^= uint8_t(d.seq >> (8 * i));
    tc::Bytes sealed;
    const auto* p = reinterpret_cast<const uint8_t*>(plain.data());
    const auto* h = reinterpret_cast<const uint8_t*>(hdr.data());
    ok_ = tc::aead_seal(TlsCipherKind::Gcm, kCipher, d.app ? d.app_key : d.hs_key, nonce, tc::View(h, hdr.size()),
                        tc::View(p, plain.size()), sealed) && ok_;
    ++d.seq;
    if (!d.app && inner_type == 22 && inner.size() >= 36 && uint8_t(inner[inner.size() - 36]) == 20) {
        d.app = true;  // the Finished was the epoch's last record
        d.seq = 0;
    }
    hdr.append(sealed.begin(), sealed.end());
    return hdr;
}

std::string SyntheticTls::keylog_lines() const {
    const std::string cr = hex(std::vector<uint8_t>(client_random_.begin(), client_random_.end()));
    return "CLIENT_HANDSHAKE_TRAFFIC_SECRET " + cr + " " + hex(dir_[0].hs_secret) + "\n" +
           "SERVER_HANDSHAKE_TRAFFIC_SECRET " + cr + " " + hex(dir_[1].hs_secret) + "\n" +
           "CLIENT_TRAFFIC_SECRET_0 " + cr + " " + hex(dir_[0].app_secret) + "\n" +
           "SERVER_TRAFFIC_SECRET_0 " + cr + " " + hex(dir_[1].app_secret) + "\n";
}

} // namespace stallscope::cli
