// libFuzzer: the TLS handshake parsers on arbitrary message bodies, and the
// handshake reassembler on arbitrary record bodies split at a fuzzer-chosen
// point. Nothing may read outside the input (ASan), and parsed sizes stay
// inside the message.
#include "dissectors/tls/tls_handshake.h"

#include <cstdint>
#include <cstdlib>
#include <span>

using namespace stallscope;

namespace {
struct Sink : HandshakeListener {
    size_t fed = 0, seen = 0;
    void on_handshake_message(const HandshakeMessage& m) override {
        seen += m.body.size() + tls::kHandshakeHeaderBytes;
        if (seen > fed) std::abort();
    }
    void on_handshake_error(TlsError, uint64_t) override {}
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    std::span<const uint8_t> body(data + 1, size - 1);
    TlsError err;
    if (auto ch = parse_client_hello(body, err)) {
        if (ch->session_id.size() > 32 || ch->sni.size() > body.size() || ch->session_ticket_bytes > body.size())
            std::abort();
        (void)ch->max_version();
    }
    if (auto sh = parse_server_hello(body, err))
        if (sh->session_id.size() > 32 || sh->alpn.size() > body.size()) std::abort();
    if (auto ee = parse_encrypted_extensions(body, err))
        if (ee->alpn.size() > body.size()) std::abort();
    for (bool tls13 : {false, true})
        if (auto t = parse_new_session_ticket(body, tls13, err))
            if (t->ticket_bytes > body.size()) std::abort();
    Sink sink;
    TlsLimits lim;
    lim.max_handshake_bytes = 1 << 16;
    HandshakeReassembler r(sink, lim);
    size_t split = data[0] * body.size() / 256;
    sink.fed = split;
    r.feed(body.first(split), 1);
    sink.fed = body.size();
    r.feed(body.subspan(split), 2);
    return 0;
}
