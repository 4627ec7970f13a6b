// tls_ticket_stall: TLS 1.3 servers send session tickets right after the
// handshake; with Nagle on, a ticket segment not yet ACKed holds the first
// response of the connection until the client's delayed ACK. The held
// segment may carry the whole response, so this is not a hold inside one
// message (nagle_delayed_ack / tls_nagle_delayed_ack do not see it).
// Signature: a server segment carrying only handshake records (the ticket),
// ACKed late by a pure ACK, and the server's next data (the response)
// leaving right after that ACK. See docs/detectors/tls_ticket_stall.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/result/tls_carries.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"
#include "capture/packet_decoder.h"

namespace stallscope {

namespace {

using namespace detect;

bool is_data(const SegmentInfo& s) { return s.len > 0 && !(s.flags & (tcpflag::kSyn | tcpflag::kRst)); }

class TlsTicketStall : public Detector {
public:
    const char* kind() const override { return "tls_ticket_stall"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        if (call.index_on_connection != 0 || !call.complete || !conn.tls || conn.tls->version != "TLS 1.3") return;
        const auto& segs = call.segments;
        const int64_t rtt = rtt_estimate_ns(call, conn);
        const uint16_t response = carries::kResponseHeaders | carries::kResponseBody | carries::kContinue;
        for (size_t bi = 0; bi < segs.size(); ++bi) {
            const SegmentInfo& b = segs[bi];
            if (b.from != Side::Server || !is_data(b) || !(b.carries & response) || b.retransmission) continue;
            // A: the server's data segment before the response's first one.
            size_t ai = bi;
            while (ai > 0 && !(segs[ai - 1].from == Side::Server && is_data(segs[ai - 1]))) --ai;
            if (ai == 0) return;
            const SegmentInfo& a = segs[--ai];
            // only tickets in it (the high byte names the TLS messages)
            if ((a.carries & ~carries::kTlsMessages) != carries::kTlsHandshake || a.retransmission) return;
            if (a.acked_ns < 0 || !a.acked_by_pure_ack || a.acked_frame >= b.frame) return;
            // Timing as in the Nagle search (nagle_stalls.cpp): the ACK is late
            // beyond the way to the client and back; the response passes the
            // capture the way to the server and back after the ACK did.
            const PathPosition& where = scan.where();
            const int64_t to_receiver = path_to(where, Side::Client), to_sender = path_to(where, Side::Server);
            if (a.acked_ns - a.ts_ns < kLateAckNs + to_receiver) return;
            const int64_t slack = kCouplingNs + where.rtt_ns() / 10;
            int64_t release = b.ts_ns - a.acked_ns;
            if (release < 0 || release < to_sender - slack || release > to_sender + slack) return;
            // The client sent no data between the ticket and its ACK: it had nothing to carry the ACK.
            for (size_t k = ai + 1; k < bi; ++k)
                if (segs[k].from == Side::Client && is_data(segs[k]) && segs[k].frame != a.acked_frame &&
                    segs[k].ts_ns > a.ts_ns && segs[k].ts_ns < a.acked_ns)
                    return;
            Finding f = make_finding(kind(), Side::Server, call);
            f.frames = {a.frame, a.acked_frame, b.frame};
            f.cost_ms = std::max<double>(0, ms(b.ts_ns - a.ts_ns - rtt));
            f.cost_method = "response.send - ticket.send - one RTT (" + fmt_ms(ms(rtt)) + " ms): frames " +
                            std::to_string(a.frame) + " -> " + std::to_string(b.frame);
            f.start_ns = a.ts_ns;
            f.end_ns = b.ts_ns;
            if (b.ts_ns > a.ts_ns + rtt) f.intervals.push_back({a.ts_ns + rtt, b.ts_ns});
            f.explanation = "the first response of the connection (frame " + std::to_string(b.frame) + ") waited " +
                            fmt_ms(ms(b.ts_ns - a.ts_ns)) + " ms behind the server's TLS 1.3 session ticket (frame " +
                            std::to_string(a.frame) + ", " + std::to_string(a.len) +
                            " B) until the client's delayed ACK (frame " + std::to_string(a.acked_frame) +
                            "): Nagle on the server";
            f.fix = "set TCP_NODELAY on the server's socket (OpenSSL's SSL_connect/SSL_accept man pages warn about "
                    "Nagle after a TLS 1.3 handshake); or send fewer tickets (OpenSSL SSL_CTX_set_num_tickets) or "
                    "send them with the first response (SSL_new_session_ticket)";
            f.details.push_back({"ticket_segment_bytes", std::to_string(a.len)});
            f.details.push_back({"ack_delay_ms", fmt_ms(ms(a.acked_ns - a.ts_ns))});
            f.details.push_back({"rtt_ms", fmt_ms(ms(rtt))});
            out.push_back(std::move(f));
            return;
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_tls_ticket_stall_detector() { return std::make_unique<TlsTicketStall>(); }

} // namespace stallscope
