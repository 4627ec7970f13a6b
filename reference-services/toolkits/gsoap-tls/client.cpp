// gSOAP over TLS (libgsoapssl++, OpenSSL): getString against the reference
// server. usage: gsoap-tls-client URL CALLS SIZE CAFILE [keepalive]
// The server's certificate chain is checked against CAFILE; its name is not:
// the test name does not resolve, so the URL is 127.0.0.1 (gSOAP names that
// host as SNI). Prints {"call":i,"latency_ms":x}. With SSLKEYLOGFILE set, the
// client appends its TLS secrets there as docs/https.md tells gSOAP users to:
// SSL_CTX_set_keylog_callback on soap->ctx.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <openssl/ssl.h>

#include "soapH.h"
#include "refsvc.nsmap"

namespace {
FILE* g_keylog = nullptr;
void write_keylog_line(const SSL*, const char* line) {
    std::fprintf(g_keylog, "%s\n", line);
    std::fflush(g_keylog);  // on disk at once: a killed run keeps its secrets
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s URL CALLS SIZE CAFILE [keepalive]\n", argv[0]);
        return 2;
    }
    const char* url = argv[1];
    int calls = std::atoi(argv[2]);
    int size = std::atoi(argv[3]);
    const char* cafile = argv[4];
    bool keepalive = argc > 5 && std::strcmp(argv[5], "keepalive") == 0;
    if (calls < 1 || calls > 1000 || size < 0 || size > 1000000) { std::fprintf(stderr, "bad CALLS or SIZE\n"); return 2; }

    soap_ssl_init();
    struct soap* soap = keepalive ? soap_new1(SOAP_IO_KEEPALIVE) : soap_new();
    soap->connect_timeout = 5;
    soap->recv_timeout = 30;
    soap->send_timeout = 30;
    if (soap_ssl_client_context(soap, SOAP_SSL_REQUIRE_SERVER_AUTHENTICATION | SOAP_SSL_SKIP_HOST_CHECK, nullptr, nullptr,
                                cafile, nullptr, nullptr)) {
        soap_print_fault(soap, stderr);
        return 1;
    }
    if (const char* path = std::getenv("SSLKEYLOGFILE"); path && *path) {
        g_keylog = std::fopen(path, "a");
        if (!g_keylog) { std::perror(path); return 1; }
        SSL_CTX_set_keylog_callback(soap->ctx, write_keylog_line);
    }
    for (int i = 1; i <= calls; ++i) {
        std::string out;
        auto t0 = std::chrono::steady_clock::now();
        int rc = soap_call_ns__getString(soap, url, nullptr, size, out);
        auto t1 = std::chrono::steady_clock::now();
        if (rc != SOAP_OK || out.size() != size_t(size)) {
            soap_print_fault(soap, stderr);
            std::fprintf(stderr, "call %d failed (rc=%d, got %zu of %d characters)\n", i, rc, out.size(), size);
            return 1;
        }
        double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        std::printf("{\"call\":%d,\"latency_ms\":%.3f}\n", i, ms);
        std::fflush(stdout);
        soap_destroy(soap);
        soap_end(soap);
    }
    soap_closesock(soap);
    soap_free(soap);
    if (g_keylog) std::fclose(g_keylog);
    return 0;
}
