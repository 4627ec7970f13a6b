// tls_nagle_delayed_ack: nagle_delayed_ack on TLS records read without keys:
// a small record A, the peer's late pure ACK of it, and the sender's next
// record B of the same message leaving right after that ACK. The same
// search as nagle_delayed_ack (the segments of an encrypted call carry
// "encrypted request/response"), TLS wording and fixes: an SSL_write is a
// record, and OpenSSL sends each 16 KB record of a big write with its own
// send(). See docs/detectors/tls_nagle_delayed_ack.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"

namespace stallscope {

namespace {

using namespace detect;

class TlsNagleDelayedAck : public Detector {
public:
    const char* kind() const override { return "tls_nagle_delayed_ack"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        if (!call.encrypted) return;  // decrypted or plaintext calls: nagle_delayed_ack
        for (const NagleStall& st : scan.nagle_stalls()) {
            std::string sender = side_name(st.sender), receiver = side_name(peer_of(st.sender));
            const MessageInfo& m = st.sender == Side::Client ? call.request : call.response;
            Finding f = make_finding(kind(), st.sender, call);
            f.frames = {st.a_frame, st.ack_frame, st.b_frame};
            f.cost_ms = st.cost_ms;
            f.cost_method = "B.send - A.send - one RTT (" + fmt_ms(ms(st.rtt_ns)) + " ms): frames " +
                            std::to_string(st.a_frame) + " -> " + std::to_string(st.b_frame);
            f.start_ns = st.a_ns;
            f.end_ns = st.b_ns;
            if (st.b_ns > st.a_ns + st.rtt_ns) f.intervals.push_back({st.a_ns + st.rtt_ns, st.b_ns});
            f.explanation = "the " + sender + "'s next TLS record (frame " + std::to_string(st.b_frame) + ", " +
                            std::to_string(st.b_len) + " B) waited " + fmt_ms(ms(st.b_ns - st.a_ns)) + " ms for the " +
                            receiver + "'s delayed ACK (frame " + std::to_string(st.ack_frame) + ") of its " +
                            std::to_string(st.a_len) + "-byte segment (frame " + std::to_string(st.a_frame) +
                            "): Nagle + delayed ACK inside one encrypted " +
                            (st.sender == Side::Client ? "request" : "response");
            f.fix = "set TCP_NODELAY on the " + sender + "'s socket, or hand each message to TLS in one SSL_write " +
                    "(one buffer); a message over 16 KB still leaves as several records, each with its own send(), " +
                    "so also put a buffering BIO (BIO_f_buffer, flushed once per message) or TCP_CORK around the write";
            f.details.push_back({"held_segment_bytes", std::to_string(st.a_len)});
            f.details.push_back({"ack_delay_ms", fmt_ms(ms(st.ack_ns - st.a_ns))});
            f.details.push_back({"ack_to_next_ms", fmt_ms(ms(st.b_ns - st.ack_ns))});
            f.details.push_back({"rtt_ms", fmt_ms(ms(st.rtt_ns))});
            if (!m.write_sizes.empty()) f.details.push_back({"record_plaintext_sizes", join_sizes(m.write_sizes)});
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_tls_nagle_delayed_ack_detector() { return std::make_unique<TlsNagleDelayedAck>(); }

} // namespace stallscope
