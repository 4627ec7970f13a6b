// Decryption against real TLS: OpenSSL's libssl (in this test only) runs a
// client and a server over memory buffers, logging its secrets in the NSS
// key log format; the bytes each side sent are then framed, parsed and
// decrypted by our code alone and must give back exactly what each side
// wrote. Covers every record protection we claim: TLS 1.3 GCM, ChaCha20,
// CCM, CCM_8 and KeyUpdate; TLS 1.2 GCM, ChaCha20, CBC with SHA1/SHA384 with
// and without encrypt-then-MAC, RSA key exchange; TLS 1.1 and 1.0 CBC;
// resumption; and a wrong key failing authentication.
#include "dissectors/tls/keylog.h"
#include "dissectors/tls/tls_connection.h"
#include "dissectors/tls/tls_decryptor.h"

#include <catch2/catch.hpp>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

struct Cert {
    EVP_PKEY* key = nullptr;
    X509* x509 = nullptr;
    Cert() {
        key = EVP_RSA_gen(2048);
        x509 = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(x509), 1);
        X509_gmtime_adj(X509_getm_notBefore(x509), 0);
        X509_gmtime_adj(X509_getm_notAfter(x509), 3600);
        X509_set_pubkey(x509, key);
        X509_NAME* name = X509_get_subject_name(x509);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("test"), -1, -1, 0);
        X509_set_issuer_name(x509, name);
        X509_sign(x509, key, EVP_sha256());
    }
    ~Cert() { X509_free(x509); EVP_PKEY_free(key); }
};

const Cert& cert() {
    static Cert c;  // one RSA key for every case (generating one takes a while)
    return c;
}

std::string g_keylog;
void keylog_cb(const SSL*, const char* line) { g_keylog += std::string(line) + "\n"; }

struct Config {
    int version = TLS1_3_VERSION;
    const char* suites13 = nullptr;  // TLS 1.3 ciphersuites
    const char* cipher12 = nullptr;  // TLS <= 1.2 cipher list
    bool no_etm = false;
    bool key_update = false;
};

// The bytes in wire order, with the direction that sent them.
struct Chunk { Side from; std::string bytes; };

struct Pair {
    SSL_CTX* cctx;
    SSL_CTX* sctx;
    SSL* c = nullptr;
    SSL* s = nullptr;
    BIO *c_in, *c_out, *s_in, *s_out;
    std::vector<Chunk> wire;

    // `server`: the server context of an earlier Pair (its ticket key resumes that session).
    explicit Pair(const Config& cfg, SSL_SESSION* resume = nullptr, SSL_CTX* server = nullptr) {
        cctx = SSL_CTX_new(TLS_client_method());
        sctx = server ? server : SSL_CTX_new(TLS_server_method());
        if (server) SSL_CTX_up_ref(server);
        for (SSL_CTX* x : {cctx, sctx}) {
            SSL_CTX_set_security_level(x, 0);
            SSL_CTX_set_min_proto_version(x, cfg.version);
            SSL_CTX_set_max_proto_version(x, cfg.version);
            if (cfg.suites13) SSL_CTX_set_ciphersuites(x, cfg.suites13);
            if (cfg.cipher12) SSL_CTX_set_cipher_list(x, (std::string(cfg.cipher12) + ":@SECLEVEL=0").c_str());
            SSL_CTX_set_keylog_callback(x, keylog_cb);
        }
        SSL_CTX_set_session_cache_mode(cctx, SSL_SESS_CACHE_CLIENT);
        SSL_CTX_use_certificate(sctx, cert().x509);
        SSL_CTX_use_PrivateKey(sctx, cert().key);
        if (cfg.no_etm) SSL_CTX_set_options(cctx, SSL_OP_NO_ENCRYPT_THEN_MAC);
        c = SSL_new(cctx);
        s = SSL_new(sctx);
        c_in = BIO_new(BIO_s_mem()); c_out = BIO_new(BIO_s_mem());
        s_in = BIO_new(BIO_s_mem()); s_out = BIO_new(BIO_s_mem());
        SSL_set_bio(c, c_in, c_out);
        SSL_set_bio(s, s_in, s_out);
        SSL_set_connect_state(c);
        SSL_set_accept_state(s);
        if (resume) SSL_set_session(c, resume);
    }
    ~Pair() { SSL_free(c); SSL_free(s); SSL_CTX_free(cctx); SSL_CTX_free(sctx); }

    // Moves what each side wrote to the other, recording it; true if anything moved.
    bool pump() {
        bool moved = false;
        for (Side side : kSides) {
            BIO* from = side == Side::Client ? c_out : s_out;
            BIO* to = side == Side::Client ? s_in : c_in;
            char buf[65536];
            int n;
            while ((n = BIO_read(from, buf, sizeof buf)) > 0) {
                wire.push_back({side, std::string(buf, size_t(n))});
                BIO_write(to, buf, n);
                moved = true;
            }
        }
        return moved;
    }
    bool handshake() {
        for (int i = 0; i < 50; ++i) {
            int rc = SSL_do_handshake(c);
            int rs = SSL_do_handshake(s);
            bool moved = pump();
            if (rc == 1 && rs == 1 && !moved) return true;
        }
        return false;
    }
    void send(Side from, const std::string& data) {
        SSL_write(from == Side::Client ? c : s, data.data(), int(data.size()));
        pump();
        // The peer reads it (and so takes post-handshake messages such as tickets and KeyUpdate).
        char buf[65536];
        while (SSL_read(from == Side::Client ? s : c, buf, sizeof buf) > 0) {}
        pump();
    }
};

// Our side: frame, parse, decrypt; the application data of each direction.
struct Decrypt : TlsConnectionListener {
    TlsConnectionParser parser{*this};
    TlsKeyStore keys;
    std::unique_ptr<TlsDecryptor> dec;
    TlsDecryptFailure why = TlsDecryptFailure::None;
    PerSide<std::string> app;
    int auth_failures = 0;
    PerSide<uint64_t> off = {0, 0};

    void on_tls_record(Side from, const TlsRecord& r, bool encrypted, uint32_t) override {
        if (!encrypted) return;
        if (!dec && why == TlsDecryptFailure::None) {
            const auto& i = parser.info();
            REQUIRE(i.client_hello);
            REQUIRE(i.server_hello);
            auto secrets = keys.find(i.client_hello->random);
            REQUIRE(secrets);
            dec = TlsDecryptor::create(i.version, i.cipher_suite, i.client_hello->random, i.server_hello->random, *secrets,
                                       i.client_hello->encrypt_then_mac && i.server_hello->encrypt_then_mac, why);
            REQUIRE(dec);
        }
        std::vector<uint8_t> plain;
        uint8_t inner = 0;
        auto res = dec->decrypt(from, r, plain, inner);
        if (res != TlsDecryptor::Result::Ok) { ++auth_failures; return; }
        if (inner == 22) parser.feed_decrypted_handshake(from, plain, 0);
        if (inner == 23) app[from].append(plain.begin(), plain.end());
    }
    void on_tls_error(Side from, TlsError code, uint64_t, uint64_t) override {
        if (code == TlsError::Gap && dec) dec->on_gap(from);
    }
    void on_tls_handshake(Side from, const HandshakeMessage& m) override {
        if (dec) dec->on_handshake_message(from, m.type, m.body);
    }
    // `lost`: the index of a chunk never captured (a gap in its direction).
    void feed(const std::vector<Chunk>& wire, size_t lost = SIZE_MAX) {
        for (size_t i = 0; i < wire.size(); ++i) {
            const Chunk& c = wire[i];
            if (i == lost) {
                parser.gap(c.from, off[c.from], c.bytes.size(), 0);
                off[c.from] += c.bytes.size();
                continue;
            }
            parser.feed(c.from, off[c.from], std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size()), 0);
            off[c.from] += c.bytes.size();
        }
    }
};

const std::string kRequest = "POST /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
const std::string kResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n" + std::string(2000, 'r');

// One connection with `cfg`: request, response, a second exchange.
void round_trip(const Config& cfg) {
    g_keylog.clear();
    Pair p(cfg);
    REQUIRE(p.handshake());
    p.send(Side::Client, kRequest);
    p.send(Side::Server, kResponse);
    if (cfg.key_update) {
        REQUIRE(SSL_key_update(p.c, SSL_KEY_UPDATE_REQUESTED) == 1);
    }
    p.send(Side::Client, kRequest + "2");
    p.send(Side::Server, kResponse + "2");
    Decrypt d;
    REQUIRE(d.keys.add_key_log(g_keylog, "test", {}) > 0);
    d.feed(p.wire);
    CHECK(d.auth_failures == 0);
    CHECK(d.app[Side::Client] == kRequest + kRequest + "2");
    CHECK(d.app[Side::Server] == kResponse + kResponse + "2");
    CHECK(d.parser.info().version == uint16_t(cfg.version));
}

// Lower-case hex of `v`, as key log lines write secrets.
std::string to_hex(const std::vector<uint8_t>& v) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (uint8_t b : v) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

} // namespace

TEST_CASE("TLS 1.3 decrypts with every AEAD suite") {
    for (const char* s : {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                          "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"}) {
        INFO(s);
        Config c;
        c.suites13 = s;
        round_trip(c);
    }
}

TEST_CASE("TLS 1.3 KeyUpdate: the next secret is derived, both directions keep decrypting") {
    Config c;
    c.suites13 = "TLS_AES_128_GCM_SHA256";
    c.key_update = true;
    round_trip(c);
}

TEST_CASE("TLS 1.2 decrypts with AEAD and CBC suites, with and without encrypt-then-MAC") {
    struct Case { const char* cipher; bool no_etm; };
    for (Case k : {Case{"ECDHE-RSA-AES128-GCM-SHA256", false}, Case{"ECDHE-RSA-AES256-GCM-SHA384", false},
                   Case{"ECDHE-RSA-CHACHA20-POLY1305", false}, Case{"ECDHE-RSA-AES128-SHA", false},
                   Case{"ECDHE-RSA-AES128-SHA", true}, Case{"ECDHE-RSA-AES256-SHA384", true},
                   Case{"AES128-GCM-SHA256", false}, Case{"AES256-SHA256", false}}) {
        INFO(k.cipher << (k.no_etm ? " MAC-then-encrypt" : ""));
        Config c;
        c.version = TLS1_2_VERSION;
        c.cipher12 = k.cipher;
        c.no_etm = k.no_etm;
        round_trip(c);
    }
}

TEST_CASE("TLS 1.1 and 1.0 CBC (the 1.0 IV chained from record to record)") {
    for (int v : {TLS1_1_VERSION, TLS1_VERSION}) {
        for (bool no_etm : {false, true}) {
            INFO(v << (no_etm ? " MAC-then-encrypt" : ""));
            Config c;
            c.version = v;
            c.cipher12 = "ECDHE-RSA-AES128-SHA";
            c.no_etm = no_etm;
            round_trip(c);
        }
    }
}

TEST_CASE("TLS 1.2 resumption: the abbreviated handshake is seen as resumed and decrypts") {
    Config c;
    c.version = TLS1_2_VERSION;
    c.cipher12 = "ECDHE-RSA-AES128-GCM-SHA256";
    g_keylog.clear();
    Pair first(c);
    REQUIRE(first.handshake());
    first.send(Side::Client, kRequest);
    SSL_SESSION* session = SSL_get1_session(first.c);
    REQUIRE(session);
    Pair second(c, session, first.sctx);
    REQUIRE(second.handshake());
    second.send(Side::Client, kRequest);
    second.send(Side::Server, kResponse);
    SSL_SESSION_free(session);
    Decrypt d;
    d.keys.add_key_log(g_keylog, "test", {});
    d.feed(second.wire);
    CHECK(d.parser.info().resumed);
    CHECK(d.parser.info().certificate_bytes == 0);
    CHECK(d.app[Side::Client] == kRequest);
    CHECK(d.app[Side::Server] == kResponse);
}

TEST_CASE("records lost in a gap: the next record's sequence number is found, decryption goes on") {
    Config c13, c12, cbc;
    c13.suites13 = "TLS_AES_128_GCM_SHA256";
    c12.version = cbc.version = TLS1_2_VERSION;
    c12.cipher12 = "ECDHE-RSA-AES128-GCM-SHA256";
    cbc.cipher12 = "ECDHE-RSA-AES128-SHA256";
    for (const Config& cfg : {c13, c12, cbc}) {
        g_keylog.clear();
        Pair p(cfg);
        REQUIRE(p.handshake());
        size_t lost = SIZE_MAX;
        std::string expected;
        for (int i = 0; i < 5; ++i) {
            std::string w = "write " + std::to_string(i) + " " + std::string(100 + i, 'x');
            if (i == 2) lost = p.wire.size();  // the chunk this write makes
            else expected += w;
            p.send(Side::Client, w);
        }
        Decrypt d;
        d.keys.add_key_log(g_keylog, "test", {});
        d.feed(p.wire, lost);
        CHECK(d.auth_failures == 0);
        CHECK(d.app[Side::Client] == expected);
    }
}

TEST_CASE("a wrong key fails authentication, never gives plaintext") {
    Config c;
    c.suites13 = "TLS_AES_128_GCM_SHA256";
    g_keylog.clear();
    Pair p(c);
    REQUIRE(p.handshake());
    p.send(Side::Client, kRequest);
    // Change one hex digit of every secret.
    std::string bad = g_keylog;
    for (size_t at = bad.find('\n'); at != std::string::npos && at > 0; at = bad.find('\n', at + 1))
        bad[at - 1] = bad[at - 1] == '0' ? '1' : '0';
    Decrypt d;
    d.keys.add_key_log(bad, "test", {});
    d.feed(p.wire);
    CHECK(d.auth_failures > 0);
    CHECK(d.app[Side::Client].empty());
}

TEST_CASE("key log: unknown labels ignored, malformed lines warned by number without their contents") {
    TlsKeyStore keys;
    std::vector<std::string> warnings;
    std::string random(64, 'a'), secret(96, 'b');
    std::string text = "# comment\n"
                       "EXPORTER_SECRET " + random + " " + std::string(64, 'c') + "\n"
                       "CLIENT_RANDOM " + random + " " + secret + "\n"
                       "CLIENT_RANDOM " + random + " deadbeefzz\n"
                       "CLIENT_TRAFFIC_SECRET_0 " + random + "\n"
                       "SERVER_TRAFFIC_SECRET_0 abcd " + std::string(64, 'd') + "\r\n"
                       "\n";
    size_t n = keys.add_key_log(text, "keys.txt", [&](const std::string& w) { warnings.push_back(w); });
    CHECK(n == 1);
    REQUIRE(warnings.size() == 3);
    CHECK(warnings[0] == "keys.txt: line 4 is not a valid key log line, ignored");
    CHECK(warnings[1].find("line 5") != std::string::npos);
    CHECK(warnings[2].find("line 6") != std::string::npos);
    for (const auto& w : warnings) {
        CHECK(w.find("deadbeef") == std::string::npos);
        CHECK(w.find("aaaa") == std::string::npos);
    }
    ClientRandom r;
    r.fill(0xaa);
    auto s = keys.find(r);
    REQUIRE(s);
    CHECK(s->master_secret.size() == 48);
    CHECK_FALSE(s->any_tls13());
}

// The store keeps a client random's secrets in one buffer (TlsKeyStore::
// Stored): every label's secret, of every allowed length, added in any
// order, a label given again, must come back exactly in its own field.
TEST_CASE("key log: each label's secret comes back in its own field, whatever the order and a label given again") {
    const std::vector<std::string> labels = {"CLIENT_RANDOM",           "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
                                             "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0",
                                             "SERVER_TRAFFIC_SECRET_0", "CLIENT_EARLY_TRAFFIC_SECRET"};
    auto field = [](const TlsSecrets& s, size_t k) -> const std::vector<uint8_t>& {
        const std::vector<uint8_t>* f[] = {&s.master_secret,    &s.client_handshake, &s.server_handshake,
                                           &s.client_traffic_0, &s.server_traffic_0, &s.client_early};
        return *f[k];
    };
    uint64_t x = 3;
    auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return x >> 33; };
    TlsKeyStore keys;
    std::map<ClientRandom, std::array<std::vector<uint8_t>, 6>> want;
    for (int line = 0; line < 600; ++line) {
        ClientRandom r{};
        r[0] = uint8_t(next() % 40);  // 40 randoms: most get several lines, some a label twice
        const size_t k = next() % labels.size();
        const size_t len = k == 0 ? 48 : std::vector<size_t>{32, 48, 64}[next() % 3];
        std::vector<uint8_t> secret(len);
        for (auto& b : secret) b = uint8_t(next());
        const std::string text = labels[k] + " " + to_hex(std::vector<uint8_t>(r.begin(), r.end())) + " " + to_hex(secret) + "\n";
        REQUIRE(keys.add_key_log(text, "keys", {}) == 1);
        want[r][k] = secret;
    }
    CHECK(keys.size() == want.size());
    for (const auto& [r, fields] : want) {
        auto s = keys.find(r);
        REQUIRE(s);
        for (size_t k = 0; k < labels.size(); ++k) CHECK(field(*s, k) == fields[k]);
    }
    ClientRandom absent{};
    absent[0] = 200;
    CHECK_FALSE(keys.find(absent));
}

// load_file reads a key log in 1 MiB blocks: a line cut by a block's end, a
// CRLF line, a last line without its newline and a line longer than a block
// must all read as in one piece, with the warnings' line numbers right.
TEST_CASE("key log file: read in blocks, every line whole, line numbers right across them") {
    auto bytes_of = [](uint64_t seed, size_t n) {
        std::vector<uint8_t> out(n);
        for (uint8_t& b : out) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            b = uint8_t(seed >> 56);
        }
        return out;
    };
    auto hex = [&](uint64_t seed, size_t n) { return to_hex(bytes_of(seed, n)); };
    auto random_of = [&](uint64_t i) {
        const std::vector<uint8_t> b = bytes_of(i, 32);
        ClientRandom r{};
        std::copy(b.begin(), b.end(), r.begin());
        return r;
    };
    // About 3.3 MB: 20,000 valid lines (some CRLF), a malformed one at line
    // 7,001, a 1.5 MB line at 14,002, another malformed one at the end, then a
    // valid last line without its newline.
    std::string text;
    uint64_t line = 0;
    size_t valid = 0;
    for (uint64_t i = 0; i < 20000; ++i) {
        text += "CLIENT_RANDOM " + hex(i, 32) + " " + hex(i + 1000000, 48) + (i % 7 ? "\n" : "\r\n");
        ++line, ++valid;
        if (line == 7000) text += "CLIENT_RANDOM " + hex(99, 32) + " 12zz\n", ++line;
        if (line == 14001) text += "SERVER_TRAFFIC_SECRET_0 " + std::string(1536 * 1024, 'a') + "\n", ++line;
    }
    text += "CLIENT_RANDOM short\n";
    ++line;
    text += "CLIENT_RANDOM " + hex(777777, 32) + " " + hex(5, 48);
    ++line, ++valid;
    const std::string path = (std::filesystem::temp_directory_path() / "stallscope-keylog-blocks.txt").string();
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    TlsKeyStore keys;
    std::vector<std::string> warnings;
    std::string error;
    REQUIRE(keys.load_file(path, [&](const std::string& w) { warnings.push_back(w); }, error));
    std::remove(path.c_str());
    CHECK(keys.size() == valid);
    REQUIRE(warnings.size() == 3);
    CHECK(warnings[0] == path + ": line 7001 is not a valid key log line, ignored");
    CHECK(warnings[1] == path + ": line 14002 is not a valid key log line, ignored");
    CHECK(warnings[2] == path + ": line " + std::to_string(line - 1) + " is not a valid key log line, ignored");
    for (uint64_t i : {uint64_t(0), uint64_t(6999), uint64_t(7000), uint64_t(13999), uint64_t(14000), uint64_t(19999)}) {
        INFO("line of random " << i);
        auto s = keys.find(random_of(i));
        REQUIRE(s);
        CHECK(s->master_secret == bytes_of(i + 1000000, 48));
    }
    CHECK(keys.find(random_of(777777)));
    std::string missing_error;
    CHECK_FALSE(TlsKeyStore().load_file(path + ".absent", {}, missing_error));
    CHECK(missing_error.find("cannot read the key log") != std::string::npos);
    // A device or a directory is refused at once (/dev/zero would never end).
    for (const std::string& odd : {std::string("/dev/zero"), std::filesystem::temp_directory_path().string()}) {
        INFO(odd);
        std::string odd_error;
        CHECK_FALSE(TlsKeyStore().load_file(odd, {}, odd_error));
        CHECK(odd_error == odd + ": cannot read the key log (not a file)");
    }
}
