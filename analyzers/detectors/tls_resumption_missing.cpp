// tls_resumption_missing: a full TLS handshake on a connection to a server
// (address, port and server name) the same client already had a TLS
// session with earlier in the capture: it could have resumed (TLS 1.2
// session id or ticket, TLS 1.3 PSK) and saved the certificate, its
// signature and, before TLS 1.3, a round trip. Side: the client when it did
// not offer a session, the server when it refused the one offered. The time
// is part of the connection's setup (before the first request byte), which
// connection_setup already counts for a call alone on its connection: this
// finding's cost is what resumption could take off at most, not counted a
// second time (counted_ms 0). See docs/detectors/tls_resumption_missing.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"

#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace stallscope {

namespace {

using namespace detect;

class TlsResumptionMissing : public Detector {
public:
    const char* kind() const override { return "tls_resumption_missing"; }

    void on_call(const Call& call, const Connection&, const CallScan&, std::vector<Finding>&) override {
        // Only its id: the finding names the call and the connection, nothing
        // else of it, and the entry lasts as long as the connection lingers.
        if (call.index_on_connection == 0) first_call_.insert_or_assign(call.connection_id, call.id);
    }

    void on_connection_closed(const Connection& conn, std::vector<Finding>& out) override {
        auto it = first_call_.find(conn.id);
        if (it == first_call_.end()) return;
        decide(conn, it->second, out);
        first_call_.erase(it);
    }

private:
    // The finding of `conn`, now over, whose first call was `call_id`: a full
    // handshake where an earlier connection of the pair had a session.
    void decide(const Connection& conn, uint64_t call_id, std::vector<Finding>& out) {
        if (!conn.tls || !conn.tls->handshake_first_frame || conn.tls->version.empty()) return;
        const ConnectionTls& t = *conn.tls;
        auto key = std::make_tuple(conn.client.addr.bytes, conn.server.addr.bytes, conn.server.port, t.sni);
        auto seen = earlier_.find(key);
        bool had_session = seen != earlier_.end();
        if (!had_session) earlier_.emplace(key, conn.id);
        if (t.resumed || !had_session) return;
        // A resumed handshake still takes one round trip: the rest is what resumption can save at most.
        double hs = ms(t.handshake_end_ns - t.handshake_start_ns);
        double rtt = conn.handshake_ms.value_or(0);
        Side side = t.resumption_offered ? Side::Server : Side::Client;
        Finding f = make_finding(kind(), side, conn.id, call_id);
        f.frames = {t.handshake_first_frame, t.handshake_last_frame};
        f.cost_ms = std::max(0.0, hs - rtt);
        f.cost_method = "TLS handshake (frames " + std::to_string(t.handshake_first_frame) + " -> " +
                        std::to_string(t.handshake_last_frame) + ", " + fmt_ms(hs) + " ms) - one RTT (" + fmt_ms(rtt) +
                        " ms, the TCP handshake): part of the connection's setup, counted there";
        f.start_ns = t.handshake_start_ns;
        f.end_ns = t.handshake_end_ns;
        f.explanation = "a full " + t.version + " handshake (" + fmt_ms(hs) + " ms" +
                        (t.certificate_bytes ? ", " + std::to_string(t.certificate_bytes) + "-byte certificate" : "") +
                        ") on connection " + std::to_string(conn.id) + " although connection " +
                        std::to_string(seen->second) + " from the same client to " +
                        (t.sni.empty() ? "this server" : t.sni) + " had a session earlier: " +
                        (t.resumption_offered ? "the client offered it and the server did not resume"
                                              : "the client did not offer it");
        f.fix = t.resumption_offered
                    ? "keep the server's session cache or ticket keys valid across connections (and workers), or "
                      "use keep-alive so the session is not needed"
                    : "reuse TLS sessions in the client's HTTP stack (OpenSSL: SSL_get1_session/SSL_set_session or a "
                      "session cache; curl: one process with a share handle; Java/Go/.NET: one client or connection "
                      "pool), or keep-alive so one handshake serves many calls";
        f.details.push_back({"handshake_ms", fmt_ms(hs)});
        f.details.push_back({"resumption_offered", t.resumption_offered ? "yes" : "no"});
        f.details.push_back({"not_counted_again", "the time is inside connection_setup's (before the first request)"});
        out.push_back(std::move(f));
    }

    std::unordered_map<uint64_t, uint64_t> first_call_;  // connection id -> its first call's id
    using Key = std::tuple<decltype(Endpoint{}.addr.bytes), decltype(Endpoint{}.addr.bytes), uint16_t, std::string>;
    std::map<Key, uint64_t> earlier_;  // the first TLS connection of each client/server pair
};

} // namespace

std::unique_ptr<Detector> make_tls_resumption_missing_detector() { return std::make_unique<TlsResumptionMissing>(); }

} // namespace stallscope
