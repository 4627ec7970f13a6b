// connection_setup: a call that ran on a TCP connection of its own (HTTP/1.0
// or Connection: close), paying the handshake (and slow start, teardown and
// a TIME_WAIT socket) every time. Decided at the end, when the number of
// calls per connection is known. See docs/detectors/connection_setup.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "capture/packet_decoder.h"

#include <cstdio>
#include <map>

namespace stallscope {

namespace {

using namespace detect;

class ConnectionSetup : public Detector {
public:
    const char* kind() const override { return "connection_setup"; }

    // Who closed first is only visible in the segments, which are gone by
    // finish(): note it per call here.
    void on_call(const Call& call, const Connection& conn, std::vector<Finding>&) override {
        if (call.index_on_connection != 0 || !call.opened_connection) return;
        Seen s;
        for (const SegmentInfo& seg : call.segments)
            if (seg.flags & (tcpflag::kFin | tcpflag::kRst)) { s.first_close = seg.from; s.close_frame = seg.frame; break; }
        seen_[call.id] = s;
    }

    void finish(const std::vector<Call>& calls, const std::vector<Connection>& connections,
                std::vector<Finding>& out) override {
        std::map<uint64_t, uint32_t> per_conn;
        for (const Call& c : calls) ++per_conn[c.connection_id];
        std::map<uint64_t, const Connection*> conns;
        for (const Connection& c : connections) conns[c.id] = &c;
        size_t alone = 0;
        for (const Call& c : calls)
            if (c.opened_connection && per_conn[c.connection_id] == 1) ++alone;
        for (const Call& c : calls) {
            auto ci = conns.find(c.connection_id);
            if (ci == conns.end() || !c.opened_connection || per_conn[c.connection_id] != 1) continue;
            const Connection& conn = *ci->second;
            bool closed = conn.fin_client || conn.fin_server || conn.rst;
            // Still open at the end of the capture and nobody asked to close:
            // it might have carried the next call.
            if (!closed && !c.connection_close) continue;
            auto si = seen_.find(c.id);
            Seen s = si == seen_.end() ? Seen{} : si->second;

            // Who made it one-shot: the client when its request asked to
            // close (HTTP/1.0, Connection: close), else the server.
            Side side = c.request_close ? Side::Client : Side::Server;
            Finding f = make_finding(kind(), side, c);
            double hs = conn.handshake_ms.value_or(0);
            f.frames = {conn.syn_frame};
            if (conn.synack_frame) f.frames.push_back(conn.synack_frame);
            if (conn.ack_frame) f.frames.push_back(conn.ack_frame);
            if (s.close_frame) f.frames.push_back(s.close_frame);
            f.cost_ms = hs;
            f.cost_method = conn.ack_frame ? "handshake: client SYN -> final ACK (frames " + std::to_string(conn.syn_frame) +
                                                 " -> " + std::to_string(conn.ack_frame) + ")"
                                           : "handshake: SYN -> SYN-ACK";
            f.start_ns = conn.syn_ns;
            f.end_ns = conn.ack_frame ? conn.ack_ns : conn.synack_ns;
            double share = (hs + c.latency_ms) > 0 ? hs / (hs + c.latency_ms) : 0;
            std::string why = c.request_close
                                  ? (c.http_version == "HTTP/1.0" ? "the client spoke HTTP/1.0" : "the client sent Connection: close")
                                  : "the server closed it (HTTP/1.0 response or Connection: close)";
            f.explanation = "call " + std::to_string(c.id) + " opened its own TCP connection (" + why + "): handshake " +
                            fmt_ms(hs) + " ms (" + fmt_ms(share * 100) + "% of the call with its handshake)";
            if (conn.syn_retransmissions)
                f.explanation += "; the SYN was retransmitted " + std::to_string(conn.syn_retransmissions) +
                                 " time(s), so the handshake includes the SYN retransmission timer";
            f.fix = "HTTP/1.1 persistent connections (keep-alive) on both sides and a connection pool in the client";
            apply_toolkit_fix(f, c);
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
            f.details.push_back({"handshake_ms", fmt_ms(hs)});
            f.details.push_back({"handshake_share", buf});
            f.details.push_back({"calls_on_own_connection", std::to_string(alone) + " of " + std::to_string(calls.size())});
            if (conn.syn_retransmissions) f.details.push_back({"syn_retransmissions", std::to_string(conn.syn_retransmissions)});
            if (s.close_frame) f.details.push_back({"closed_first_by", side_name(s.first_close)});
            out.push_back(std::move(f));
        }
        seen_.clear();
    }

private:
    struct Seen { Side first_close = Side::Client; uint64_t close_frame = 0; };
    std::map<uint64_t, Seen> seen_;
};

} // namespace

std::unique_ptr<Detector> make_connection_setup_detector() { return std::make_unique<ConnectionSetup>(); }

} // namespace stallscope
