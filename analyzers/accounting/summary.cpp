#include "analyzers/accounting/summary.h"

#include "analyzers/accounting/sorted_series.h"
#include "analyzers/spill/external_sort.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace stallscope {

std::string operation_key(const Call& c) {
    if (!c.soap.operation.empty()) return c.soap.operation;
    if (c.encrypted) return "(encrypted)";  // TLS without keys: one group
    std::string path = c.uri.substr(0, c.uri.find('?'));
    return c.method.empty() ? std::string("(no request line)") : c.method + " " + path;
}

namespace {
constexpr size_t kSeriesRun = 1 << 18;  // values of a summary series sorted in memory at a time (2 MiB)

// Which series of a group (build()'s keys): these, then fix indexes.
enum : int64_t { kLived = -4, kLatency = -3, kClient = -2, kFixedAll = -1 };

// The statistics of n values seen in ascending order: the median (mean of
// the two middle ones when n is even), the nearest-rank 90th percentile,
// the max, and the total summed in that order (it fixes how the sum rounds).
class SortedStats {
public:
    explicit SortedStats(size_t n) : n_(n), p90_at_(p90_rank(n)) { s_.calls = n; }
    // Inlined: once per value of every series (a call of its own was 16 instructions of about 25).
    [[gnu::always_inline]] void add(double x) {
        if (n_ % 2 == 0 && i_ + 1 == n_ / 2) low_mid_ = x;
        if (i_ == n_ / 2) s_.median_ms = n_ % 2 ? x : (low_mid_ + x) / 2;
        if (i_ == p90_at_) s_.p90_ms = x;
        s_.max_ms = x;
        s_.total_ms += x;
        ++i_;
    }
    LatencyStats done() {
        if (n_) s_.mean_ms = s_.total_ms / double(n_);
        return s_;
    }

private:
    static size_t p90_rank(size_t n) {
        size_t rank = size_t(std::ceil(0.9 * double(n)));
        return n == 0 ? 0 : std::min(n - 1, rank == 0 ? 0 : rank - 1);
    }
    LatencyStats s_;
    size_t n_, p90_at_, i_ = 0;
    double low_mid_ = 0;
};
} // namespace

LatencyStats latency_stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    SortedStats st(v.size());
    for (double x : v) st.add(x);
    return st.done();
}

uint32_t SummaryBuilder::kind_bit(const std::string& kind) {
    for (size_t i = 0; i < kinds_.size(); ++i)
        if (kinds_[i] == kind) return uint32_t(1) << i;
    if (kinds_.size() >= 32) return 0;  // more kinds than bits: calls per kind stop being counted
    kinds_.push_back(kind);
    return uint32_t(1) << (kinds_.size() - 1);
}

uint32_t SummaryBuilder::fix_index(const std::string& kind, Side side) {
    for (size_t i = 0; i < fixes_.size(); ++i)
        if (fixes_[i].first == kind && fixes_[i].second == side) return uint32_t(i);
    fixes_.push_back({kind, side});
    return uint32_t(fixes_.size() - 1);
}

uint32_t SummaryBuilder::op_index(const Call& c) {
    // Calls of one operation come in runs: a SOAP call naming the last
    // operation seen needs no key built nor hashed.
    if (last_op_ < ops_.size() && !c.soap.operation.empty() && ops_[last_op_] == c.soap.operation) return last_op_;
    std::string op = operation_key(c);
    auto [it, added] = op_index_.try_emplace(op, uint32_t(ops_.size()));
    if (added) ops_.push_back(std::move(op));
    return last_op_ = it->second;
}

void SummaryBuilder::add_call(const Call& c) {
    // Every call names its operation's row, even one with no complete call.
    const uint32_t op = op_index(c);
    if (!c.complete || c.id == 0) return;  // incomplete calls have no latency to summarise
    SummaryRecords::Rec& r = calls_.at(c.id);
    r = SummaryRecords::Rec{};
    r.complete = 1;
    r.op = op;
    r.latency_ms = c.latency_ms;
    r.setup_ms = c.setup_ms;
    // Every time here is the call ledger's; the partition is added overall
    // and to the operation's row, and gives stall_ms(c), in one pass.
    if (totals_.size() < ops_.size() + 1) totals_.resize(ops_.size() + 1);
    r.avoidable_ms = totals_[0].add(c, &totals_[r.op + 1]);
    r.client_ms = client_ms(c);
    r.predicted_ms = std::max(0.0, c.latency_ms - r.avoidable_ms);  // predicted_ms(c), stall_ms once
    if (c.client_path_ms >= 0) {
        r.lived = 1;
        r.lived_ms = c.latency_ms + c.client_path_ms;
    }
    for (const FixSaving& s : c.savings) calls_.add_saving(c.id, r, {fix_index(s.kind, s.side), 0, s.ms});
}

void SummaryBuilder::add_finding(const Finding& f) { add_finding(f, complete_calls(f)); }

void SummaryBuilder::add_finding(const Finding& f, size_t complete) {
    // The time comes from the call ledger (counted_ms: each millisecond
    // once); here the findings are only counted.
    if (groups_.size() < ops_.size() + 1) groups_.resize(ops_.size() + 1);
    if (totals_by_kind_.size() < ops_.size() + 1) totals_by_kind_.resize(ops_.size() + 1);
    uint32_t bit = kind_bit(f.kind);
    std::vector<size_t> counted;  // groups this finding was counted in: once per group
    for (uint64_t id : f.calls) {
        if (!is_complete(id)) continue;
        SummaryRecords::Rec& c = calls_.at(id);
        for (size_t g : {size_t(0), size_t(c.op) + 1}) {
            KindLoss& k = groups_[g].losses[f.kind];
            if (k.kind.empty()) {  // new: both depend on the kind only
                k.kind = f.kind;
                k.avoidable = is_avoidable(f.kind);
            }
            totals_by_kind_[g].add(f.kind, f.side, counted_share_ms(f, complete));
            if (std::find(counted.begin(), counted.end(), g) == counted.end()) ++k.findings;
            if (!(c.kinds & bit)) ++k.calls;
        }
        counted.push_back(0);
        counted.push_back(size_t(c.op) + 1);
        c.kinds |= bit;
        // Keep-alive takes the setup off the client's time, not off latency_ms.
        if (double saving = setup_fix_saving_ms(f, c.setup_ms); saving > 0) {
            uint32_t fix = fix_index(f.kind, f.side);
            bool have = false;
            calls_.each_saving(id, c, [&](const SummaryRecords::Saving& s) { have = have || s.fix == fix; });
            if (!have) calls_.add_saving(id, c, {fix, 0, saving});
        }
    }
}

bool SummaryBuilder::is_complete(uint64_t id) {
    return id != 0 && id <= calls_.size() && calls_.at(id).complete;
}

size_t SummaryBuilder::complete_calls(const Finding& f) {
    size_t n = 0;
    for (uint64_t id : f.calls) n += is_complete(id);
    return n;
}

template <class Value>
LatencyStats SummaryBuilder::series(size_t g, size_t members, Value value, std::vector<double>* keep) {
    if (members > kSeriesRun) {  // more than one run: sorted on file once spilled
        std::function<std::unique_ptr<SpillFile>()> make_file;
        if (!spill_dir_.empty()) make_file = [this]() -> std::unique_ptr<SpillFile> {
            std::string error;
            return SpillFile::create(spill_dir_, error);  // none: the series sorts in memory
        };
        ExternalSort<double> sorted(kSeriesRun, make_file);
        calls_.each([&](uint64_t id, const SummaryRecords::Rec& c) {
            if (g != 0 && c.op + 1 != g) return;
            const double v = value(id, c);
            if (!std::isnan(v)) sorted.add(v);  // NaN: this call has no such value
        });
        SortedStats st(sorted.size());
        sorted.each([&](double x) { st.add(x); });
        return st.done();
    }
    // Sized once and written by index (push_back was a call per value); a
    // value past `members` (not expected) still goes in.
    std::vector<double> v(members);
    size_t n = 0;
    bool plain = true;
    calls_.each([&](uint64_t id, const SummaryRecords::Rec& c) {
        if (g != 0 && c.op + 1 != g) return;
        const double x = value(id, c);
        if (std::isnan(x)) return;  // this call has no such value
        plain = plain && plain_value(x);
        if (n < v.size()) v[n] = x;
        else v.push_back(x);
        ++n;
    });
    v.resize(n);
    std::sort(v.begin(), v.end());
    SortedStats st(v.size());
    for (double x : v) st.add(x);
    if (keep && plain) *keep = std::move(v);
    return st.done();
}

template <class Value, class Base>
LatencyStats SummaryBuilder::series_from(size_t g, size_t members, const std::vector<double>& base, Base base_value,
                                         Value value) {
    std::vector<double> out, in;  // the values of the calls where value differs from base_value
    const size_t most = base.size() / 8 + 16;  // past this, sorting the whole series is as cheap
    bool ok = true;
    calls_.each([&](uint64_t id, const SummaryRecords::Rec& c) {
        if (!ok || (g != 0 && c.op + 1 != g)) return;
        const double b = base_value(id, c), x = value(id, c);
        if (std::bit_cast<uint64_t>(b) == std::bit_cast<uint64_t>(x)) return;
        if (!std::isnan(b)) out.push_back(b);
        if (!std::isnan(x)) {
            ok = plain_value(x);  // -0.0: == would not tell it from 0.0
            in.push_back(x);
        }
        ok = ok && out.size() + in.size() <= most;
    });
    if (ok) {
        SortedStats st(base.size() - out.size() + in.size());
        if (each_replaced(base, out, in, [&](double x) { st.add(x); })) return st.done();
    }
    return series(g, members, value);
}

void SummaryBuilder::sort_ahead() {
    if (ahead_sorted_.valid()) return;
    // The groups' series in id order, as series() collects them. With one
    // operation its row's series are the overall row's (build() sorts them once).
    const size_t groups = ops_.size() == 1 ? 1 : ops_.size() + 1;
    constexpr int64_t kWhich[] = {kLatency, kClient, kFixedAll, kLived};
    std::vector<Ahead> v(groups * 4);
    // The overall row's series hold at most a value per record (growing them
    // value by value was most of this pass's cost).
    for (size_t k = 0; k < 4; ++k) v[k].v.reserve(std::min<uint64_t>(calls_.size(), kSeriesRun));
    std::vector<size_t> members(groups, 0);
    bool lived_is_latency = true;
    auto add = [&](Ahead& a, double x) {
        if (std::isnan(x)) return;  // this call has no such value
        a.plain = a.plain && plain_value(x);
        a.v.push_back(x);
    };
    calls_.each([&](uint64_t, const SummaryRecords::Rec& c) {
        lived_is_latency = lived_is_latency && c.lived && c.lived_ms == c.latency_ms;
        for (size_t g : {size_t(0), size_t(c.op) + 1}) {
            if (g >= groups) break;
            if (++members[g] > kSeriesRun) continue;  // sorted on file: build()'s own
            Ahead* a = &v[g * 4];
            add(a[0], c.latency_ms);
            add(a[1], c.client_ms);
            add(a[2], c.predicted_ms);
            add(a[3], c.lived ? c.lived_ms : std::numeric_limits<double>::quiet_NaN());
        }
    });
    for (size_t g = 0; g < groups; ++g) {
        if (members[g] > kSeriesRun) continue;
        for (size_t k = 0; k < 4; ++k) {
            // build() asks for the lived time of the overall row only, and not when it is the latency.
            if (kWhich[k] == kLived && (g != 0 || lived_is_latency)) continue;
            ahead_[{g, kWhich[k]}] = std::move(v[g * 4 + k]);
        }
    }
    ahead_sorted_ = std::async(std::launch::async, [this] {
        for (auto& [key, a] : ahead_) {
            std::sort(a.v.begin(), a.v.end());
            SortedStats st(a.v.size());  // there too: no finding changes them either
            for (double x : a.v) st.add(x);
            a.stats = st.done();
        }
    });
}

std::optional<LatencyStats> SummaryBuilder::take_ahead(size_t g, int64_t which, std::vector<double>* keep) {
    auto it = ahead_.find({g, which});
    if (it == ahead_.end()) return std::nullopt;
    Ahead& a = it->second;
    const LatencyStats stats = a.stats;
    if (keep && a.plain) *keep = std::move(a.v);
    ahead_.erase(it);
    return stats;
}

Summary SummaryBuilder::build() {
    // One pass for the counts that need no sorting: per group, the calls
    // each fix changes and the calls with any stall.
    const size_t n = ops_.size() + 1;
    std::vector<std::vector<uint64_t>> changed(n, std::vector<uint64_t>(fixes_.size(), 0));
    std::vector<uint64_t> stalled(n, 0);
    std::vector<size_t> members(n, 0);  // complete calls per group
    // Whether the client's lived time is the latency for every call (a
    // capture at the client, or on loopback: no path to the client), so its
    // series need not be sorted a second time.
    bool lived_is_latency = true;
    calls_.each([&](uint64_t id, const SummaryRecords::Rec& c) {
        lived_is_latency = lived_is_latency && c.lived && c.lived_ms == c.latency_ms;
        for (size_t g : {size_t(0), size_t(c.op) + 1}) {
            ++members[g];
            stalled[g] += c.avoidable_ms > 0;
            calls_.each_saving(id, c, [&](const SummaryRecords::Saving& s) { changed[g][s.fix] += s.ms > 0; });
        }
    });
    // With one operation its row's series are the overall row's (every
    // complete call is in both): sorted once, for the many single-operation
    // benchmark captures. kLatency..kFixedAll, then fix indexes.
    if (ahead_sorted_.valid()) ahead_sorted_.get();
    std::map<std::pair<size_t, int64_t>, LatencyStats> sorted;
    // `make` computes one series when it is not known yet.
    auto stats = [&](size_t g, int64_t which, auto make) {
        const auto key = std::make_pair(ops_.size() == 1 ? size_t(0) : g, which);
        auto it = sorted.find(key);
        if (it == sorted.end()) it = sorted.emplace(key, make()).first;
        return it->second;
    };
    auto latency = [](uint64_t, const SummaryRecords::Rec& c) { return c.latency_ms; };
    auto client = [](uint64_t, const SummaryRecords::Rec& c) { return c.client_ms; };
    auto group = [&](size_t g, const std::string& op) {
        SummaryGroup out;
        out.operation = op;
        // The latency and the client's time, sorted, stay while the group
        // lasts: the what-if series are them with a few calls changed.
        std::vector<double> sorted_latency, sorted_client;
        auto from = [&](const std::vector<double>& base, auto base_value, auto value) {
            return base.empty() ? series(g, members[g], value) : series_from(g, members[g], base, base_value, value);
        };
        out.latency = stats(g, kLatency, [&] {
            if (auto ahead = take_ahead(g, kLatency, &sorted_latency)) return *ahead;
            return series(g, members[g], latency, &sorted_latency);
        });
        out.client_latency = stats(g, kClient, [&] {
            if (auto ahead = take_ahead(g, kClient, &sorted_client)) return *ahead;
            return series(g, members[g], client, &sorted_client);
        });
        LedgerTotals none;
        const LedgerTotals& t = g < totals_.size() ? totals_[g] : none;
        out.attribution = t.by_cause();
        out.avoidable_ms = t.avoidable_ms();
        out.server_ms = t.cause_ms(kServer);
        out.transfer_ms = t.transfer_ms();
        out.setup_ms = t.setup_ms();
        if (g < groups_.size())
            for (auto [kind, k] : groups_[g].losses) {
                k.lost_ms = totals_by_kind_[g].ms(kind);
                double base = kind == "connection_setup" ? out.client_latency.total_ms : out.latency.total_ms;
                k.share = base > 0 ? k.lost_ms / base : 0;
                out.losses.push_back(k);
            }
        std::sort(out.losses.begin(), out.losses.end(), [](auto& a, auto& b) { return a.lost_ms > b.lost_ms; });
        LatencyStats fixed_all = stats(g, kFixedAll, [&] {
            if (auto ahead = take_ahead(g, kFixedAll, nullptr)) return *ahead;
            return from(sorted_latency, latency, [](uint64_t, const SummaryRecords::Rec& c) { return c.predicted_ms; });
        });
        out.predicted_median_ms = fixed_all.median_ms;
        out.predicted_total_ms = fixed_all.total_ms;
        // One entry per fix: each call's time with that fix's intervals gone.
        for (uint32_t fix = 0; fix < fixes_.size(); ++fix) {
            if (!changed[g][fix]) continue;
            bool setup = fixes_[fix].first == "connection_setup";
            auto fixed = [&](uint64_t id, const SummaryRecords::Rec& c) {
                double base = setup ? c.client_ms : c.latency_ms, off = 0;
                calls_.each_saving(id, c, [&](const SummaryRecords::Saving& s) {
                    if (s.fix == fix) off = s.ms;
                });
                return std::max(0.0, base - off);
            };
            LatencyStats p = stats(g, fix, [&] {
                return setup ? from(sorted_client, client, fixed) : from(sorted_latency, latency, fixed);
            });
            out.what_if.push_back({fixes_[fix].first, side_name(fixes_[fix].second), p.median_ms, p.p90_ms, changed[g][fix], setup});
        }
        std::sort(out.what_if.begin(), out.what_if.end(), [](const WhatIf& a, const WhatIf& b) {
            return a.client_time != b.client_time ? b.client_time
                   : a.predicted_median_ms != b.predicted_median_ms ? a.predicted_median_ms < b.predicted_median_ms
                   : a.kind != b.kind ? a.kind < b.kind : a.side < b.side;
        });
        if (stalled[g])
            out.what_if.push_back({"all_stalls", "", fixed_all.median_ms, fixed_all.p90_ms, stalled[g], false});
        return out;
    };
    Summary s;
    s.overall = group(0, "");
    if (lived_is_latency) s.client_lived = s.overall.latency;
    else
        s.client_lived = stats(0, kLived, [&] {
            if (auto ahead = take_ahead(0, kLived, nullptr)) return *ahead;
            return series(0, members[0], [](uint64_t, const SummaryRecords::Rec& c) {
                return c.lived ? c.lived_ms : std::numeric_limits<double>::quiet_NaN();
            });
        });
    std::map<std::string, size_t> by_name;  // per-operation rows in name order
    for (size_t i = 0; i < ops_.size(); ++i) by_name[ops_[i]] = i + 1;
    for (auto& [op, g] : by_name) s.per_operation.push_back(group(g, op));
    return s;
}

Summary summarize(const std::vector<Call>& calls, const std::vector<Finding>& findings) {
    SummaryBuilder b;
    for (const Call& c : calls) b.add_call(c);
    for (const Finding& f : findings) b.add_finding(f);
    return b.build();
}

} // namespace stallscope
