#include "reference-services/refsvc/tls_io.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cstdio>
#include <cstdlib>

#include "reference-services/refsvc/socket_io.h"

namespace stallscope::refsvc {
namespace {

std::FILE* g_keylog = nullptr;

// SSLKEYLOGFILE format, one line per secret, flushed at once so a killed run loses nothing.
void keylog_line(const SSL*, const char* line) {
    if (!g_keylog) return;
    std::fprintf(g_keylog, "%s\n", line);
    std::fflush(g_keylog);
}

// Blocking socket calls give up at the deadline: the handshake and SSL_read/SSL_write stay bounded.
void bound_socket(int fd, int64_t deadline_ns) {
    int64_t left = deadline_ns - monotonic_ns();
    if (left < 1000000) left = 1000000;
    timeval tv{static_cast<time_t>(left / 1000000000), static_cast<suseconds_t>((left % 1000000000) / 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

std::string tls_error(const char* what) {
    unsigned long e = ERR_get_error();
    char buf[256] = "unknown error";
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return std::string(what) + ": " + buf;
}

std::string make_tls_ctx(const TlsOptions& o, bool server, SSL_CTX*& out) {
    out = nullptr;
    int ver = o.version == "1.2" ? TLS1_2_VERSION : o.version == "1.3" ? TLS1_3_VERSION : 0;
    if (!ver) return "--tls must be 1.2 or 1.3, not '" + o.version + "'";
    SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!ctx) return tls_error("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(ctx, ver);
    SSL_CTX_set_max_proto_version(ctx, ver);
    std::string keylog = o.keylog;
    if (keylog.empty()) if (const char* env = std::getenv("SSLKEYLOGFILE")) keylog = env;
    if (!keylog.empty()) {
        g_keylog = std::fopen(keylog.c_str(), "a");
        if (!g_keylog) { SSL_CTX_free(ctx); return "cannot open key log " + keylog; }
        SSL_CTX_set_keylog_callback(ctx, keylog_line);
    }
    if (server) {
        if (o.cert.empty() || o.key.empty()) { SSL_CTX_free(ctx); return "TLS server needs --cert and --key"; }
        if (SSL_CTX_use_certificate_chain_file(ctx, o.cert.c_str()) != 1) { SSL_CTX_free(ctx); return tls_error("--cert"); }
        if (SSL_CTX_use_PrivateKey_file(ctx, o.key.c_str(), SSL_FILETYPE_PEM) != 1) { SSL_CTX_free(ctx); return tls_error("--key"); }
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_set_session_id_context(ctx, reinterpret_cast<const unsigned char*>("refsvc"), 6);
    } else {
        if (o.cacert.empty()) { SSL_CTX_free(ctx); return "TLS client needs --cacert"; }
        if (SSL_CTX_load_verify_locations(ctx, o.cacert.c_str(), nullptr) != 1) { SSL_CTX_free(ctx); return tls_error("--cacert"); }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    }
    out = ctx;
    return "";
}

SSL* tls_accept(SSL_CTX* ctx, int fd, int64_t deadline_ns, std::string& err) {
    bound_socket(fd, deadline_ns);
    SSL* ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) { err = tls_error("SSL_new"); SSL_free(ssl); return nullptr; }
    if (SSL_accept(ssl) != 1) { err = tls_error("SSL_accept"); SSL_free(ssl); return nullptr; }
    return ssl;
}

SSL* tls_connect(SSL_CTX* ctx, int fd, const std::string& sni, SSL_SESSION* session, int64_t deadline_ns,
                 std::string& err) {
    bound_socket(fd, deadline_ns);
    SSL* ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) { err = tls_error("SSL_new"); SSL_free(ssl); return nullptr; }
    if (!sni.empty()) SSL_set_tlsext_host_name(ssl, sni.c_str());
    SSL_set1_host(ssl, sni.c_str());
    if (session) SSL_set_session(ssl, session);
    if (SSL_connect(ssl) != 1) { err = tls_error("SSL_connect"); SSL_free(ssl); return nullptr; }
    return ssl;
}

bool tls_resumed(SSL* ssl) { return SSL_session_reused(ssl) == 1; }

std::string tls_describe(SSL* ssl) { return std::string(SSL_get_version(ssl)) + " " + SSL_get_cipher_name(ssl); }

}  // namespace stallscope::refsvc
