// tls_certificate_flight: the server's first TLS flight (ServerHello,
// Certificate, ... up to the client's answer) is larger than the initial
// congestion window (10 segments of the MSS, RFC 6928), so the server sends
// ten segments, waits for the client's ACK, and only then the rest: one more
// round trip in every full handshake. Seen on the wire, with or without
// keys, in the segments of the connection's first call (they include the
// handshake): a pause between two of the flight's server segments with only
// the client's ACK in between. The time is part of the connection's setup,
// before the first request byte, which connection_setup counts for a call
// alone on its connection: the cost is the pause (at most the handshake),
// not counted a second time (counted_ms 0, as tls_resumption_missing).
// See docs/detectors/tls_certificate_flight.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"

#include <algorithm>
#include <unordered_map>

namespace stallscope {

namespace {

using namespace detect;

constexpr uint32_t kInitialWindowSegments = 10;  // RFC 6928, Linux's default
constexpr uint32_t kDefaultMss = 1460;
constexpr double kMinPauseMs = 1.0;  // below this the wait is noise, whatever the flight's size

// The server's first flight in a call's segments: from its first handshake
// segment up to the client's next data, and the longest wait in it that
// came when the initial window was spent (at most `window` bytes sent
// before it): a later wait, e.g. a last small segment held by Nagle, is
// not the window's.
struct Flight {
    uint64_t bytes = 0;
    uint32_t segments = 0;
    uint64_t before_frame = 0, ack_frame = 0, after_frame = 0;  // 0: no pause with an ACK in it
    int64_t start_ns = 0, end_ns = 0;
    uint32_t segments_before = 0;
    uint64_t bytes_before = 0;
    int64_t first_ns = 0, last_ns = 0;  // the flight's first and last segments
};

Flight scan_flight(const std::vector<SegmentInfo>& segs, uint64_t window) {
    Flight f;
    const SegmentInfo* prev = nullptr;
    uint64_t ack = 0;
    bool open = false;
    for (const SegmentInfo& s : segs) {
        if (s.from == Side::Client) {
            if (open && s.len > 0) break;  // the client answers: the flight is over
            if (open && prev && s.len == 0) ack = s.frame;
            continue;
        }
        if (s.len == 0 || s.retransmission) continue;
        if (!open && !(s.carries & carries::kTlsHandshake)) continue;
        if (!open) f.first_ns = s.ts_ns;
        open = true;
        if (prev && ack && f.bytes <= window && s.ts_ns - prev->ts_ns > f.end_ns - f.start_ns) {
            f.before_frame = prev->frame;
            f.ack_frame = ack;
            f.after_frame = s.frame;
            f.start_ns = prev->ts_ns;
            f.end_ns = s.ts_ns;
            f.segments_before = f.segments;
            f.bytes_before = f.bytes;
        }
        ++f.segments;
        f.bytes += s.len;
        f.last_ns = s.ts_ns;
        prev = &s;
        ack = 0;
    }
    return f;
}

class TlsCertificateFlight : public Detector {
public:
    const char* kind() const override { return "tls_certificate_flight"; }

    void on_call(const Call& call, const Connection& conn, const CallScan&, std::vector<Finding>&) override {
        if (call.index_on_connection != 0 || !call.opened_connection) return;
        const uint32_t mss = conn.server_mss.value_or(conn.client_mss.value_or(kDefaultMss));
        Flight f = scan_flight(call.segments, uint64_t(kInitialWindowSegments) * mss);
        if (!f.after_frame) return;
        pending_[call.connection_id] = {call_facts(call), f};
    }

    void on_connection_closed(const Connection& conn, std::vector<Finding>& out) override {
        auto it = pending_.find(conn.id);
        if (it == pending_.end()) return;
        const Call c = std::move(it->second.first);
        const Flight f = it->second.second;
        pending_.erase(it);
        if (!conn.tls) return;
        const ConnectionTls& t = *conn.tls;
        const uint32_t mss = conn.server_mss.value_or(conn.client_mss.value_or(kDefaultMss));
        const uint64_t window = uint64_t(kInitialWindowSegments) * mss;
        if (f.bytes <= window) return;  // a pause in a small flight is something else
        const double pause = ms(f.end_ns - f.start_ns);
        const double rtt = conn.handshake_ms.value_or(0);
        // The server waited about a round trip for the ACK: not a scheduling hiccup.
        if (pause < kMinPauseMs || pause < 0.5 * rtt) return;
        const double hs = t.handshake_end_ns > t.handshake_start_ns ? ms(t.handshake_end_ns - t.handshake_start_ns)
                                                                    : ms(f.last_ns - f.first_ns);
        Finding out_f = make_finding(kind(), Side::Server, c);
        out_f.frames = {f.before_frame, f.ack_frame, f.after_frame};
        out_f.cost_ms = std::min(pause, hs);
        out_f.cost_method = "the server's pause inside its first flight, frame " + std::to_string(f.before_frame) +
                            " -> " + std::to_string(f.after_frame) + " (" + fmt_ms(pause) + " ms, at most the handshake's " +
                            fmt_ms(hs) + " ms): part of the connection's setup, counted there";
        out_f.start_ns = f.start_ns;
        out_f.end_ns = f.start_ns + int64_t(out_f.cost_ms * kNsPerMs);
        out_f.explanation =
            "the server's first TLS flight (" + std::to_string(f.bytes) + " bytes in " + std::to_string(f.segments) +
            " segments" + (t.certificate_bytes ? ", a " + std::to_string(t.certificate_bytes) + "-byte certificate" : "") +
            ") is larger than the initial congestion window (" + std::to_string(kInitialWindowSegments) + " x " +
            std::to_string(mss) + " = " + std::to_string(window) + " bytes): after " + std::to_string(f.segments_before) +
            " segments (" + std::to_string(f.bytes_before) + " bytes, frame " + std::to_string(f.before_frame) +
            ") it waited " + fmt_ms(pause) + " ms for the client's ACK (frame " + std::to_string(f.ack_frame) +
            ") before the rest (frame " + std::to_string(f.after_frame) + "): one more round trip in the " +
            (t.version.empty() ? std::string("TLS") : t.version) + " handshake";
        out_f.fix = "make the certificate flight fit in 10 segments: send a shorter chain (leaf and intermediates, "
                    "never the root; fewer names per certificate), use an ECDSA certificate (a P-256 key and signature "
                    "are a fraction of RSA's), certificate compression (RFC 8879) where both ends have it; and pay the "
                    "handshake less often: keep-alive, TLS session resumption (no certificate at all)";
        out_f.details.push_back({"flight_bytes", std::to_string(f.bytes)});
        out_f.details.push_back({"flight_segments", std::to_string(f.segments)});
        out_f.details.push_back({"initial_window_bytes", std::to_string(window)});
        out_f.details.push_back({"pause_ms", fmt_ms(pause)});
        out_f.details.push_back({"not_counted_again", "the time is inside the connection's setup (before the first request)"});
        out.push_back(std::move(out_f));
    }

private:
    std::unordered_map<uint64_t, std::pair<Call, Flight>> pending_;
};

} // namespace

std::unique_ptr<Detector> make_tls_certificate_flight_detector() { return std::make_unique<TlsCertificateFlight>(); }

} // namespace stallscope
