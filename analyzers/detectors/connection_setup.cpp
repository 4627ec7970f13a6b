// connection_setup: a call that ran on a TCP connection of its own (HTTP/1.0
// or Connection: close), paying the handshake (and slow start, teardown and
// a TIME_WAIT socket) every time. Decided when the connection is over, the
// first moment the number of calls it carried is known. Over TLS the setup
// is the TCP handshake and the TLS handshake (ClientHello -> its last
// record): both are paid per call.
// See docs/detectors/connection_setup.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "capture/packet_decoder.h"

#include <cstdio>
#include <unordered_map>

namespace stallscope {

namespace {

using namespace detect;

constexpr const char* kAloneKey = "calls_on_own_connection";

class ConnectionSetup : public Detector {
public:
    const char* kind() const override { return "connection_setup"; }

    // Who closed first is only visible in the segments, which are gone by
    // the time the connection is over: note it with the call here.
    void on_call(const Call& call, const Connection&, const CallScan&, std::vector<Finding>&) override {
        ++calls_;
        if (call.index_on_connection != 0 || !call.opened_connection) return;
        Side first_close = Side::Client;
        uint64_t close_frame = 0;
        for (const SegmentInfo& seg : call.segments)
            if (seg.flags & (tcpflag::kFin | tcpflag::kRst)) { first_close = seg.from; close_frame = seg.frame; break; }
        pending_.insert_or_assign(call.connection_id, Pending::of(call, first_close, close_frame));
    }

    // Decided when the connection is over: only then is the number of calls
    // it carried known.
    void on_connection_closed(const Connection& conn, std::vector<Finding>& out) override {
        auto it = pending_.find(conn.id);
        if (it == pending_.end()) return;
        decide(conn, it->second, out);
        pending_.erase(it);
    }

    // The capture-wide count, the same for every finding: made once, after
    // the last call (finish() comes before any finalize()).
    void finish(std::vector<Finding>&) override { alone_text_ = std::to_string(alone_) + " of " + std::to_string(calls_); }
    bool finalizes() const override { return true; }
    void finalize(Finding& f) const override {
        for (auto& [key, value] : f.details)
            if (key == kAloneKey) value = alone_text_;
    }

private:
    // What decide() reads of the first call, kept until the connection's
    // linger ends (a second of capture time: thousands of connections on a
    // busy capture). A whole call's facts were 900 bytes a connection.
    struct Pending {
        uint64_t call_id = 0, connection_id = 0, request_first_frame = 0;
        double latency_ms = 0;
        std::string http_version, user_agent, server;
        bool encrypted = false, request_close = false, connection_close = false;
        Side first_close = Side::Client;
        uint64_t close_frame = 0;

        static Pending of(const Call& c, Side first_close, uint64_t close_frame) {
            return {c.id,         c.connection_id, c.request_first_frame, c.latency_ms, c.http_version,
                    c.user_agent, c.server,        c.encrypted,           c.request_close, c.connection_close,
                    first_close,  close_frame};
        }
        // The call again, with only those fields (make_finding, apply_toolkit_fix read its ids and headers).
        Call call() const {
            Call c;
            c.id = call_id;
            c.connection_id = connection_id;
            c.request_first_frame = request_first_frame;
            c.latency_ms = latency_ms;
            c.http_version = http_version;
            c.user_agent = user_agent;
            c.server = server;
            c.encrypted = encrypted;
            c.request_close = request_close;
            c.connection_close = connection_close;
            return c;
        }
    };

    // The finding of the first call of `conn`, now over, if it was its only one.
    void decide(const Connection& conn, const Pending& p, std::vector<Finding>& out) {
        if (conn.calls != 1) return;
        ++alone_;
        const Call c = p.call();
        bool closed = conn.fin_client || conn.fin_server || conn.rst;
        // Still open at the end of the capture and nobody asked to close:
        // it might have carried the next call.
        if (!closed && !c.connection_close) return;

        // Who made it one-shot: the client when its request asked to
        // close (HTTP/1.0, Connection: close), else the server. Encrypted:
        // the request is not readable; the side that closed first.
        Side side = c.encrypted ? (p.close_frame ? p.first_close : Side::Client)
                                : c.request_close ? Side::Client : Side::Server;
        Finding f = make_finding(kind(), side, c);
        double hs = conn.handshake_ms.value_or(0);
        f.frames = {conn.syn_frame};
        if (conn.synack_frame) f.frames.push_back(conn.synack_frame);
        if (conn.ack_frame) f.frames.push_back(conn.ack_frame);
        if (p.close_frame) f.frames.push_back(p.close_frame);
        f.cost_ms = hs;
        f.cost_method = conn.ack_frame ? "handshake: client SYN -> final ACK (frames " + std::to_string(conn.syn_frame) +
                                             " -> " + std::to_string(conn.ack_frame) + ")"
                      : conn.synack_frame ? "handshake: SYN -> SYN-ACK"
                                          : "no SYN-ACK captured: handshake time unknown, counted as 0";
        // TCP Fast Open: the request left on the SYN, so the handshake ran
        // beside the call instead of before it and delayed nothing.
        const bool fast_open = c.request_first_frame && c.request_first_frame == conn.syn_frame;
        if (fast_open) {
            f.cost_ms = 0;
            f.cost_method = "0: the request rode on the SYN (TCP Fast Open), the handshake delayed nothing";
        }
        f.start_ns = conn.syn_ns;
        // No SYN-ACK seen (it was lost, or stamped before the SYN): the
        // interval is empty rather than ending at time 0.
        f.end_ns = conn.ack_frame ? conn.ack_ns : conn.synack_frame ? conn.synack_ns : conn.syn_ns;
        if (f.end_ns < f.start_ns) f.end_ns = f.start_ns;
        // TLS: the handshake after TCP's is setup too (the first request record waits for it).
        const ConnectionTls* tls = conn.tls && conn.tls->handshake_last_frame ? &*conn.tls : nullptr;
        double tls_ms = tls ? ms(tls->handshake_end_ns - tls->handshake_start_ns) : 0;
        if (tls && tls_ms >= 0) {
            f.frames.push_back(tls->handshake_first_frame);
            f.frames.push_back(tls->handshake_last_frame);
            f.cost_ms += tls_ms;
            f.cost_method += " + TLS handshake: ClientHello -> last handshake record (frames " +
                             std::to_string(tls->handshake_first_frame) + " -> " +
                             std::to_string(tls->handshake_last_frame) + ")";
            f.end_ns = std::max(f.end_ns, tls->handshake_end_ns);
            hs += tls_ms;
        }
        double share = !fast_open && (hs + c.latency_ms) > 0 ? hs / (hs + c.latency_ms) : 0;
        std::string why = c.encrypted ? "the " + std::string(side_name(side)) + " closed it after one encrypted call"
                        : c.request_close
                              ? (c.http_version == "HTTP/1.0" ? "the client spoke HTTP/1.0" : "the client sent Connection: close")
                              : "the server closed it (HTTP/1.0 response or Connection: close)";
        f.explanation = "call " + std::to_string(c.id) + " opened its own TCP connection (" + why + "): handshake " +
                        fmt_ms(hs) + " ms (" + fmt_ms(share * 100) + "% of the call with its handshake)";
        if (tls)
            f.explanation += ", of which the " + (tls->version.empty() ? std::string("TLS") : tls->version) + " " +
                             (tls->resumed ? "resumed" : "full") + " handshake " + fmt_ms(tls_ms) + " ms";
        if (fast_open) f.explanation += "; the request rode on the SYN (TCP Fast Open), so it waited for none of it";
        if (conn.syn_retransmissions)
            f.explanation += "; the SYN was retransmitted " + std::to_string(conn.syn_retransmissions) +
                             " time(s), so the handshake includes the SYN retransmission timer";
        f.fix = "HTTP/1.1 persistent connections (keep-alive) on both sides and a connection pool in the client";
        if (tls) f.fix += "; where a new connection is needed, TLS session resumption";
        apply_toolkit_fix(f, c);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
        f.details.push_back({"handshake_ms", fmt_ms(hs)});
        if (tls) f.details.push_back({"tls_handshake_ms", fmt_ms(tls_ms)});
        f.details.push_back({"handshake_share", buf});
        f.details.push_back({kAloneKey, ""});  // the capture-wide count: finalize()
        if (conn.syn_retransmissions) f.details.push_back({"syn_retransmissions", std::to_string(conn.syn_retransmissions)});
        if (p.close_frame) f.details.push_back({"closed_first_by", side_name(p.first_close)});
        out.push_back(std::move(f));
    }

    std::unordered_map<uint64_t, Pending> pending_;  // by connection id
    uint64_t calls_ = 0, alone_ = 0;
    std::string alone_text_ = "0 of 0";  // finish()
};

} // namespace

std::unique_ptr<Detector> make_connection_setup_detector() { return std::make_unique<ConnectionSetup>(); }

} // namespace stallscope
