// retransmission: lost segments, retransmission timeouts and zero windows
// inside a call. The cost is the time data was late: from the original
// send to its retransmission, and from a zero-window advertisement to the
// window reopening (overlaps counted once). See docs/detectors/retransmission.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "capture/packet_decoder.h"

#include <algorithm>

namespace stallscope {

namespace {

using namespace detect;

// A retransmission this long after the original is a timeout (Linux's
// minimum RTO is 200 ms; fast retransmit comes about one RTT after loss).
constexpr int64_t kRtoNs = 180'000'000;

struct Interval { int64_t s, e; };

double union_ms(std::vector<Interval> v) {
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.s < b.s; });
    int64_t total = 0, cs = 0, ce = -1;
    bool open = false;
    for (auto& i : v) {
        if (!open || i.s > ce) {
            if (open) total += ce - cs;
            cs = i.s; ce = i.e; open = true;
        } else {
            ce = std::max(ce, i.e);
        }
    }
    if (open) total += ce - cs;
    return ms(total);
}

class Retransmission : public Detector {
public:
    const char* kind() const override { return "retransmission"; }

    void on_call(const Call& call, const Connection& conn, std::vector<Finding>& out) override {
        const auto& segs = call.segments;
        for (Side side : {Side::Client, Side::Server}) {
            std::vector<Interval> late;
            std::vector<uint64_t> frames;
            uint32_t retx = 0, timeouts = 0, zero = 0;
            int64_t longest = 0;
            for (size_t i = 0; i < segs.size(); ++i) {
                const SegmentInfo& s = segs[i];
                if (s.from != side || (s.flags & (tcpflag::kSyn | tcpflag::kRst))) continue;
                if (s.retransmission && s.len > 0) {
                    ++retx;
                    frames.push_back(s.frame);
                    // The first send of these bytes, if it is in the call.
                    for (size_t k = 0; k < i; ++k) {
                        const SegmentInfo& o = segs[k];
                        if (o.from == side && o.len > 0 && !o.retransmission && o.seq <= s.seq && s.seq < o.seq + o.len) {
                            int64_t d = s.ts_ns - o.ts_ns;
                            late.push_back({o.ts_ns, s.ts_ns});
                            longest = std::max(longest, d);
                            if (d >= kRtoNs) ++timeouts;
                            frames.insert(frames.end() - 1, o.frame);
                            break;
                        }
                    }
                }
                if (s.window == 0 && (s.flags & tcpflag::kAck) && !(s.flags & tcpflag::kFin)) {
                    // Zero window: until this side advertises room again.
                    int64_t end = s.ts_ns;
                    for (size_t k = i + 1; k < segs.size(); ++k)
                        if (segs[k].from == side && segs[k].window > 0) { end = segs[k].ts_ns; break; }
                    if (i > 0 && segs[i - 1].from == side && segs[i - 1].window == 0) continue;  // same episode
                    ++zero;
                    frames.push_back(s.frame);
                    late.push_back({s.ts_ns, end});
                }
            }
            if (!retx && !zero) continue;
            Finding f = make_finding(kind(), side, call);
            f.frames = frames;
            f.cost_ms = union_ms(late);
            f.cost_method = "time data was late: original send -> retransmission, zero window -> reopened "
                            "(overlaps counted once)";
            for (auto& l : late) {
                if (f.start_ns == 0 || l.s < f.start_ns) f.start_ns = l.s;
                f.end_ns = std::max(f.end_ns, l.e);
            }
            std::string who = side_name(side);
            f.explanation = "the " + who + "'s data: ";
            if (retx) f.explanation += std::to_string(retx) + " retransmitted segment(s)" +
                                       (timeouts ? " (" + std::to_string(timeouts) + " after a retransmission timeout)" : "");
            if (retx && zero) f.explanation += ", ";
            if (zero) f.explanation = (retx ? f.explanation : "the " + who + " ") + "advertised a zero window " +
                                      std::to_string(zero) + " time(s)";
            f.explanation += "; " + fmt_ms(f.cost_ms) + " ms late in all";
            f.fix = timeouts ? "find the loss (link errors, drops at a full queue, a firewall); a lower RTO or "
                               "tail-loss probes shorten the wait"
                             : zero ? "the receiver reads too slowly: read the socket promptly or give it a bigger buffer"
                                    : "find where the segments are lost (link, queue, middlebox)";
            f.details.push_back({"retransmissions", std::to_string(retx)});
            f.details.push_back({"timeouts", std::to_string(timeouts)});
            f.details.push_back({"zero_windows", std::to_string(zero)});
            if (longest) f.details.push_back({"longest_retransmission_gap_ms", fmt_ms(ms(longest))});
            (void)conn;
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_retransmission_detector() { return std::make_unique<Retransmission>(); }

} // namespace stallscope
