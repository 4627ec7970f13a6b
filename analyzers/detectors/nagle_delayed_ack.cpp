// nagle_delayed_ack: a small segment A, the peer's late pure ACK of it, and
// the sender's next segment B of the same message leaving right after that
// ACK. Reports one finding per stall (a call can have two: request and
// response). See docs/detectors/nagle_delayed_ack.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"
#include "analyzers/detectors/toolkit_fixes.h"

namespace stallscope {

namespace {

using namespace detect;

std::string what(uint16_t c) { return carries_label(c); }

class NagleDelayedAck : public Detector {
public:
    const char* kind() const override { return "nagle_delayed_ack"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        if (call.encrypted) return;  // TLS records read without keys: tls_nagle_delayed_ack
        for (const NagleStall& st : scan.nagle_stalls()) {
            Side peer = peer_of(st.sender);
            Finding f = make_finding(kind(), st.sender, call);
            f.frames = {st.a_frame, st.ack_frame, st.b_frame};
            f.cost_ms = st.cost_ms;
            f.cost_method = text("B.send - A.send - one RTT (", fmt_ms(ms(st.rtt_ns)),
                                 " ms, from the handshake or the quickest ACK): frames ", st.a_frame, " -> ", st.b_frame);
            f.start_ns = st.a_ns;
            f.end_ns = st.b_ns;
            // The hold itself: B would have left one RTT after A at the latest.
            if (st.b_ns > st.a_ns + st.rtt_ns) f.intervals.push_back({st.a_ns + st.rtt_ns, st.b_ns});
            const std::string_view sender = side_name(st.sender), receiver = side_name(peer);
            if (st.after_continue) {
                f.explanation = text("the ", sender, "'s final response (frame ", st.b_frame,
                                     ") was held by Nagle until the ", receiver, "'s delayed ACK (frame ", st.ack_frame,
                                     ", ", fmt_ms(ms(st.ack_ns - st.a_ns)), " ms late) of its 100 Continue (frame ",
                                     st.a_frame, ", seed Fig. 3)");
            } else {
                f.explanation = text("the ", sender, "'s ", what(st.b_carries), " (frame ", st.b_frame, ", ", st.b_len,
                                     " B) waited ", fmt_ms(ms(st.b_ns - st.a_ns)), " ms for the ", receiver,
                                     "'s delayed ACK (frame ", st.ack_frame, ") of its ", st.a_len, "-byte ",
                                     what(st.a_carries), " (frame ", st.a_frame, "): Nagle + delayed ACK");
            }
            if (st.after_continue)
                f.fix = text("do not send an unasked 100 Continue, or set TCP_NODELAY on the ", sender, "'s socket");
            else
                f.fix = text("send each message in one write on the ", sender,
                             " (one buffer, writev/gather write, or TCP_CORK/MSG_MORE then flush), or set TCP_NODELAY "
                             "on the ",
                             sender, "'s socket; TCP_QUICKACK on the ", receiver, " only mitigates");
            apply_toolkit_fix(f, call);
            f.details.push_back({"held_segment", text(st.a_len, " B ", what(st.a_carries))});
            f.details.push_back({"ack_delay_ms", fmt_ms(ms(st.ack_ns - st.a_ns))});
            f.details.push_back({"ack_to_next_ms", fmt_ms(ms(st.b_ns - st.ack_ns))});
            f.details.push_back({"rtt_ms", fmt_ms(ms(st.rtt_ns))});
            const MessageInfo& m = (st.b_carries & (carries::kRequestHeaders | carries::kRequestBody)) ? call.request
                                                                                                       : call.response;
            if (!m.write_sizes.empty()) f.details.push_back({"write_sizes", join_sizes(m.write_sizes)});
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_nagle_delayed_ack_detector() { return std::make_unique<NagleDelayedAck>(); }

} // namespace stallscope
