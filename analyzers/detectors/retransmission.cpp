// retransmission: lost segments, retransmission timeouts and zero windows
// inside a call. The cost is the time data was late: from the original
// send to its retransmission, and from a zero-window advertisement to the
// window reopening (overlaps counted once), only the part inside the call
// (first request byte -> last response byte): what happens after the call,
// or a probe (keep-alive, zero-window probe), costs the call nothing.
// See docs/detectors/retransmission.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/toolkit_fixes.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <iterator>
#include <map>

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
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan&, std::vector<Finding>& out) override {
        const auto& segs = call.segments;
        const int64_t call_s = call.start_ns, call_e = std::max(call.end_ns, call.start_ns);
        auto inside = [&](Interval i) {
            return Interval{std::clamp(i.s, call_s, call_e), std::clamp(i.e, call_s, call_e)};
        };
        for (Side side : {Side::Client, Side::Server}) {
            // Most calls have neither: skip the search (and its map) for them.
            if (std::none_of(segs.begin(), segs.end(), [&](const SegmentInfo& s) {
                    return s.from == side && (s.retransmission || s.window == 0);
                }))
                continue;
            std::vector<Interval> late;
            std::vector<uint64_t> frames;
            uint32_t retx = 0, timeouts = 0, zero = 0;
            int64_t longest = 0;
            // First sends of this side's data by starting sequence number, so
            // finding a retransmission's original is a lookup (a hostile
            // capture can hold 200k segments in one call).
            std::map<uint32_t, size_t> first_send;
            bool in_zero = false;
            int64_t zero_start = 0;
            for (size_t i = 0; i < segs.size(); ++i) {
                const SegmentInfo& s = segs[i];
                if (s.from != side || (s.flags & (tcpflag::kSyn | tcpflag::kRst))) continue;
                if (s.len > 0 && !s.retransmission) first_send.emplace(s.seq, i);
                if (s.ts_ns > call_e) break;  // after the call: not this call's
                if (s.retransmission && s.len > 0 && s.probe == probe::kNone) {
                    ++retx;
                    auto it = first_send.upper_bound(s.seq);
                    if (it != first_send.begin()) {
                        const SegmentInfo& o = segs[std::prev(it)->second];
                        if (s.seq < o.seq + o.len) {
                            int64_t d = s.ts_ns - o.ts_ns;
                            late.push_back(inside({o.ts_ns, s.ts_ns}));
                            longest = std::max(longest, d);
                            if (d >= kRtoNs) ++timeouts;
                            frames.push_back(o.frame);
                        }
                    }
                    frames.push_back(s.frame);
                }
                // Zero-window episodes: from the first zero to the reopening.
                if (!(s.flags & tcpflag::kAck) || (s.flags & tcpflag::kFin)) continue;
                if (s.window == 0 && !in_zero) {
                    in_zero = true;
                    zero_start = s.ts_ns;
                    ++zero;
                    frames.push_back(s.frame);
                } else if (s.window > 0 && in_zero) {
                    in_zero = false;
                    late.push_back(inside({zero_start, s.ts_ns}));
                    frames.push_back(s.frame);
                }
            }
            if (in_zero) late.push_back(inside({zero_start, call_e}));  // never reopened in the call
            if (!retx && !zero) continue;
            Finding f = make_finding(kind(), side, call);
            f.frames = frames;
            f.cost_ms = union_ms(late);
            f.cost_method = "time data was late: original send -> retransmission, zero window -> reopened "
                            "(overlaps counted once)";
            f.start_ns = f.end_ns = call_s;  // no interval (original not in the call's segments): the call's start
            bool first = true;
            for (auto& l : late) {
                if (l.e > l.s) f.intervals.push_back({l.s, l.e});
                if (first || l.s < f.start_ns) f.start_ns = l.s;
                first = false;
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
