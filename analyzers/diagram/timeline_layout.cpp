#include "analyzers/diagram/timeline_layout.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/result_spill.h"

#include "analyzers/diagram/diagram_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace stallscope {
namespace {

std::string tick_label(int64_t dt_ns, int64_t step_ns) {
    char buf[48];
    double step_ms = double(step_ns) / 1e6;
    if (step_ms >= 1000) {
        std::snprintf(buf, sizeof buf, "+%.*f s", step_ms >= 1000 * 10 ? 0 : 1, double(dt_ns) / 1e9);
    } else {
        int dec = std::clamp(int(-std::floor(std::log10(step_ms) + 1e-9)), 0, 6);
        std::snprintf(buf, sizeof buf, "+%.*f ms", dec, double(dt_ns) / 1e6);
    }
    return buf;
}

// 1, 2, 5 x 10^k nanoseconds, at least `raw`.
int64_t nice_step(double raw) {
    double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return int64_t(std::max(1.0, m * p));
    return int64_t(10 * p);
}

// Each call's extent: its phases and its request/response times.
std::pair<int64_t, int64_t> call_extent(const Call& c) {
    int64_t a = c.start_ns, b = std::max(c.end_ns, c.start_ns);
    bool any = c.start_ns != 0;
    for (const auto& p : c.phases) {
        if (!any) { a = p.start_ns; b = p.end_ns; any = true; }
        a = std::min({a, p.start_ns, p.end_ns});
        b = std::max({b, p.start_ns, p.end_ns});
    }
    return std::make_pair(a, b);
}

// How slow a call is for --slowest: its latency, or for an incomplete call
// how long it was seen (a hung call is what one looks for).
double slowness_ms(const Call& c) {
    if (c.complete) return c.latency_ms;
    auto [a, b] = call_extent(c);
    return double(b - a) / 1e6;
}

std::string with_commas(size_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string count_text(size_t n, const char* one, const char* many) { return with_commas(n) + " " + (n == 1 ? one : many); }

std::string call_label(const Call& c) {
    std::string what = !c.soap.operation.empty() ? c.soap.operation
                     : !c.method.empty() ? c.method + " " + c.uri : std::string("call");
    return "#" + std::to_string(c.id) + " " + what;
}

} // namespace

TimeAxis build_compressed_axis(std::vector<std::pair<int64_t, int64_t>> iv, double x0, double x1,
                               double break_width, std::vector<std::pair<int64_t, int64_t>>* breaks) {
    TimeAxis ax;
    if (breaks) breaks->clear();
    for (auto& p : iv)
        if (p.second < p.first) std::swap(p.first, p.second);
    std::sort(iv.begin(), iv.end());
    if (iv.empty() || !(x1 > x0)) return ax;

    // Merge overlapping intervals into clusters of activity.
    std::vector<std::pair<int64_t, int64_t>> cl;
    for (const auto& p : iv) {
        if (!cl.empty() && p.first <= cl.back().second) cl.back().second = std::max(cl.back().second, p.second);
        else cl.push_back(p);
    }
    // Zero-length clusters still need a sliver of axis.
    double active = 0;
    for (const auto& c : cl) active += double(std::max<int64_t>(1, c.second - c.first));
    std::vector<double> gaps(cl.size() - 1);
    for (size_t i = 0; i + 1 < cl.size(); ++i) gaps[i] = double(cl[i + 1].first - cl[i].second);

    // A gap is idle, and compressed to a break, when it is much longer than
    // the typical burst of activity (3x the median cluster, and over 1 ms).
    std::vector<double> lens;
    for (const auto& c : cl) lens.push_back(double(std::max<int64_t>(1, c.second - c.first)));
    std::nth_element(lens.begin(), lens.begin() + long(lens.size() / 2), lens.end());
    const double idle_after = std::max(3 * lens[lens.size() / 2], 1e6);
    std::vector<bool> compressed(gaps.size(), false);
    double rest = 0;   // gaps drawn to scale
    size_t k = 0;
    for (size_t i = 0; i < gaps.size(); ++i) {
        if (gaps[i] > idle_after) { compressed[i] = true; ++k; }
        else rest += gaps[i];
    }
    const double width = x1 - x0;
    // Breaks never take more than half the axis.
    const double bw = k ? std::min(break_width, width * 0.5 / double(k)) : 0;
    const double scale = (width - double(k) * bw) / (active + rest);

    double x = x0;
    for (size_t i = 0; i < cl.size(); ++i) {
        int64_t len = std::max<int64_t>(1, cl[i].second - cl[i].first);
        ax.add_knot(cl[i].first, x);
        x += double(len) * scale;
        ax.add_knot(cl[i].first + len, x);
        if (i + 1 < cl.size()) {
            x += compressed[i] ? bw : gaps[i] * scale;
            if (compressed[i] && breaks) breaks->push_back({cl[i].second, cl[i + 1].first});
        }
    }
    return ax;
}

namespace {

// The calls a timeline shows: all of them, or the N slowest / those in the
// window (pass 1: the ids, a heap of N; pass 2: those calls). Only the rows
// are ever held; a spilled result is read from disk in id order.
struct SelectedCalls {
    std::vector<Call> held;
    std::vector<const Call*> calls;
    size_t in_window_total = 0;
    int64_t w0 = 0, w1 = 0;   // the window, absolute
};

void select_calls(const AnalysisResult& r, const TimelineOptions& opt, SelectedCalls& out) {
    out.w0 = r.capture.first_ns + std::min(opt.window_from_ns, opt.window_to_ns);
    out.w1 = r.capture.first_ns + std::max(opt.window_from_ns, opt.window_to_ns);
    std::vector<Call>& held = out.held;
    std::vector<const Call*>& calls = out.calls;
    const bool selecting = opt.slowest > 0 || opt.window;
    const int64_t w0 = out.w0, w1 = out.w1;
    auto in_window = [&](const Call& c) {
        if (!opt.window) return true;
        auto [a, b] = call_extent(c);
        return a <= w1 && b >= w0;
    };
    size_t& in_window_total = out.in_window_total;
    if (selecting) {
        // Pass 1: the ids of the calls shown (the N slowest in the window: a
        // heap of N), pass 2: those calls. Only the rows are ever held.
        using Key = std::pair<double, uint64_t>;  // slowness, id (a tie: the earlier call is slower)
        auto faster = [](const Key& a, const Key& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
        std::vector<Key> heap;                     // min-heap of the slowest so far
        std::vector<uint64_t> first_ids;           // no --slowest: the first max_rows in the window
        for_each_call(r, [&](const Call& c) {
            if (!in_window(c)) return true;
            ++in_window_total;
            if (!opt.slowest) {
                if (!opt.max_rows || first_ids.size() < opt.max_rows) first_ids.push_back(c.id);
                return true;
            }
            Key k{slowness_ms(c), c.id};
            if (heap.size() < opt.slowest) {
                heap.push_back(k);
                std::push_heap(heap.begin(), heap.end(), faster);
            } else if (faster(k, heap.front())) {
                std::pop_heap(heap.begin(), heap.end(), faster);
                heap.back() = k;
                std::push_heap(heap.begin(), heap.end(), faster);
            }
            return true;
        });
        std::unordered_set<uint64_t> wanted(first_ids.begin(), first_ids.end());
        for (const Key& k : heap) wanted.insert(k.second);
        for_each_call(r, [&](const Call& c) {
            if (wanted.count(c.id) && in_window(c)) held.push_back(c);
            return held.size() < wanted.size();
        });
        for (const Call& c : held) calls.push_back(&c);
    } else if (r.spill) {
        // A spilled result (a big capture) gives its calls in id order from
        // disk: only the rows shown are read and held.
        for_each_call(r, [&](const Call& c) {
            held.push_back(c);
            return !opt.max_rows || held.size() < opt.max_rows;
        });
        for (const Call& c : held) calls.push_back(&c);
    } else {
        for (const auto& c : r.calls) calls.push_back(&c);
    }
}

// Ticks about every 110 px of drawn-to-scale time, never inside a break.
void add_ticks(TimelineLayout& L, const std::vector<std::pair<int64_t, int64_t>>& gaps) {
    if (L.axis.empty()) return;
    const auto& kn = L.axis.knots();
    // A break ends where the next cluster starts: known by its end, since
    // a zero-length cluster's knot ends 1 ns after its time (add_knot).
    std::unordered_set<int64_t> break_to;
    for (const auto& g : gaps) break_to.insert(g.second);
    auto is_break = [&](size_t j) { return kn[j + 1].first > kn[j].first && break_to.count(kn[j + 1].first) > 0; };
    double scale = 0;   // px per ns: the same everywhere outside the breaks
    for (size_t j = 0; j + 1 < kn.size(); ++j)
        if (kn[j + 1].first > kn[j].first && !is_break(j))
            scale = std::max(scale, (kn[j + 1].second - kn[j].second) / double(kn[j + 1].first - kn[j].first));
    if (scale > 0) {
        int64_t step = nice_step(110 / scale);
        double last_x = -1e9;
        // First multiple of `step` at or after `rel` (rel >= 0: times are from t0).
        auto step_at_or_after = [step](int64_t rel) { return rel / step * step + (rel % step ? step : 0); };
        for (size_t j = 0; j + 1 < kn.size() && L.ticks.size() < 2000; ++j) {
            if (is_break(j)) continue;
            int64_t t = step_at_or_after(kn[j].first - L.t0_ns);
            // Bounded by the pixels drawn, not the time spanned: a stretch
            // drawn at a finer scale than `scale` (one call spanning days
            // beside calls of microseconds) jumps to the next time that is
            // 70 px on, instead of stepping through every `step` of it.
            while (t + L.t0_ns <= kn[j + 1].first && L.ticks.size() < 2000) {
                double x = L.axis.px_of(L.t0_ns + t);
                if (x - last_x >= 70) {
                    L.ticks.push_back({x, tick_label(t, step)});
                    last_x = x;
                }
                const int64_t next = step_at_or_after(L.axis.t_of(last_x + 70) - 1 - L.t0_ns);  // -1: t_of rounds
                t = next > t ? next : t + step;
            }
        }
    }
}

// One row per call: its phases, and the stretches the ledger counts under
// each of its stall findings. Returns the y below the last row.
double add_rows(TimelineLayout& L, const AnalysisResult& r, const TimelineOptions& opt,
                const std::vector<const Call*>& calls, double row_h) {
    std::unordered_map<uint64_t, std::vector<const Finding*>> by_call;
    std::deque<Finding> held_findings;  // spilled: those about the rows shown (a deque: pointers stay valid)
    std::unordered_set<uint64_t> shown;
    for (const Call* c : calls) shown.insert(c->id);
    for_each_finding(r, [&](const Finding& f) {
        if (f.end_ns <= f.start_ns) return true;
        const Finding* kept = &f;
        if (r.spill) {
            if (std::none_of(f.calls.begin(), f.calls.end(), [&](uint64_t id) { return shown.count(id) > 0; })) return true;
            kept = &held_findings.emplace_back(f);
        }
        for (uint64_t id : kept->calls) by_call[id].push_back(kept);
        return true;
    });
    // Anything outside the plot is drawn at its edge: a finding whose
    // interval reaches far beyond the calls shown (e.g. a whole-capture
    // finding) must not become a rectangle millions of pixels wide, which
    // cairo would try to rasterise.
    auto clamp_x = [&](double x) { return std::clamp(x, L.plot_left - 4, L.plot_right + 4); };
    double y = L.rows_top;
    for (const Call* c : calls) {
        TimelineRow row;
        row.call_id = c->id;
        row.y = y + 3;
        row.height = row_h - 6;
        row.label = call_label(*c);
        row.latency_label = c->complete ? format_ms(c->latency_ms) : std::string("incomplete");
        for (const auto& p : c->phases) {
            TimelineBar b;
            b.kind = p.kind;
            b.start_ns = std::min(p.start_ns, p.end_ns);
            b.end_ns = std::max(p.start_ns, p.end_ns);
            b.x0 = clamp_x(L.axis.px_of(b.start_ns));
            b.x1 = std::max(clamp_x(L.axis.px_of(b.end_ns)), b.x0 + opt.min_bar_width);
            row.phases.push_back(b);
        }
        auto found = by_call.find(c->id);
        // The stretches the ledger counts under each finding (an overlap
        // once, under its root); one too short to matter is no stall.
        if (found != by_call.end()) for (const Finding* f : found->second) {
            if (!is_stall_kind(f->kind)) continue;   // server processing: where the time went, not a stall
            // Counted elsewhere (tls_resumption_missing's time is connection_setup's): no bracket of its own.
            if (f->counted_ms < kMinStallBracketMs) continue;
            for (const Finding::Interval& iv : counted_intervals(*f, found->second)) {
                double ms = double(iv.end_ns - iv.start_ns) / 1e6;
                if (ms < kMinStallBracketMs) continue;
                TimelineStall s;
                s.kind = f->kind;
                s.start_ns = iv.start_ns;
                s.end_ns = iv.end_ns;
                s.x0 = clamp_x(L.axis.px_of(iv.start_ns));
                s.x1 = std::max(clamp_x(L.axis.px_of(iv.end_ns)), s.x0 + opt.min_bar_width);
                // The side named: a stall is the sender's to fix ("Nagle / delayed ACK (server): 44.9 ms").
                s.label = finding_kind_title(f->kind) + " (" + side_name(f->side) + "): " + format_ms(ms);
                s.cost_ms = ms;
                row.stalls.push_back(s);
            }
        }
        std::stable_sort(row.stalls.begin(), row.stalls.end(),
                         [](const TimelineStall& a, const TimelineStall& b) { return a.cost_ms > b.cost_ms; });
        L.rows.push_back(std::move(row));
        y += row_h;
    }
    return y;
}

} // namespace

TimelineLayout layout_timeline(const AnalysisResult& r, const TimelineOptions& opt) {
    TimelineLayout L;
    L.width = std::max(480.0, opt.width);
    L.plot_left = std::clamp(opt.label_width, 80.0, L.width / 2);
    L.plot_right = L.width - 24;
    L.rows_top = 132;
    L.calls_total = call_count(r);
    L.title = "Timeline: " + std::to_string(L.calls_total) + (L.calls_total == 1 ? " call" : " calls");
    // The file's name, not its path: figures go into papers and slides.
    if (!r.capture.file.empty()) L.title += " \u2014 " + r.capture.file.substr(r.capture.file.find_last_of('/') + 1);

    SelectedCalls selected;
    select_calls(r, opt, selected);
    std::vector<const Call*>& calls = selected.calls;
    const bool selecting = opt.slowest > 0 || opt.window;
    const int64_t w0 = selected.w0, w1 = selected.w1;
    const size_t in_window_total = selected.in_window_total;
    std::stable_sort(calls.begin(), calls.end(), [](const Call* a, const Call* b) { return a->id < b->id; });
    if (opt.max_rows && calls.size() > opt.max_rows) calls.resize(opt.max_rows);

    if (selecting) {
        char span[96] = "";
        if (opt.window)
            std::snprintf(span, sizeof span, " in %.6g s \u2013 %.6g s", double(w0 - r.capture.first_ns) / 1e9,
                          double(w1 - r.capture.first_ns) / 1e9);
        const std::string of = opt.window ? count_text(in_window_total, "call", "calls") + span
                                          : count_text(L.calls_total, "call", "calls");
        L.selection = opt.slowest ? "the " + count_text(calls.size(), "slowest", "slowest") + " of " + of
                                  : count_text(calls.size(), "call", "calls") + (calls.size() < in_window_total
                                        ? " of " + of : std::string(span));
        L.title = "Timeline: " + L.selection;
        if (!r.capture.file.empty()) L.title += " \u2014 " + r.capture.file.substr(r.capture.file.find_last_of('/') + 1);
        const size_t hidden = L.calls_total - std::min(L.calls_total, calls.size());
        if (hidden)
            L.left_out = with_commas(hidden) + " of " + count_text(L.calls_total, "call", "calls") + " not shown (" +
                         (opt.slowest ? (opt.window ? "faster, or outside the window" : "faster")
                                      : opt.max_rows ? "outside the window, or past the rows" : "outside the window") + ")";
    }

    std::vector<std::pair<int64_t, int64_t>> iv;
    for (const Call* c : calls) iv.push_back(call_extent(*c));

    const double row_h = std::max(8.0, opt.row_height);
    std::vector<std::pair<int64_t, int64_t>> gaps;
    L.axis = build_compressed_axis(iv, L.plot_left, L.plot_right, opt.break_width, &gaps);
    if (!iv.empty()) L.t0_ns = std::min_element(iv.begin(), iv.end())->first;

    for (const auto& g : gaps) {
        TimelineBreak b;
        b.from_ns = g.first;
        b.to_ns = g.second;
        b.x0 = L.axis.px_of(g.first);
        b.x1 = L.axis.px_of(g.second);
        b.label = format_ms(double(g.second - g.first) / 1e6);
        L.breaks.push_back(b);
    }

    add_ticks(L, gaps);

    const double y = add_rows(L, r, opt, calls, row_h);
    L.height = y + (calls.size() < L.calls_total ? 48 : 28);
    return L;
}

} // namespace stallscope
