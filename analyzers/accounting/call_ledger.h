#pragma once
// The call ledger: the one place where a call's time is shared out.
//
// Detectors report the intervals a stall took (Finding::intervals). The
// ledger sweeps them, with the call's message boundaries, into a partition
// of the call's latency (Call::attribution): every instant between the
// first request byte and the last response byte goes to exactly one cause.
// It also says whose view the latency is (Call::view, client_path_ms).
// Where findings cover the same instant it goes to the one with precedence
// (the cause that started the chain, see kStallPrecedence); the other is
// told in its details. Time no stall covers is plain transfer of the
// request, server processing, or transfer of the response.
//
// The summary, the reports and the GUI read these numbers; none adds costs
// of its own. See docs/json-format.md ("attribution").
#include "analyzers/result/capture_point.h"
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/model.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// Cause names of the time no stall covers.
inline constexpr const char* kRequestTransfer = "request_transfer";   // first -> last request byte
inline constexpr const char* kServer = "server";                      // last request byte -> first response byte
inline constexpr const char* kResponseTransfer = "response_transfer"; // first -> last response byte
// The way from the capture point to the server and back, inside last request
// byte -> first response byte (analyzers/result/capture_point.h): the request's
// transit at its start, the response's at its end; and there the first round
// trip of a Nagle hold (A.send -> A.send + RTT, before the hold proper). Only
// where the path's round trip is 1 ms or more; listed only when not 0.
inline constexpr const char* kNetwork = "network";

// Fills call.attribution, call.setup_ms and call.savings, and in each of
// `findings` (those the detectors just made for this call) counted_ms, a
// cost_ms clipped to the call, and an "overlap" detail where two cover the
// same time. `conn` is the connection as known when the call finished.
void account_call(Call& call, const Connection& conn, std::span<Finding> findings);
// The same, given path_position(conn) (CallScan::where: found once a call).
void account_call(Call& call, const Connection& conn, const PathPosition& where, std::span<Finding> findings);

// A finding with no intervals (connection_setup, message_size, split_write):
// counted_ms = cost_ms, in the share of its calls that are complete
// (`complete_calls` of f.calls): an incomplete call has no latency to share
// out, so a finding on one counts no time, as a stall on one never does.
// Idempotent; run on every finding at the end, when completeness is known.
void account_finding(Finding& f, size_t complete_calls);

// True for kinds whose time lies before the first request byte, in the
// connection's setup (connection_setup, tls_resumption_missing): charged to
// the client's time (setup + latency), not to latency_ms.
bool is_setup_kind(const std::string& kind);

// True for an attribution cause that is a stall (not transfer or server).
bool is_stall_cause(std::string_view cause);

// A call's stall time (the stall causes of its partition), and its time as
// the client lives it: connection setup (when it opened its connection)
// plus latency.
double stall_ms(const Call& c);
double client_ms(const Call& c);
// A call's latency with every stall gone (the "all stalls" fix).
double predicted_ms(const Call& c);

// What each complete call of `f` carries of f.counted_ms: an equal share.
// Summed over a kind's findings and their complete calls it is the kind's
// total (KindTotals), per operation as overall.
double counted_share_ms(const Finding& f, size_t complete_calls);

// What fixing a connection_setup finding saves its call: the call's whole
// setup (SYN -> first request byte, its client time before latency), not
// only the handshake the finding costs. 0 for every other kind.
double setup_fix_saving_ms(const Finding& f, double call_setup_ms);

// The stretches of `f`'s time the ledger counts under it: its intervals
// (start_ns..end_ns for a finding without any, e.g. connection_setup) minus
// those of the findings in `others` (the findings of the same call(s)) that
// take precedence over it. server_time keeps what no stall covers. What the
// diagrams draw as f's stall brackets.
std::vector<Finding::Interval> counted_intervals(const Finding& f, std::span<const Finding* const> others);

// A stall bracket shorter than this is not drawn as a stall (a 0.04 ms
// loopback handshake): 1 ms, the smallest change `compare` calls noticeable
// (--min-change-ms); the waits StallScope explains are 40 ms delayed ACKs,
// 200 ms RTOs, 1 s Expect timers. docs/diagrams.md.
inline constexpr double kMinStallBracketMs = 1.0;

// std::llround(ms * 1000.0), the ledger's integer microseconds, without a
// libm call where the value is in range (the summary adds every cause of
// every call through it).
inline int64_t ms_to_us(double ms) {
    const double x = ms * 1000.0;
    if (!(x > -4e15 && x < 4e15)) return std::llround(x);  // out of range, NaN
    int64_t i = int64_t(x);             // toward zero, exact
    const double frac = x - double(i);  // exact below 2^52
    if (frac >= 0.5) ++i;
    else if (frac <= -0.5) --i;
    return i;
}

// Sums of the partition over a group of calls, by cause (for the summary).
// Each cause gets a slot the first time it is seen (its name is compared
// only then and where a call lists its causes in another order): a call's
// attribution is added with a few length compares, not a map lookup per cause.
class LedgerTotals {
public:
    // Adds c's partition here and, when given, to `also` (another group's
    // totals: the summary adds each call overall and to its operation's row),
    // each cause rounded to microseconds once. Returns stall_ms(c).
    double add(const Call& c, LedgerTotals* also = nullptr);
    double cause_ms(std::string_view cause) const;
    double avoidable_ms() const;
    double transfer_ms() const { return cause_ms(kRequestTransfer) + cause_ms(kResponseTransfer); }
    double setup_ms() const { return setup_ms_; }
    // By cause, largest first (ties by name).
    std::vector<TimeShare> by_cause() const;

private:
    struct Cause {
        std::string name;
        int64_t us = 0;     // integer microseconds, exact
        bool stall = false; // is_stall_cause(name)
    };
    // The slot of `cause`, trying `hint` (its position in the call) first.
    size_t slot(std::string_view cause, size_t hint);
    std::vector<Cause> causes_;  // in the order first seen
    double setup_ms_ = 0;
};

// Time counted per finding kind, and per kind and side: the findings'
// counted_ms added in the order given (report order fixes how the sums
// round). The one per-kind total: the summary's losses, the text report's
// Findings groups, compare and the GUI's finding groups add through it, so
// they can never disagree.
class KindTotals {
public:
    void add(const Finding& f) { add(f.kind, f.side, f.counted_ms); }
    void add(const std::string& kind, Side side, double ms);
    double ms(const std::string& kind) const;
    double ms(const std::string& kind, Side side) const;

private:
    // One entry per kind, found by the kind's name alone (std::less<>: no
    // key string built per add); each sum adds in the order given, as before.
    struct Sums {
        double all = 0;
        double by_side[2] = {0, 0};  // Side::Client, Side::Server
    };
    std::map<std::string, Sums, std::less<>> by_kind_;
};

} // namespace stallscope
