// stallscope-refserver: a SOAP 1.1 server whose wire behaviour follows a named profile.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "reference-services/refsvc/http_framing.h"
#include "reference-services/refsvc/options.h"
#include "reference-services/refsvc/profiles.h"
#include "reference-services/refsvc/soap_envelope.h"
#include "reference-services/refsvc/socket_io.h"
#include "reference-services/refsvc/tls_io.h"

using namespace stallscope::refsvc;

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

void install_signals() {
    struct sigaction sa{};
    sa.sa_handler = on_signal;  // no SA_RESTART: poll() returns EINTR and we notice g_stop
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

struct Server {
    ServerOptions opt;
    int64_t deadline_ns = 0;
    long requests = 0;
    long connections = 0;
    SSL_CTX* tls = nullptr;  // set with --tls

    bool out_of_budget() const { return g_stop || monotonic_ns() >= deadline_ns || requests >= opt.max_requests; }

    // Serves requests on one connection until it closes, goes idle, or a bound is hit.
    void serve(int fd) {
        const Knobs& k = opt.knobs;
        Conn c(fd, k.delack, &g_stop);
        set_nodelay(fd, k.nodelay);
        if (k.delack) quickack_off(fd);
        ++connections;
        if (tls) {
            std::string herr;
            int64_t hs_dl = monotonic_ns() + static_cast<int64_t>(opt.idle_timeout_s) * 1000000000;
            SSL* ssl = tls_accept(tls, fd, hs_dl < deadline_ns ? hs_dl : deadline_ns, herr);
            if (!ssl) { std::fprintf(stderr, "refserver: TLS handshake: %s\n", herr.c_str()); return; }
            c.attach_tls(ssl);
        }
        while (!out_of_budget()) {
            int64_t idle = monotonic_ns() + static_cast<int64_t>(opt.idle_timeout_s) * 1000000000;
            int64_t dl = idle < deadline_ns ? idle : deadline_ns;
            HttpHead req;
            std::string err = read_head(c, false, dl, req);
            if (err == "eof") return;
            if (!err.empty()) {
                if (err != "stopped" && err != "read timed out") std::fprintf(stderr, "refserver: request: %s\n", err.c_str());
                return;
            }
            bool expect = req.header_has_token("Expect", "100-continue");
            if (expect && k.continue_mode == ContinueMode::Immediate) {
                std::string cont = continue_head();
                if (!c.write_all(cont.data(), cont.size(), dl, err)) return;
            }
            std::string body;
            if (auto e = read_body(c, req, dl, body); !e.empty()) {
                std::fprintf(stderr, "refserver: request body: %s\n", e.c_str());
                return;
            }
            if (k.continue_mode == ContinueMode::Late) {
                // Like the MS SOAP Toolkit: a 100 Continue although the whole request is already here.
                std::string cont = continue_head();
                if (!c.write_all(cont.data(), cont.size(), dl, err)) return;
            }
            SoapCall call;
            std::string perr = parse_request(body, call);
            std::string resp_body = perr.empty() ? build_response(call) : build_fault(perr);
            int status = perr.empty() ? 200 : 500;
            if (!perr.empty()) std::fprintf(stderr, "refserver: bad SOAP request: %s\n", perr.c_str());
            bool http11 = k.http11 && req.version == "HTTP/1.1";
            bool keep_alive = http11 && !req.header_has_token("Connection", "close");
            bool chunked = k.chunked && http11;
            if (chunked) resp_body = chunk_encode(resp_body);
            std::string head = build_response_head(status, http11, keep_alive, chunked, resp_body.size());
            ++requests;
            if (!c.write_message(head, resp_body, k.write, dl, err)) {
                std::fprintf(stderr, "refserver: response: %s\n", err.c_str());
                return;
            }
            if (!keep_alive) return;
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--list-profiles") {  // the knob table the README documents
        for (const auto& p : all_profiles())
            std::printf("%s: %s\n  client: %s\n  server: %s\n", p.name.c_str(), p.summary.c_str(),
                        describe(p.client, false).c_str(), describe(p.server, true).c_str());
        return 0;
    }
    Server s;
    bool help = false;
    std::string err = parse_server_options(argc, argv, s.opt, help);
    if (help) { std::fputs(server_usage().c_str(), stdout); return 0; }
    if (!err.empty()) {
        std::fprintf(stderr, "stallscope-refserver: %s\n%s", err.c_str(), server_usage().c_str());
        return 2;
    }
    install_signals();
    if (s.opt.tls.enabled()) {
        if (auto e = make_tls_ctx(s.opt.tls, true, s.tls); !e.empty()) {
            std::fprintf(stderr, "stallscope-refserver: %s\n", e.c_str());
            return 1;
        }
    }
    int bound = 0;
    int lfd = listen_ipv4(s.opt.bind, s.opt.port, bound, err);
    if (lfd < 0) { std::fprintf(stderr, "stallscope-refserver: %s\n", err.c_str()); return 1; }
    // Set on the listener too: accepted sockets inherit it, so a request that arrives before
    // accept() returns is already ACKed late (otherwise call N+1 races the accept and gets a quick ACK).
    if (s.opt.knobs.delack) quickack_off(lfd);
    s.deadline_ns = monotonic_ns() + static_cast<int64_t>(s.opt.max_seconds) * 1000000000;
    std::fprintf(stderr, "refserver: profile %s: %s%s\n", s.opt.profile.c_str(), describe(s.opt.knobs, true).c_str(),
                 s.opt.tls.enabled() ? (" tls=" + s.opt.tls.version).c_str() : "");
    std::printf("listening on %d\n", bound);
    std::fflush(stdout);
    while (!s.out_of_budget()) {
        pollfd p{lfd, POLLIN, 0};
        int r = ::poll(&p, 1, 200);
        if (r <= 0) continue;
        int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        s.serve(fd);
    }
    ::close(lfd);
    const char* why = g_stop ? "signal" : s.requests >= s.opt.max_requests ? "max-requests" : "max-seconds";
    std::fprintf(stderr, "refserver: stopped (%s) after %ld requests on %ld connections\n", why, s.requests,
                 s.connections);
    return 0;
}
