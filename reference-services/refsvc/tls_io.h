// TLS for the reference services (OpenSSL): contexts, handshakes, the key log and session reuse.
// The Conn in socket_io.h carries the SSL* once the handshake is done, so every write strategy
// becomes the same pattern of TLS records (one SSL_write = one record up to 16 KB).
#pragma once
#include <cstdint>
#include <string>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_session_st SSL_SESSION;

namespace stallscope::refsvc {

struct TlsOptions {
    std::string version;   // "" = plaintext, "1.2" or "1.3" (pinned: min = max)
    std::string cert, key;  // server: PEM certificate chain and private key
    std::string cacert;     // client: PEM CA to verify the server with
    std::string keylog;     // NSS key log to append to ("" = $SSLKEYLOGFILE if set)
    bool resume = true;     // client: offer the previous connection's session on a new connection
    bool enabled() const { return !version.empty(); }
};

// "" on success. The contexts live until the process exits.
std::string make_tls_ctx(const TlsOptions& o, bool server, SSL_CTX*& out);
// Handshake on a connected blocking socket (bounded by SO_RCVTIMEO/SO_SNDTIMEO up to the deadline).
// Client: `session` (may be null) is offered for resumption. Returns null and sets err on failure.
SSL* tls_accept(SSL_CTX* ctx, int fd, int64_t deadline_ns, std::string& err);
SSL* tls_connect(SSL_CTX* ctx, int fd, const std::string& sni, SSL_SESSION* session, int64_t deadline_ns,
                 std::string& err);
bool tls_resumed(SSL* ssl);
std::string tls_describe(SSL* ssl);  // "TLSv1.3 TLS_AES_256_GCM_SHA384"
// The last OpenSSL error as text (no key material in it).
std::string tls_error(const char* what);

}  // namespace stallscope::refsvc
