// expect_100_wait: the three shapes of PATHOLOGIES.md section 3.
//  1 the client sent Expect: 100-continue, the server answered 100, then
//    the body: one extra round trip plus server time;
//  2 Expect sent, no 100 before the body: the client waited out its own
//    timer (1 s curl, 350 ms .NET), whether a 100 came later or never;
//  3 the server sent 100 Continue after the request was already complete
//    (MS SOAP Toolkit, seed Fig. 3); the Nagle hold of the final response
//    that usually follows is one wait with it: this finding, which started
//    the chain, carries the hold's interval too, and the ledger counts it
//    here once (the nagle_delayed_ack finding says it overlaps). When the
//    client had asked and its timer ran out first, shape 2 is reported too.
// See docs/detectors/expect_100_wait.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"
#include "analyzers/detectors/toolkit_fixes.h"

#include <algorithm>
#include <cmath>

namespace stallscope {

namespace {

using namespace detect;

// Which client timer a shape-2 wait matches (within 10 %), for the text.
std::string timer_name(double wait_ms) {
    struct T { double ms; const char* who; };
    static const T kTimers[] = {{1000, "curl's 1 s expect timer"}, {350, ".NET HttpWebRequest's 350 ms timer"}};
    for (const T& t : kTimers)
        if (std::fabs(wait_ms - t.ms) <= t.ms * 0.1) return t.who;
    return "the client's own timer";
}

class Expect100Wait : public Detector {
public:
    const char* kind() const override { return "expect_100_wait"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        const MessageInfo& rq = call.request;
        bool body_apart = rq.body_first_frame && rq.headers_end_frame && rq.body_first_frame != rq.headers_end_frame;
        // 100 arrived after the request was complete: nobody was waiting for it.
        bool late_continue = call.got_continue && rq.complete && rq.last_frame && rq.last_frame < call.continue_frame;
        // The body left on the client's timer whatever the 100 did later: a
        // 100 that came after the body is shape 3 as well, not instead.
        if (call.expect_continue && body_apart) {
            bool answered = call.got_continue && call.continue_frame < rq.body_first_frame;
            Finding f = make_finding(kind(), Side::Client, call);
            double wait = ms(rq.body_first_ns - rq.headers_end_ns);
            f.frames = {rq.headers_end_frame};
            if (answered) f.frames.push_back(call.continue_frame);
            f.frames.push_back(rq.body_first_frame);
            f.cost_ms = std::max(0.0, wait);
            f.cost_method = "first body byte - end of request headers (frames " + std::to_string(rq.headers_end_frame) +
                            " -> " + std::to_string(rq.body_first_frame) + ")";
            f.start_ns = rq.headers_end_ns;
            f.end_ns = rq.body_first_ns;
            if (f.end_ns > f.start_ns) f.intervals.push_back({f.start_ns, f.end_ns});
            if (answered) {
                f.explanation = "the client sent Expect: 100-continue and held the body until the server's 100 Continue "
                                "(frame " + std::to_string(call.continue_frame) + "): " + fmt_ms(wait) +
                                " ms, one extra round trip";
                f.details.push_back({"shape", "1: server answered 100 Continue"});
            } else {
                f.explanation = "the client sent Expect: 100-continue, the server " +
                                std::string(late_continue ? "answered it only after the body had left (frame " +
                                                                std::to_string(call.continue_frame) + ")"
                                                          : "never answered it") +
                                ", and the body left " + fmt_ms(wait) + " ms later when " + timer_name(wait) + " ran out";
                f.details.push_back({"shape", "2: no 100 Continue, client timer"});
                f.side = Side::Client;
            }
            f.fix = "turn Expect: 100-continue off in the client for small bodies (curl -H 'Expect:', .NET "
                    "Expect100Continue = false), or make the server answer 100 Continue at once";
            apply_toolkit_fix(f, call);
            f.details.push_back({"wait_ms", fmt_ms(wait)});
            out.push_back(std::move(f));
        }
        if (late_continue) {
            Finding f = make_finding(kind(), Side::Server, call);
            f.frames = {rq.last_frame, call.continue_frame};
            if (call.response.first_frame) f.frames.push_back(call.response.first_frame);
            // The unneeded 100 is why the final response was held (Nagle
            // waits for its ACK): the hold is this finding's wait, the same
            // interval as the nagle_delayed_ack finding's, counted once here.
            f.start_ns = f.end_ns = call.continue_ns;
            double hold = 0;
            for (const NagleStall& st : scan.nagle_stalls()) {
                if (!st.after_continue) continue;
                hold += st.cost_ms;
                if (st.b_ns > st.a_ns + st.rtt_ns) f.intervals.push_back({st.a_ns + st.rtt_ns, st.b_ns});
                f.end_ns = std::max(f.end_ns, st.b_ns);
            }
            f.cost_ms = hold;
            f.cost_method = hold > 0 ? "the Nagle hold of the final response behind the 100 Continue: B.send - A.send - "
                                       "one RTT (the same wait as the nagle_delayed_ack finding, counted here once)"
                                     : "0: an unneeded 100 Continue segment, no hold seen";
            f.explanation = "the server sent 100 Continue (frame " + std::to_string(call.continue_frame) +
                            ") after the whole request had arrived (frame " + std::to_string(rq.last_frame) + ")" +
                            (call.expect_continue ? "" : " although the client did not ask for it") +
                            (hold > 0 ? "; its final response was then held " + fmt_ms(hold) +
                                            " ms by Nagle until the client's delayed ACK (seed Fig. 3)"
                                      : "");
            f.details.push_back({"shape", "3: 100 Continue after the body"});
            if (hold > 0) f.details.push_back({"response_hold_ms", fmt_ms(hold)});
            f.fix = "do not send 100 Continue once the body is there (only answer an Expect before the body), and "
                    "set TCP_NODELAY on the server socket";
            apply_toolkit_fix(f, call);
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_expect_100_wait_detector() { return std::make_unique<Expect100Wait>(); }

} // namespace stallscope
