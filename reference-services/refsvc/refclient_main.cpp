// stallscope-refclient: calls a SOAP operation N times and prints one JSON line per call
// with the latency measured on its own CLOCK_MONOTONIC around the whole call.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <memory>

#include <openssl/ssl.h>
#include <string>

#include "reference-services/refsvc/http_framing.h"
#include "reference-services/refsvc/options.h"
#include "reference-services/refsvc/soap_envelope.h"
#include "reference-services/refsvc/socket_io.h"
#include "reference-services/refsvc/tls_io.h"

using namespace stallscope::refsvc;

namespace {

struct CallResult {
    bool ok = false;
    std::string error;
    int status = 0;
    size_t response_bytes = 0;
    bool got_100 = false;
    double expect_wait_ms = -1;
    int local_port = 0;
    bool tls_resumed = false;
};

// TLS state kept across calls: the context and the last session (offered again on a new connection).
struct ClientTls {
    SSL_CTX* ctx = nullptr;
    SSL_SESSION* session = nullptr;
    // Keeps the session of a connection once its first answer is in (TLS 1.3 tickets come after the handshake).
    void remember(SSL* ssl) {
        SSL_SESSION* s = SSL_get1_session(ssl);
        if (!s) return;
        if (session) SSL_SESSION_free(session);
        session = s;
    }
    ClientTls() = default;
    ClientTls(const ClientTls&) = delete;
    ClientTls& operator=(const ClientTls&) = delete;
    ~ClientTls() {  // freed at exit too, so a sanitizer build reports no leak
        if (session) SSL_SESSION_free(session);
        if (ctx) SSL_CTX_free(ctx);
    }
};

int local_port(int fd) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return 0;
    return ntohs(sa.sin_port);
}

// Reads the final response, skipping any 1xx interim responses (MS SOAP sends an unasked 100).
std::string read_final_response(Conn& c, int64_t dl, HttpHead& head, std::string& body, bool& got_100) {
    for (int interim = 0; interim < 8; ++interim) {
        std::string err = read_head(c, true, dl, head);
        if (err == "eof") return "server closed the connection without a response";
        if (!err.empty()) return err;
        if (head.status / 100 != 1) return read_body(c, head, dl, body);
        got_100 = true;
    }
    return "too many interim responses";
}

CallResult do_call(const ClientOptions& o, ClientTls& tls, std::unique_ptr<Conn>& conn, long& conns,
                   const std::string& req_body, int64_t dl) {
    const Knobs& k = o.knobs;
    CallResult r;
    std::string err;
    if (!conn) {
        int fd = connect_ipv4(o.host, o.port, dl, err);
        if (fd < 0) { r.error = err; return r; }
        set_nodelay(fd, k.nodelay);
        if (k.delack) quickack_off(fd);
        conn = std::make_unique<Conn>(fd, k.delack, nullptr);
        ++conns;
        if (tls.ctx) {
            SSL* ssl = tls_connect(tls.ctx, fd, o.sni, o.tls.resume ? tls.session : nullptr, dl, err);
            if (!ssl) { r.error = err; conn.reset(); return r; }
            conn->attach_tls(ssl);
            r.tls_resumed = tls_resumed(ssl);
        }
    }
    r.local_port = local_port(conn->fd());
    bool expect = k.expect_100_ms >= 0;
    std::string head = build_request_head(o.path, o.host + ":" + std::to_string(o.port), k.http11, req_body.size(),
                                          expect, "urn:stallscope-refsvc#" + o.op);
    HttpHead resp;
    std::string resp_body;
    if (expect) {
        // Headers first, then hold the body until 100 Continue or our own timer, like curl and .NET.
        if (!conn->write_all(head.data(), head.size(), dl, err)) { r.error = err; return r; }
        int64_t t = monotonic_ns();
        int64_t wait_dl = t + static_cast<int64_t>(k.expect_100_ms) * 1000000;
        if (wait_dl > dl) wait_dl = dl;
        if (conn->wait_readable(wait_dl)) {
            err = read_head(*conn, true, dl, resp);
            if (!err.empty()) { r.error = err == "eof" ? "server closed the connection" : err; return r; }
            if (resp.status == 100) r.got_100 = true;
            else {  // a final answer before the body (e.g. 417): no body is sent
                err = read_body(*conn, resp, dl, resp_body);
                r.error = "server answered " + std::to_string(resp.status) + " before the body";
                r.status = resp.status;
                return r;
            }
        }
        r.expect_wait_ms = (monotonic_ns() - t) / 1e6;
        if (!conn->write_message("", req_body, k.write == WriteMode::Many ? WriteMode::Many : WriteMode::One, dl, err)) {
            r.error = err;
            return r;
        }
    } else if (!conn->write_message(head, req_body, k.write, dl, err)) {
        r.error = err;
        return r;
    }
    bool got_100 = false;
    err = read_final_response(*conn, dl, resp, resp_body, got_100);
    r.got_100 = r.got_100 || got_100;
    if (!err.empty()) { r.error = err; return r; }
    r.status = resp.status;
    r.response_bytes = resp_body.size();
    if (conn->tls()) tls.remember(conn->tls());
    bool keep = resp.version == "HTTP/1.1" && k.http11 && !resp.header_has_token("Connection", "close");
    if (resp.status != 200) r.error = "HTTP status " + std::to_string(resp.status);
    else r.error = check_response(o.op, o.size, req_body, resp_body);
    r.ok = r.error.empty();
    if (!keep) conn.reset();
    return r;
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') { o += '\\'; o += ch; }
        else if (static_cast<unsigned char>(ch) < 0x20) o += ' ';
        else o += ch;
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    ClientOptions o;
    bool help = false;
    std::string err = parse_client_options(argc, argv, o, help);
    if (help) { std::fputs(client_usage().c_str(), stdout); return 0; }
    if (!err.empty()) {
        std::fprintf(stderr, "stallscope-refclient: %s\n%s", err.c_str(), client_usage().c_str());
        return 2;
    }
    std::signal(SIGPIPE, SIG_IGN);
    std::fprintf(stderr, "refclient: profile %s: %s%s\n", o.profile.c_str(), describe(o.knobs, false).c_str(),
                 o.tls.enabled() ? (" tls=" + o.tls.version + " tls-resume=" + (o.tls.resume ? "on" : "off")).c_str() : "");
    ClientTls tls;
    if (o.tls.enabled()) {
        if (auto e = make_tls_ctx(o.tls, false, tls.ctx); !e.empty()) {
            std::fprintf(stderr, "stallscope-refclient: %s\n", e.c_str());
            return 2;
        }
    }
    const std::string req_body = build_request(o.op, o.size);
    std::unique_ptr<Conn> conn;
    long conns = 0;
    for (long i = 1; i <= o.calls; ++i) {
        long conn_before = conns;
        int64_t t0 = monotonic_ns();
        CallResult r = do_call(o, tls, conn, conns, req_body, t0 + static_cast<int64_t>(o.timeout_s) * 1000000000);
        int64_t t1 = monotonic_ns();
        int port = r.local_port;
        std::printf("{\"call\":%ld,\"op\":\"%s\",\"size\":%ld,\"latency_ms\":%.3f,\"ok\":%s,\"status\":%d,"
                    "\"connection\":%ld,\"new_connection\":%s,\"request_bytes\":%zu,\"response_bytes\":%zu",
                    i, o.op.c_str(), o.size, (t1 - t0) / 1e6, r.ok ? "true" : "false", r.status, conns,
                    conns != conn_before ? "true" : "false", req_body.size(), r.response_bytes);
        if (port) std::printf(",\"local_port\":%d", port);
        if (r.expect_wait_ms >= 0) std::printf(",\"expect_wait_ms\":%.3f", r.expect_wait_ms);
        if (r.got_100) std::printf(",\"got_100\":true");
        if (o.tls.enabled() && conns != conn_before) std::printf(",\"tls_resumed\":%s", r.tls_resumed ? "true" : "false");
        if (!r.ok) std::printf(",\"error\":\"%s\"", json_escape(r.error).c_str());
        std::printf("}\n");
        std::fflush(stdout);
        if (!r.ok) {
            std::fprintf(stderr, "stallscope-refclient: call %ld of %ld failed: %s\n", i, o.calls, r.error.c_str());
            return 1;
        }
    }
    return 0;
}
