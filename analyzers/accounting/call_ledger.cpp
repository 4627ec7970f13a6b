#include "analyzers/accounting/call_ledger.h"

#include "analyzers/result/call_reuse.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/ms_text.h"

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
    std::vector<int64_t> us, rem;
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
    us.resize(ns.size());
    int64_t sum = 0;
    for (size_t i = 0; i < ns.size(); ++i) sum += (us[i] = ns[i] / 1000);
    if (sum >= total_us || ns.empty()) return;  // the floors add up: no remainder order needed
    std::vector<int64_t>& rem = x.rem;
    rem.resize(ns.size());
    for (size_t i = 0; i < ns.size(); ++i) rem[i] = ns[i] % 1000;
    std::vector<size_t>& order = x.order;
    order.resize(ns.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    small_stable_sort(order, [&](size_t a, size_t b) { return rem[a] > rem[b]; });
    for (size_t k = 0; sum < total_us; k = (k + 1) % order.size(), ++sum) ++us[order[k]];
}

} // namespace


bool is_stall_cause(std::string_view cause) {
    return cause != kRequestTransfer && cause != kServer && cause != kResponseTransfer && cause != kNetwork;
}

bool is_setup_kind(const std::string& kind) {
    const FindingKindInfo* k = find_finding_kind(kind);
    return k && k->time == KindTime::Setup;
}

void account_finding(Finding& f, size_t complete_calls) {
    // Its time is part of the connection's setup, which connection_setup counts.
    if (is_setup_kind(f.kind) && f.kind != "connection_setup") { f.counted_ms = 0; return; }
    if (!f.intervals.empty()) return;  // the sweep of its call counted it (0 on an incomplete call)
    const size_t calls = f.calls.empty() ? 1 : f.calls.size();
    f.counted_ms = complete_calls >= calls ? f.cost_ms : f.cost_ms * double(complete_calls) / double(calls);
}

namespace {

// The call's fixed points: S..E the call, b1 its last request byte, b2 its
// first response byte. Network inside b1..b2: [b1, n1) the request on its way
// to the server, [n2, answer) the answer on its way back; server processing in
// between. The server's first answer is a 100 Continue sent after the
// request, if any.
struct Bounds {
    int64_t S, E, b1, b2, answer, n1, n2;
    int64_t to_server;
    int64_t clamp(int64_t t) const { return std::clamp(t, S, E); }
};

Bounds bounds_of(const Call& call, const PathPosition& where) {
    Bounds b{};
    b.S = call.start_ns;
    b.E = call.end_ns;
    b.b1 = call.request.last_ns ? b.clamp(call.request.last_ns) : b.S;
    b.b2 = call.response.first_ns ? std::max(b.b1, b.clamp(call.response.first_ns)) : b.b1;
    b.answer = call.got_continue && call.continue_ns > b.b1 && call.continue_ns < b.b2 ? call.continue_ns : b.b2;
    b.to_server = std::min(path_to(where, Side::Server), b.answer - b.b1);
    b.n1 = b.b1 + b.to_server / 2;
    b.n2 = b.answer - (b.to_server - b.to_server / 2);
    return b;
}

// A Nagle hold between request and response (the response behind a 100
// Continue) starts one round trip after its small segment A: A.send ->
// A.send + RTT is the data's way to the peer and the ACK's way back, the
// path's time, not the server's (only where the path is placed at all).
// Into x.net, their ends into x.points.
void collect_network_holds(Scratch& x, const Bounds& b, const PathPosition& where, std::span<const Finding> findings) {
    x.net.clear();
    if (b.to_server <= 0 && path_to(where, Side::Client) <= 0) return;
    for (const Finding& f : findings) {
        if (f.kind != "nagle_delayed_ack" || f.intervals.empty()) continue;
        int64_t lo = std::max(f.start_ns, b.b1), hi = std::min(f.intervals.front().start_ns, b.b2);
        if (hi <= lo) continue;
        x.net.push_back({lo, hi});
        x.points.push_back(lo);
        x.points.push_back(hi);
    }
}

// The stalls with their intervals clipped to the call, in precedence order;
// server_time is the "server" cause itself. Into x.stalls and x.iv.
void collect_stalls(Scratch& x, const Bounds& b, std::span<Finding> findings) {
    for (Finding& f : findings) {
        if (f.intervals.empty() || !is_avoidable(f.kind)) continue;
        Stall s{&f, x.iv.size(), x.iv.size(), b.E};
        for (auto i : f.intervals) {
            i.start_ns = b.clamp(i.start_ns);
            i.end_ns = b.clamp(i.end_ns);
            if (i.end_ns <= i.start_ns) continue;
            x.iv.push_back(i);
            s.first = std::min(s.first, i.start_ns);
            x.points.push_back(i.start_ns);
            x.points.push_back(i.end_ns);
        }
        s.iv_end = x.iv.size();
        x.stalls.push_back(s);
    }
    small_stable_sort(x.stalls, [](const Stall& a, const Stall& b) {
        int pa = precedence(a.f->kind), pb = precedence(b.f->kind);
        return pa != pb ? pa < pb : a.first < b.first;
    });
}

// Owners in x.owned: 0..stalls-1, then the four plain causes.
struct Owners {
    size_t req, srv, resp, net;
    explicit Owners(size_t stalls) : req(stalls), srv(stalls + 1), resp(stalls + 2), net(stalls + 3) {}
};

// The sweep: every elementary piece between two points goes to one owner
// (the covering stall with precedence, else the plain cause of where it
// lies); where stalls overlap, x.overlap[root * n + other] grows. The pieces
// and the stalls covering each are kept for the savings.
void sweep(Scratch& x, const Bounds& b, const Owners& o) {
    const size_t n = x.stalls.size();
    x.owned.assign(n + 4, 0);
    x.overlap.assign(n * n, 0);
    x.pieces.clear();
    x.covering.clear();
    x.covering_end.clear();
    auto in_net = [&](int64_t lo, int64_t hi) {
        for (const Finding::Interval& i : x.net)
            if (i.start_ns <= lo && hi <= i.end_ns) return true;
        return false;
    };
    for (size_t k = 0; k + 1 < x.points.size(); ++k) {
        int64_t lo = x.points[k], hi = x.points[k + 1];
        const size_t cov_begin = x.covering.size();
        for (size_t i = 0; i < n; ++i)
            if (covers(x, x.stalls[i], lo, hi)) x.covering.push_back(i);
        const size_t cov_end = x.covering.size();
        const bool any = cov_end > cov_begin;
        const size_t front = any ? x.covering[cov_begin] : 0;
        size_t owner = any                                          ? front
                       : hi <= b.b1                                 ? o.req
                       : hi <= b.n1 || (lo >= b.n2 && hi <= b.answer) ? o.net
                       : hi <= b.b2                                 ? (in_net(lo, hi) ? o.net : o.srv)
                                                                    : o.resp;
        x.owned[owner] += hi - lo;
        for (size_t j = cov_begin + 1; j < cov_end; ++j) x.overlap[front * n + x.covering[j]] += hi - lo;
        x.pieces.push_back({lo, hi});
        x.covering_end.push_back(cov_end);
    }
}

// The partition in microseconds that add up to the latency as reports print
// it, into call.attribution; each stall's counted_ms, its cost clipped to the
// call, server_time's time, and the findings with no intervals.
void write_attribution(Scratch& x, const Owners& o, Call& call, std::span<Finding> findings) {
    const size_t n = x.stalls.size();
    to_us(x, x.owned, ms_to_us(call.latency_ms));
    const std::vector<int64_t>& us = x.us;
    call.attribution.reserve(4 + n);
    auto push_share = [&](std::string_view cause, int64_t v) {
        TimeShare& t = call.attribution.emplace_back();  // built in place, not moved in
        t.cause = reused_string();                       // a cleared call's buffer: no allocation
        t.cause.assign(cause);
        t.ms = double(v) / 1000.0;
    };
    // The plain causes first: distinct (attribution was cleared), so only
    // the stalls search for an entry of their name.
    push_share(kRequestTransfer, us[o.req]);
    push_share(kServer, us[o.srv]);
    push_share(kResponseTransfer, us[o.resp]);
    if (us[o.net] > 0) push_share(kNetwork, us[o.net]);
    auto add_share = [&](std::string_view cause, int64_t v) {  // a view: no temporary string per cause
        for (TimeShare& t : call.attribution)
            if (t.cause == cause) { t.ms = double(ms_to_us(t.ms) + v) / 1000.0; return; }
        push_share(cause, v);
    };
    for (size_t i = 0; i < n; ++i) {
        if (us[i] > 0) add_share(x.stalls[i].f->kind, us[i]);
        x.stalls[i].f->counted_ms = double(us[i]) / 1000.0;
        int64_t span = 0;
        for (size_t k = x.stalls[i].iv_begin; k < x.stalls[i].iv_end; ++k)
            span += x.iv[k].end_ns - x.iv[k].start_ns;  // disjoint per finding
        x.stalls[i].f->cost_ms = std::min(x.stalls[i].f->cost_ms, double(span) / 1e6);
    }
    for (Finding& f : findings) {
        if (f.kind == "server_time") f.cost_ms = f.counted_ms = double(us[o.srv]) / 1000.0;
        else if (f.intervals.empty()) account_finding(f, f.calls.size());  // this call, complete
    }
}

// Say in both findings where they overlap, and which one is the root.
void note_overlaps(const Scratch& x) {
    const size_t n = x.stalls.size();
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c < n; ++c) {
            if (!x.overlap[r * n + c]) continue;
            std::string m = ms_number(double(x.overlap[r * n + c]) / 1e6, 1);
            Finding &root = *x.stalls[r].f, &other = *x.stalls[c].f;
            root.details.push_back({"overlap", m + " ms of it is also the " + other.kind + " finding (" +
                                                   side_name(other.side) + " side): one wait, counted here, "
                                                   "where the chain started"});
            other.details.push_back({"overlap", m + " ms of it is also the " + root.kind + " finding (" +
                                                    side_name(root.side) + " side), which started the chain: "
                                                    "counted there, not here"});
        }
}

// What each fix (kind, side) removes: its own intervals and those of the
// findings it is the root of (with the root gone, what it set off goes too).
void add_savings(Scratch& x, Call& call) {
    const size_t n = x.stalls.size();
    auto& fixes = x.fixes;
    fixes.clear();
    for (auto& s : x.stalls)
        if (std::find_if(fixes.begin(), fixes.end(), [&](auto& fx) {
                return *fx.first == s.f->kind && fx.second == s.f->side;
            }) == fixes.end())
            fixes.push_back({&s.f->kind, s.f->side});
    for (auto& [kind, side] : fixes) {
        std::vector<char>& removed = x.removed;
        removed.assign(n, 0);
        for (size_t r = 0; r < n; ++r) {
            if (x.stalls[r].f->kind != *kind || x.stalls[r].f->side != side) continue;
            removed[r] = 1;
            for (size_t c = 0; c < n; ++c)
                if (x.overlap[r * n + c]) removed[c] = 1;
        }
        int64_t gone = 0;
        for (size_t k = 0; k < x.pieces.size(); ++k)
            for (size_t j = k ? x.covering_end[k - 1] : 0; j < x.covering_end[k]; ++j)
                if (removed[x.covering[j]]) { gone += x.pieces[k].second - x.pieces[k].first; break; }
        if (gone > 0) {
            std::string name = reused_string();
            name.assign(*kind);
            call.savings.push_back({std::move(name), side, double(gone) / 1e6});
        }
    }
}

} // namespace

void account_call(Call& call, const Connection& conn, std::span<Finding> findings) {
    account_call(call, conn, path_position(conn), findings);
}

void account_call(Call& call, const Connection& conn, const PathPosition& where, std::span<Finding> findings) {
    call.attribution.clear();
    call.savings.clear();
    call.view = place_of(where);
    call.client_path_ms = where.known ? double(path_to(where, Side::Client)) / 1e6 : -1;
    call.setup_ms = call.opened_connection && conn.saw_syn && conn.syn_ns > 0 && conn.syn_ns <= call.start_ns
                        ? double(call.start_ns - conn.syn_ns) / 1e6
                        : -1;
    if (!call.complete || call.end_ns < call.start_ns) {
        for (Finding& f : findings) account_finding(f, 0);
        return;
    }
    const Bounds b = bounds_of(call, where);
    thread_local Scratch x;
    x.stalls.clear();
    x.iv.clear();
    x.points.assign({b.S, b.E, b.b1, b.b2, b.n1, b.n2, b.answer});
    collect_network_holds(x, b, where, findings);
    collect_stalls(x, b, findings);
    if (x.stalls.empty() && x.net.empty()) {
        // Most calls: no stall, no Nagle hold on the path. The fixed points
        // are ordered S <= b1 <= n1 <= n2 <= answer <= b2 <= E, and the sweep
        // would give each piece between them to its plain cause; the same
        // sums without sorting points. No stall: no overlap, no saving.
        const Owners owners(0);
        x.owned.assign(4, 0);
        x.owned[owners.req] = b.b1 - b.S;
        x.owned[owners.net] = (b.n1 - b.b1) + (b.answer - b.n2);
        x.owned[owners.srv] = (b.n2 - b.n1) + (b.b2 - b.answer);
        x.owned[owners.resp] = b.E - b.b2;
        write_attribution(x, owners, call, findings);
        return;
    }
    std::sort(x.points.begin(), x.points.end());
    x.points.erase(std::unique(x.points.begin(), x.points.end()), x.points.end());
    const Owners owners(x.stalls.size());
    sweep(x, b, owners);
    write_attribution(x, owners, call, findings);
    note_overlaps(x);
    add_savings(x, call);
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
        if (is_stall_cause(t.cause)) us += ms_to_us(t.ms);
    return double(us) / 1000.0;
}

double client_ms(const Call& c) { return c.latency_ms + std::max(0.0, c.setup_ms); }

double predicted_ms(const Call& c) { return std::max(0.0, c.latency_ms - stall_ms(c)); }

double counted_share_ms(const Finding& f, size_t complete_calls) {
    return complete_calls ? f.counted_ms / double(complete_calls) : 0.0;
}

double setup_fix_saving_ms(const Finding& f, double call_setup_ms) {
    return f.kind == "connection_setup" && call_setup_ms > 0 ? call_setup_ms : 0.0;
}

void KindTotals::add(const std::string& kind, Side side, double ms) {
    auto it = by_kind_.find(kind);
    if (it == by_kind_.end()) it = by_kind_.emplace(kind, Sums{}).first;
    it->second.all += ms;
    it->second.by_side[side == Side::Client ? 0 : 1] += ms;
}

double KindTotals::ms(const std::string& kind) const {
    auto it = by_kind_.find(kind);
    return it == by_kind_.end() ? 0.0 : it->second.all;
}

double KindTotals::ms(const std::string& kind, Side side) const {
    auto it = by_kind_.find(kind);
    return it == by_kind_.end() ? 0.0 : it->second.by_side[side == Side::Client ? 0 : 1];
}

size_t LedgerTotals::slot(std::string_view cause, size_t hint) {
    if (hint < causes_.size() && causes_[hint].name == cause) return hint;
    for (size_t i = 0; i < causes_.size(); ++i)
        if (causes_[i].name == cause) return i;
    causes_.push_back({std::string(cause), 0, is_stall_cause(cause)});
    return causes_.size() - 1;
}

double LedgerTotals::add(const Call& c, LedgerTotals* also) {
    int64_t stall_us = 0;
    for (size_t i = 0; i < c.attribution.size(); ++i) {
        const TimeShare& t = c.attribution[i];
        const int64_t us = ms_to_us(t.ms);
        Cause& k = causes_[slot(t.cause, i)];
        k.us += us;
        if (k.stall) stall_us += us;  // k.stall = is_stall_cause(t.cause): stall_ms(c)'s sum
        if (also) also->causes_[also->slot(t.cause, i)].us += us;
    }
    if (c.setup_ms > 0) {
        setup_ms_ += c.setup_ms;
        if (also) also->setup_ms_ += c.setup_ms;
    }
    return double(stall_us) / 1000.0;
}

double LedgerTotals::cause_ms(std::string_view cause) const {
    for (const Cause& k : causes_)
        if (k.name == cause) return double(k.us) / 1000.0;
    return 0.0;
}

double LedgerTotals::avoidable_ms() const {
    int64_t sum = 0;
    for (const Cause& k : causes_)
        if (k.stall) sum += k.us;
    return double(sum) / 1000.0;
}

std::vector<TimeShare> LedgerTotals::by_cause() const {
    std::vector<const Cause*> named;
    for (const Cause& k : causes_) named.push_back(&k);
    std::sort(named.begin(), named.end(), [](const Cause* a, const Cause* b) { return a->name < b->name; });
    std::vector<TimeShare> v;
    for (const Cause* k : named) v.push_back({k->name, double(k->us) / 1000.0});
    std::stable_sort(v.begin(), v.end(), [](const TimeShare& a, const TimeShare& b) { return a.ms > b.ms; });
    return v;
}

} // namespace stallscope
