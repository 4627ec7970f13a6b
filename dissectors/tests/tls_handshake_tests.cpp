// TLS handshake: reassembly across records, hello parsing, hostile lengths,
// and the connection-level view (version, suite, SNI, ALPN, resumption).
#include "dissectors/tests/tls_builders.h"
#include "dissectors/tls/tls_connection.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace tlstest;

namespace {

struct Msgs : HandshakeListener {
    std::vector<std::pair<uint8_t, Bytes>> msgs;
    std::vector<std::pair<uint64_t, uint64_t>> tags;
    std::vector<TlsError> errors;
    void on_handshake_message(const HandshakeMessage& m) override {
        msgs.push_back({m.type, Bytes(m.body.begin(), m.body.end())});
        tags.push_back({m.first_tag, m.last_tag});
    }
    void on_handshake_error(TlsError code, uint64_t) override { errors.push_back(code); }
};

struct Conn : TlsConnectionListener {
    std::vector<std::tuple<Side, uint8_t, bool, uint32_t>> records;
    std::vector<TlsError> errors;
    void on_tls_record(Side from, const TlsRecord& r, bool enc, uint32_t types) override {
        records.push_back({from, r.type, enc, types});
    }
    void on_tls_error(Side, TlsError code, uint64_t, uint64_t) override { errors.push_back(code); }
};

Bytes tls13_ch_exts() {
    Bytes e = sni_ext("soap.example.com");
    append(e, alpn_ext({"h2", "http/1.1"}));
    append(e, ext(43, vec(Bytes{0x0a, 0x0a, 0x03, 0x04, 0x03, 0x03}, 1)));  // GREASE, 1.3, 1.2
    append(e, ext(51, vec(Bytes{}, 2)));
    append(e, ext(42, {}));
    append(e, ext(41, Bytes{0, 0}));
    return e;
}

} // namespace

TEST_CASE("handshake messages reassembled across records, several per record") {
    Bytes m1 = handshake(11, Bytes(5000, 0xab)), m2 = handshake(14, {}), m3 = handshake(12, Bytes(10, 1));
    Bytes all = m1;
    append(all, m2);
    append(all, m3);
    Msgs l;
    HandshakeReassembler h(l);
    // Records of 3, 4997, 8 and the rest bytes.
    size_t cuts[] = {3, 5000, 5008, all.size()};
    size_t pos = 0;
    for (size_t i = 0; i < 4; ++i) {
        h.feed(std::span<const uint8_t>(all).subspan(pos, cuts[i] - pos), i + 1);
        pos = cuts[i];
    }
    REQUIRE(l.msgs.size() == 3);
    CHECK(l.msgs[0].first == 11);
    CHECK(l.msgs[0].second.size() == 5000);
    CHECK(l.tags[0] == std::pair<uint64_t, uint64_t>{1, 3});
    CHECK(l.msgs[1].first == 14);
    CHECK(l.msgs[1].second.empty());
    CHECK(l.msgs[2].second == Bytes(10, 1));
    CHECK(l.tags[1] == std::pair<uint64_t, uint64_t>{3, 3});
    CHECK(l.tags[2] == std::pair<uint64_t, uint64_t>{4, 4});
    CHECK(l.errors.empty());
}

TEST_CASE("a handshake message longer than the limit stops the direction's handshake parsing") {
    Msgs l;
    HandshakeReassembler h(l, TlsLimits{1000});
    Bytes m = handshake(11, Bytes(2000, 1));
    h.feed(m, 1);
    h.feed(handshake(14, {}), 2);
    REQUIRE(l.errors.size() == 1);
    CHECK(l.errors[0] == TlsError::HandshakeTooLong);
    CHECK(l.msgs.empty());
}

TEST_CASE("ClientHello fields") {
    Bytes ch = client_hello(Bytes(32, 7), tls13_ch_exts());
    TlsError err;
    auto p = parse_client_hello(std::span<const uint8_t>(ch).subspan(4), err);
    REQUIRE(p);
    CHECK(p->sni == "soap.example.com");
    CHECK(p->alpn == std::vector<std::string>{"h2", "http/1.1"});
    CHECK(p->max_version() == 0x0304);
    CHECK(p->session_id.size() == 32);
    CHECK(p->pre_shared_key);
    CHECK(p->early_data);
    CHECK(p->key_share);
    CHECK(p->random[0] == 0x11);
    CHECK(p->cipher_suites == std::vector<uint16_t>{0x1301, 0xc02f});
}

TEST_CASE("bogus lengths inside hellos are malformed, never read past the message") {
    Bytes ch = client_hello({}, tls13_ch_exts());
    std::span<const uint8_t> body = std::span<const uint8_t>(ch).subspan(4);
    TlsError err = TlsError::Gap;
    // Every truncation of the body, and each length byte set to 0xff.
    for (size_t n = 0; n < body.size(); ++n) {
        Bytes cut(body.begin(), body.begin() + ptrdiff_t(n));
        auto p = parse_client_hello(cut, err);
        if (!p) CHECK(err == TlsError::MalformedHandshake);
    }
    for (size_t i = 0; i < body.size(); ++i) {
        Bytes b(body.begin(), body.end());
        b[i] = 0xff;
        (void)parse_client_hello(b, err);
        (void)parse_server_hello(b, err);
        (void)parse_encrypted_extensions(b, err);
        (void)parse_new_session_ticket(b, true, err);
    }
    Bytes no_ext(body.begin(), body.begin() + 2 + 32 + 1 + 2 + 4 + 2);  // up to compression, no extensions
    CHECK(parse_client_hello(no_ext, err));
}

TEST_CASE("a TLS 1.2 connection: version, suite, SNI, ALPN, certificate flight, resumption, encrypted after CCS") {
    Conn l;
    TlsConnectionParser p(l);
    Bytes sid(32, 5);
    Bytes exts = sni_ext("api.example.org");
    append(exts, alpn_ext({"http/1.1"}));
    p.feed(Side::Client, 0, record(22, client_hello(sid, exts), 0x0301), 1);
    Bytes flight = server_hello(Bytes(32, 9), 0xc02f, alpn_ext({"http/1.1"}));
    append(flight, handshake(11, Bytes(3000, 1)));
    append(flight, handshake(14, {}));
    Bytes rec = record(22, flight);
    p.feed(Side::Server, 0, std::span<const uint8_t>(rec).first(100), 2);
    p.feed(Side::Server, 100, std::span<const uint8_t>(rec).subspan(100), 3);
    Bytes c2 = record(22, handshake(16, Bytes(33, 1)));
    append(c2, record(20, {1}));
    append(c2, record(22, Bytes(40, 0x99)));  // encrypted Finished
    p.feed(Side::Client, record(22, client_hello(sid, exts), 0x0301).size(), c2, 4);
    const auto& i = p.info();
    CHECK(i.version == 0x0303);
    CHECK(i.cipher_suite == 0xc02f);
    CHECK(i.sni == "api.example.org");
    CHECK(i.alpn == "http/1.1");
    CHECK_FALSE(i.resumed);  // the server chose another session id
    CHECK(i.certificate_bytes == 3004);
    CHECK(i.certificate_first_tag == 3);
    REQUIRE(l.records.size() == 5);
    CHECK(std::get<3>(l.records[1]) == ((1u << 2) | (1u << 11) | (1u << 14)));
    CHECK_FALSE(std::get<2>(l.records[3]));  // the CCS itself is clear
    CHECK(std::get<2>(l.records[4]));        // the Finished after it is not
    CHECK(l.errors.empty());
}

TEST_CASE("TLS 1.2 resumption: the server echoes the client's session id") {
    Conn l;
    TlsConnectionParser p(l);
    Bytes sid(32, 5);
    p.feed(Side::Client, 0, record(22, client_hello(sid, {})), 1);
    p.feed(Side::Server, 0, record(22, server_hello(sid, 0xc030, {})), 2);
    CHECK(p.info().resumed);
    CHECK(p.info().certificate_bytes == 0);
}

TEST_CASE("TLS 1.3: version from supported_versions, PSK means resumed, HelloRetryRequest skipped") {
    Conn l;
    TlsConnectionParser p(l);
    p.feed(Side::Client, 0, record(22, client_hello(Bytes(32, 1), tls13_ch_exts())), 1);
    Bytes hrr = server_hello(Bytes(32, 1), 0x1301, ext(43, Bytes{3, 4}));
    static const uint8_t kHrr[32] = {0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C,
                                     0x02, 0x1E, 0x65, 0xB8, 0x91, 0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB,
                                     0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};
    std::copy(kHrr, kHrr + 32, hrr.begin() + 6);
    Bytes srv = record(22, hrr);
    p.feed(Side::Server, 0, srv, 2);
    CHECK(p.info().hello_retry);
    CHECK(p.info().version == 0);
    Bytes sh_ext = ext(43, Bytes{3, 4});
    append(sh_ext, ext(41, Bytes{0, 0}));
    Bytes sh = record(22, server_hello(Bytes(32, 1), 0x1302, sh_ext));
    append(sh, record(20, {1}));
    append(sh, record(23, Bytes(100, 3)));
    p.feed(Side::Server, srv.size(), sh, 3);
    CHECK(p.info().version == 0x0304);
    CHECK(p.info().cipher_suite == 0x1302);
    CHECK(p.info().resumed);
    // Decrypted EncryptedExtensions give the ALPN.
    CHECK(p.feed_decrypted_handshake(Side::Server, handshake(8, vec(alpn_ext({"http/1.1"}), 2)), 3) == 1u << 8);  // the types it ended
    CHECK(p.info().alpn == "http/1.1");
    CHECK(std::get<2>(l.records.back()));
}

TEST_CASE("alerts in the middle are named, not parsed as handshake") {
    Conn l;
    TlsConnectionParser p(l);
    p.feed(Side::Server, 0, record(21, Bytes{2, 40}), 1);
    REQUIRE(l.errors.size() == 1);
    CHECK(l.errors[0] == TlsError::Alert);
    CHECK(p.info().last_alert_description == 40);
}

TEST_CASE("a ClientHello from the server is unexpected") {
    Conn l;
    TlsConnectionParser p(l);
    p.feed(Side::Server, 0, record(22, client_hello({}, {})), 1);
    REQUIRE(l.errors.size() == 1);
    CHECK(l.errors[0] == TlsError::UnexpectedMessage);
    CHECK_FALSE(p.info().client_hello);
}

// A connection whose both directions are over gives its framing and
// handshake buffers back (TlsSession, when both streams end) and keeps what
// the handshake said; what still comes is ignored, not parsed or crashed on.
TEST_CASE("a released parser keeps the handshake's facts and ignores what comes after") {
    Conn l;
    TlsConnectionParser p(l);
    Bytes sid(32, 5);
    p.feed(Side::Client, 0, record(22, client_hello(sid, sni_ext("api.example.org"))), 1);
    p.feed(Side::Server, 0, record(22, server_hello(sid, 0xc030, {})), 2);
    p.end(Side::Client, 3);
    p.end(Side::Server, 4);
    CHECK(p.in_sync(Side::Client));
    const size_t records = l.records.size();
    p.release();
    CHECK(p.info().sni == "api.example.org");
    CHECK(p.info().resumed);
    CHECK(p.info().cipher_suite == 0xc030);
    CHECK_FALSE(p.in_sync(Side::Client));
    p.feed(Side::Server, 1000, record(23, Bytes(50, 1)), 5);
    p.gap(Side::Client, 1000, 10, 6);
    CHECK(p.feed_decrypted_handshake(Side::Server, handshake(4, Bytes(10, 0)), 7) == 0);
    p.end(Side::Server, 8);
    CHECK(l.records.size() == records);
    CHECK(p.info().session_tickets == 0);
}
