#include "analyzers/accounting/call_ledger.h"

#include "analyzers/result/call_reuse.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/result/finding_kinds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace stallscope {

namespace {

// Precedence where stalls cover the same time (the finding-kinds table):
// the cause that starts a chain comes first. A client waiting for 100
// Continue is why a 100 Continue (and a Nagle hold behind it) exists at all;
// a Nagle hold can contain a retransmission but not the other way round.
// Equal precedence: the earlier start.
int precedence(const std::string& kind) { return finding_kind_precedence(kind); }

std::string fmt_ms(double v) {
    char b[32];
    std::snprintf(b, sizeof b, v >= 10 ? "%.1f" : "%.3f", v);
    return b;
}

// A stall finding of this call with its intervals clipped to the call:
// intervals [iv_begin, iv_end) of the scratch's `iv`.
struct Stall {
    Finding* f;
    size_t iv_begin = 0, iv_end = 0;
    int64_t first = 0;
};

// Stable insertion sort: the same order as std::stable_sort, without its
// temporary buffer (the lists here are a call's few stalls).
template <class T, class Less>
void small_stable_sort(std::vector<T>& v, Less less) {
    if (v.size() > 32) { std::stable_sort(v.begin(), v.end(), less); return; }
    for (size_t i = 1; i < v.size(); ++i) {
        T x = v[i];
        size_t j = i;
        for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
        v[j] = x;
    }
}

// The sweep's working memory, kept from call to call (per thread): the
// ledger runs once per call and would otherwise allocate a dozen vectors.
constexpr size_t kKeepPoints = 4096;

struct Scratch {
    std::vector<Stall> stalls;
    std::vector<Finding::Interval> iv, net;
    std::vector<int64_t> points, owned, overlap;  // overlap: stalls x stalls, row-major
    std::vector<std::pair<int64_t, int64_t>> pieces;
    std::vector<size_t> covering, covering_end;   // stalls covering piece k: covering[covering_end[k-1], covering_end[k])
    std::vector<int64_t> us;
    std::vector<size_t> order;
    std::vector<std::pair<const std::string*, Side>> fixes;
    std::vector<char> removed;
};

bool covers(const Scratch& x, const Stall& s, int64_t lo, int64_t hi) {
    for (size_t k = s.iv_begin; k < s.iv_end; ++k)
        if (x.iv[k].start_ns <= lo && hi <= x.iv[k].end_ns) return true;
    return false;
}

// Rounds parts (ns) to integer microseconds that add up to total_us
// exactly: floors, then the remaining microseconds to the largest
// remainders. Into x.us.
void to_us(Scratch& x, const std::vector<int64_t>& ns, int64_t total_us) {
    std::vector<int64_t>& us = x.us;
    us.assign(ns.size(), 0);
    int64_t sum = 0;
    for (size_t i = 0; i < ns.size(); ++i) sum += (us[i] = ns[i] / 1000);
    std::vector<size_t>& order = x.order;
    order.resize(ns.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    small_stable_sort(order, [&](size_t a, size_t b) { return ns[a] % 1000 > ns[b] % 1000; });
    for (size_t k = 0; sum < total_us && !order.empty(); k = (k + 1) % order.size(), ++sum) ++us[order[k]];
}

} // namespace


bool is_stall_cause(const std::string& cause) {
    return cause != kRequestTransfer && cause != kServer && cause != kResponseTransfer && cause != kNetwork;
}

bool is_setup_kind(const std::string& kind) {
    const FindingKindInfo* k = find_finding_kind(kind);
    return k && k->time == KindTime::Setup;
}

void account_finding(Finding& f) {
    // Its time is part of the connection's setup, which connection_setup counts.
    if (is_setup_kind(f.kind) && f.kind != "connection_setup") { f.counted_ms = 0; return; }
    if (f.intervals.empty()) f.counted_ms = f.cost_ms;
}

void account_call(Call& call, const Connection& conn, std::span<Finding> findings) {
    call.attribution.clear();
    call.savings.clear();
    const PathPosition where = path_position(conn);
    call.view = place_of(where);
    call.client_path_ms = where.known ? double(path_to(where, Side::Client)) / 1e6 : -1;
    call.setup_ms = call.opened_connection && conn.saw_syn && conn.syn_ns > 0 && conn.syn_ns <= call.start_ns
                        ? double(call.start_ns - conn.syn_ns) / 1e6
                        : -1;
    if (!call.complete || call.end_ns < call.start_ns) {
        for (Finding& f : findings) account_finding(f);
        return;
    }
    const int64_t S = call.start_ns, E = call.end_ns;
    auto clamp = [&](int64_t t) { return std::clamp(t, S, E); };
    const int64_t b1 = call.request.last_ns ? clamp(call.request.last_ns) : S;
    const int64_t b2 = call.response.first_ns ? std::max(b1, clamp(call.response.first_ns)) : b1;
    // Network inside b1..b2: [b1, n1) the request on its way to the server,
    // [n2, answer) the answer on its way back; server processing in between.
    // The server's first answer is a 100 Continue sent after the request, if any.
    const int64_t answer = call.got_continue && call.continue_ns > b1 && call.continue_ns < b2 ? call.continue_ns : b2;
    const int64_t to_server = std::min(path_to(where, Side::Server), answer - b1);
    const int64_t n1 = b1 + to_server / 2, n2 = answer - (to_server - to_server / 2);

    // The stalls, in precedence order; server_time is the "server" cause itself.
    thread_local Scratch x;
    std::vector<Stall>& stalls = x.stalls;
    std::vector<int64_t>& points = x.points;
    stalls.clear();
    x.iv.clear();
    points.assign({S, E, b1, b2, n1, n2, answer});
    // A Nagle hold between request and response (the response behind a 100
    // Continue) starts one round trip after its small segment A: A.send ->
    // A.send + RTT is the data's way to the peer and the ACK's way back, the
    // path's time, not the server's (only where the path is placed at all).
    std::vector<Finding::Interval>& net = x.net;
    net.clear();
    if (to_server > 0 || path_to(where, Side::Client) > 0)
        for (const Finding& f : findings) {
            if (f.kind != "nagle_delayed_ack" || f.intervals.empty()) continue;
            int64_t lo = std::max(f.start_ns, b1), hi = std::min(f.intervals.front().start_ns, b2);
            if (hi <= lo) continue;
            net.push_back({lo, hi});
            points.push_back(lo);
            points.push_back(hi);
        }
    for (Finding& f : findings) {
        if (f.intervals.empty() || !is_avoidable(f.kind)) continue;
        Stall s{&f, x.iv.size(), x.iv.size(), E};
        for (auto i : f.intervals) {
            i.start_ns = clamp(i.start_ns);
            i.end_ns = clamp(i.end_ns);
            if (i.end_ns <= i.start_ns) continue;
            x.iv.push_back(i);
            s.first = std::min(s.first, i.start_ns);
            points.push_back(i.start_ns);
            points.push_back(i.end_ns);
        }
        s.iv_end = x.iv.size();
        stalls.push_back(s);
    }
    small_stable_sort(stalls, [](const Stall& a, const Stall& b) {
        int pa = precedence(a.f->kind), pb = precedence(b.f->kind);
        return pa != pb ? pa < pb : a.first < b.first;
    });
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());

    // Owners: 0..stalls-1, then the four plain causes.
    const size_t n = stalls.size();
    const size_t kReq = n, kSrv = kReq + 1, kResp = kReq + 2, kNet = kReq + 3;
    std::vector<int64_t>& owned = x.owned;
    owned.assign(n + 4, 0);
    std::vector<int64_t>& overlap = x.overlap;
    overlap.assign(n * n, 0);
    auto& pieces = x.pieces;  // elementary pieces, for the savings below
    pieces.clear();
    x.covering.clear();
    x.covering_end.clear();
    for (size_t k = 0; k + 1 < points.size(); ++k) {
        int64_t lo = points[k], hi = points[k + 1];
        const size_t cov_begin = x.covering.size();
        for (size_t i = 0; i < n; ++i)
            if (covers(x, stalls[i], lo, hi)) x.covering.push_back(i);
        const size_t cov_end = x.covering.size();
        const bool any = cov_end > cov_begin;
        const size_t front = any ? x.covering[cov_begin] : 0;
        auto in_net = [&] {
            for (const Finding::Interval& i : net)
                if (i.start_ns <= lo && hi <= i.end_ns) return true;
            return false;
        };
        size_t owner = any                                      ? front
                       : hi <= b1                               ? kReq
                       : hi <= n1 || (lo >= n2 && hi <= answer) ? kNet
                       : hi <= b2                               ? (in_net() ? kNet : kSrv)
                                                                : kResp;
        owned[owner] += hi - lo;
        for (size_t j = cov_begin + 1; j < cov_end; ++j) overlap[front * n + x.covering[j]] += hi - lo;
        pieces.push_back({lo, hi});
        x.covering_end.push_back(cov_end);
    }

    // Microseconds that add up to the latency as reports print it.
    to_us(x, owned, int64_t(std::llround(call.latency_ms * 1000.0)));
    const std::vector<int64_t>& us = x.us;
    call.attribution.reserve(3 + n);
    auto add_share = [&](std::string_view cause, int64_t v) {  // a view: no temporary string per cause
        for (TimeShare& t : call.attribution)
            if (t.cause == cause) { t.ms = double(std::llround(t.ms * 1000.0) + v) / 1000.0; return; }
        std::string name = reused_string();  // a cleared call's buffer: no allocation
        name.assign(cause);
        call.attribution.push_back({std::move(name), double(v) / 1000.0});
    };
    add_share(kRequestTransfer, us[kReq]);
    add_share(kServer, us[kSrv]);
    add_share(kResponseTransfer, us[kResp]);
    if (us[kNet] > 0) add_share(kNetwork, us[kNet]);
    for (size_t i = 0; i < n; ++i) {
        if (us[i] > 0) add_share(stalls[i].f->kind, us[i]);
        stalls[i].f->counted_ms = double(us[i]) / 1000.0;
        int64_t span = 0;
        for (size_t k = stalls[i].iv_begin; k < stalls[i].iv_end; ++k)
            span += x.iv[k].end_ns - x.iv[k].start_ns;  // disjoint per finding
        stalls[i].f->cost_ms = std::min(stalls[i].f->cost_ms, double(span) / 1e6);
    }
    for (Finding& f : findings) {
        if (f.kind == "server_time") f.cost_ms = f.counted_ms = double(us[kSrv]) / 1000.0;
        else if (f.intervals.empty()) account_finding(f);
    }

    // Say in both findings where they overlap, and which one is the root.
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c < n; ++c) {
            if (!overlap[r * n + c]) continue;
            std::string m = fmt_ms(double(overlap[r * n + c]) / 1e6);
            Finding &root = *stalls[r].f, &other = *stalls[c].f;
            root.details.push_back({"overlap", m + " ms of it is also the " + other.kind + " finding (" +
                                                   side_name(other.side) + " side): one wait, counted here, "
                                                   "where the chain started"});
            other.details.push_back({"overlap", m + " ms of it is also the " + root.kind + " finding (" +
                                                    side_name(root.side) + " side), which started the chain: "
                                                    "counted there, not here"});
        }

    // What each fix (kind, side) removes: its own intervals and those of the
    // findings it is the root of (with the root gone, what it set off goes too).
    auto& fixes = x.fixes;
    fixes.clear();
    for (auto& s : stalls)
        if (std::find_if(fixes.begin(), fixes.end(), [&](auto& fx) {
                return *fx.first == s.f->kind && fx.second == s.f->side;
            }) == fixes.end())
            fixes.push_back({&s.f->kind, s.f->side});
    for (auto& [kind, side] : fixes) {
        std::vector<char>& removed = x.removed;
        removed.assign(n, 0);
        for (size_t r = 0; r < n; ++r) {
            if (stalls[r].f->kind != *kind || stalls[r].f->side != side) continue;
            removed[r] = 1;
            for (size_t c = 0; c < n; ++c)
                if (overlap[r * n + c]) removed[c] = 1;
        }
        int64_t gone = 0;
        for (size_t k = 0; k < pieces.size(); ++k)
            for (size_t j = k ? x.covering_end[k - 1] : 0; j < x.covering_end[k]; ++j)
                if (removed[x.covering[j]]) { gone += pieces[k].second - pieces[k].first; break; }
        if (gone > 0) {
            std::string name = reused_string();
            name.assign(*kind);
            call.savings.push_back({std::move(name), side, double(gone) / 1e6});
        }
    }
    // A hostile call (thousands of stall intervals) does not keep its buffers.
    if (x.points.capacity() > kKeepPoints) x = Scratch{};
}

std::vector<Finding::Interval> counted_intervals(const Finding& f, std::span<const Finding* const> others) {
    std::vector<Finding::Interval> out = f.intervals;
    if (out.empty() && f.end_ns > f.start_ns) out.push_back({f.start_ns, f.end_ns});
    const bool is_server = !is_avoidable(f.kind);
    auto index_of = [&](const Finding* x) { return std::find(others.begin(), others.end(), x) - others.begin(); };
    auto first_start = [](const Finding& x) {
        int64_t t = x.intervals.empty() ? x.start_ns : x.intervals.front().start_ns;
        for (auto& i : x.intervals) t = std::min(t, i.start_ns);
        return t;
    };
    for (const Finding* o : others) {
        if (o == &f || o->intervals.empty() || !is_avoidable(o->kind)) continue;
        bool shares_call = false;
        for (uint64_t id : o->calls) shares_call |= std::find(f.calls.begin(), f.calls.end(), id) != f.calls.end();
        if (!shares_call) continue;
        int po = precedence(o->kind), pf = precedence(f.kind);
        int64_t so = first_start(*o), sf = first_start(f);  // the ledger's order: precedence, start, then input order
        bool wins = is_server || po < pf || (po == pf && (so < sf || (so == sf && index_of(o) < index_of(&f))));
        if (!wins) continue;
        for (auto& cut : o->intervals) {  // out minus cut
            std::vector<Finding::Interval> next;
            for (auto& i : out) {
                if (cut.end_ns <= i.start_ns || cut.start_ns >= i.end_ns) { next.push_back(i); continue; }
                if (i.start_ns < cut.start_ns) next.push_back({i.start_ns, cut.start_ns});
                if (cut.end_ns < i.end_ns) next.push_back({cut.end_ns, i.end_ns});
            }
            out = std::move(next);
        }
    }
    return out;
}

double stall_ms(const Call& c) {
    int64_t us = 0;
    for (const TimeShare& t : c.attribution)
        if (is_stall_cause(t.cause)) us += std::llround(t.ms * 1000.0);
    return double(us) / 1000.0;
}

double client_ms(const Call& c) { return c.latency_ms + std::max(0.0, c.setup_ms); }

void LedgerTotals::add(const Call& c) {
    for (const TimeShare& t : c.attribution) us_[t.cause] += std::llround(t.ms * 1000.0);
    if (c.setup_ms > 0) setup_ms_ += c.setup_ms;
}

double LedgerTotals::cause_ms(const std::string& cause) const {
    auto it = us_.find(cause);
    return it == us_.end() ? 0.0 : double(it->second) / 1000.0;
}

double LedgerTotals::avoidable_ms() const {
    int64_t sum = 0;
    for (auto& [cause, us] : us_)
        if (is_stall_cause(cause)) sum += us;
    return double(sum) / 1000.0;
}

std::vector<TimeShare> LedgerTotals::by_cause() const {
    std::vector<TimeShare> v;
    for (auto& [cause, us] : us_) v.push_back({cause, double(us) / 1000.0});
    std::stable_sort(v.begin(), v.end(), [](const TimeShare& a, const TimeShare& b) { return a.ms > b.ms; });
    return v;
}

} // namespace stallscope
