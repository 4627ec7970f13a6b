// server_time: the server took long between the last request byte and the
// first response byte, and that time is not explained by a stall another
// detector reports (a Nagle hold of the response after a 100 Continue
// falls inside this interval) nor by the path: from a capture away from the
// server the interval holds the way to the server and back
// (analyzers/result/capture_point.h). See docs/detectors/server_time.md.
#include "analyzers/result/capture_point.h"
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"
#include "analyzers/detectors/toolkit_fixes.h"

#include <algorithm>
#include <cstdio>

namespace stallscope {

namespace {

using namespace detect;

// Reported when the unexplained server time is at least 10 ms AND at least
// half of the call: below 10 ms it is ordinary processing on any host; below
// half the call something else dominates and is the thing to look at.
constexpr double kMinServerMs = 10;
constexpr double kMinShare = 0.5;

class ServerTime : public Detector {
public:
    const char* kind() const override { return "server_time"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        const MessageInfo& rq = call.request;
        const MessageInfo& rs = call.response;
        if (!call.complete || !rq.last_frame || !rs.first_frame || rs.first_ns < rq.last_ns || call.latency_ms <= 0)
            return;
        int64_t s = rq.last_ns, e = rs.first_ns;
        // Subtract the parts of Nagle holds that fall inside the interval.
        int64_t explained = 0;
        for (const NagleStall& st : scan.nagle_stalls()) {
            int64_t lo = std::max(s, st.a_ns), hi = std::min(e, st.b_ns);
            if (hi > lo) explained += hi - lo;
        }
        // The way from the capture point to the server and back is inside
        // the interval too: network time (the ledger's "network"), not the server's.
        const PathPosition& where = scan.where();
        const int64_t path = std::min(path_to(where, Side::Server), std::max<int64_t>(0, e - s - explained));
        double total = ms(e - s);
        double own = ms(e - s - explained - path);
        // Its share of the call as the client lived it (the capture point's
        // latency plus the way to the client and back), the same at every capture point.
        double lived = call.latency_ms + ms(path_to(where, Side::Client));
        if (own < kMinServerMs || own < kMinShare * lived) return;
        Finding f = make_finding(kind(), Side::Server, call);
        f.frames = {rq.last_frame, rs.first_frame};
        f.cost_ms = own;
        f.cost_method = "first response byte - last request byte (frames " + std::to_string(rq.last_frame) + " -> " +
                        std::to_string(rs.first_frame) + ")" +
                        (explained ? " minus " + fmt_ms(ms(explained)) + " ms of Nagle hold reported separately" : "") +
                        (path ? " minus " + fmt_ms(ms(path)) + " ms of path round trip from the capture point to the server" : "");
        f.start_ns = s;
        f.end_ns = e;
        // The call ledger keeps of it what no stall covers; the path's share at both ends is "network".
        f.intervals.push_back({s + path / 2, e - (path - path / 2)});
        char share[32];
        std::snprintf(share, sizeof share, "%.0f%%", own / lived * 100);
        f.explanation = "the server took " + fmt_ms(own) + " ms (" + share + " of the call) between the last request "
                        "byte and the first response byte";
        f.fix = "profile the server's handling of this operation (XML parsing and serialisation, the back end it "
                "calls); the network is not the cause";
        apply_toolkit_fix(f, call);
        f.details.push_back({"server_time_ms", fmt_ms(total)});
        if (explained) f.details.push_back({"nagle_hold_inside_ms", fmt_ms(ms(explained))});
        if (path) f.details.push_back({"path_round_trip_inside_ms", fmt_ms(ms(path))});
        f.details.push_back({"share_of_call", share});
        if (!call.soap.operation.empty()) f.details.push_back({"operation", call.soap.operation});
        out.push_back(std::move(f));
    }
};

} // namespace

std::unique_ptr<Detector> make_server_time_detector() { return std::make_unique<ServerTime>(); }

} // namespace stallscope
