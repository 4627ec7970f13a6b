#include "analyzers/report/report.h"

#include "analyzers/accounting/call_findings.h"
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/accounting/capture_point_summary.h"
#include "analyzers/spill/external_sort.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/accounting/summary.h"

#include <algorithm>
#include <cstdarg>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

namespace stallscope {

namespace {

constexpr size_t kGroupRun = 1 << 15;  // a finding group's costs or calls sorted in memory at a time (256 KiB)

// The report as it is made: written out every 64 KiB, so the whole report
// is never one string (a capture's warnings have no bound).
class TextOut {
public:
    explicit TextOut(std::ostream& os) : os_(os) {}
    TextOut& operator+=(std::string_view s) {
        buf_.append(s);
        if (buf_.size() >= kFlushAt) flush();
        return *this;
    }
    void flush() {
        os_.write(buf_.data(), std::streamsize(buf_.size()));
        buf_.clear();
    }

private:
    static constexpr size_t kFlushAt = 64 * 1024;
    std::ostream& os_;
    std::string buf_;
};

std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// Capture text is hostile: keep it printable and bounded.
// "s" after a count other than one: "1 call", "2 calls".
const char* plural(unsigned long long n) { return n == 1 ? "" : "s"; }

std::string clean(const std::string& s, size_t max = 60) {
    std::string out;
    for (unsigned char ch : s) {
        if (out.size() >= max) { out += "..."; break; }
        out += (ch >= 0x20 && ch < 0x7f) ? char(ch) : '?';
    }
    return out;
}

std::string frames_list(const std::vector<uint64_t>& frames) {
    std::string out;
    for (size_t i = 0; i < frames.size() && i < 12; ++i) out += (i ? ", " : "") + std::to_string(frames[i]);
    if (frames.size() > 12) out += fmt(", ... (%zu frames)", frames.size());
    return out;
}

double phase_ms(const Call& c, PhaseKind k) {
    double t = 0;
    for (auto& p : c.phases) if (p.kind == k) t += p.duration_ms();
    return t;
}

// What the report needs of the findings, from one pass over them without
// their text (for_each_finding_brief): a spilled result's findings are read
// once, not once per section.
struct FindingsDigest {
    // Findings of one kind and side, by time counted (KindTotals: the Summary's rule).
    struct Group {
        size_t first = 0;  // the example: the group's first finding in report order
        size_t count = 0;
        double total = 0;
        ExternalSort<double> costs;
        ExternalSort<uint64_t> calls;
    };
    explicit FindingsDigest(const AnalysisResult& r);

    std::map<std::pair<std::string, int>, Group> groups;
    KindTotals totals;  // each millisecond once (call ledger), as in the Summary
    // Kinds with a finding that overlaps one with precedence (its time is
    // counted there, call_ledger).
    std::set<std::string> counted_under_root;
    CallFindings kinds;
};

FindingsDigest::FindingsDigest(const AnalysisResult& r) : kinds(r, false) {
    // A spilled result sorts each group's costs and calls on disk (beside
    // its spill file): they grow with the findings.
    std::function<std::unique_ptr<SpillFile>()> make_file;
    if (r.spill) make_file = [dir = r.spill->dir()]() -> std::unique_ptr<SpillFile> {
        std::string error;
        return SpillFile::create(dir, error);  // none: sorted in memory
    };
    size_t i = 0;
    for_each_finding_brief(r, [&](const Finding& f) {
        std::pair<std::string, int> key{f.kind, int(f.side)};
        auto it = groups.find(key);
        if (it == groups.end()) it = groups.emplace(key, Group{i, 0, 0, {kGroupRun, make_file}, {kGroupRun, make_file}}).first;
        Group& g = it->second;
        ++g.count;
        totals.add(f);
        g.costs.add(f.cost_ms);
        for (uint64_t id : f.calls) g.calls.add(id);
        for (auto& [k, value] : f.details)
            if (k == "overlap" && f.counted_ms < f.cost_ms) counted_under_root.insert(f.kind);
        kinds.add(f);
        ++i;
        return true;
    });
    kinds.done();
    for (auto& [key, g] : groups) g.total = totals.ms(key.first, Side(key.second));
}

// Where the capture was taken and whose view the latencies are; nothing when
// the round trip is under 1 ms (loopback: both ends see the same).
std::string capture_point_text(const AnalysisResult& r, const CapturePointSummary& cp) {
    if (!capture_point_reported(cp)) return "";
    std::string out = std::string("  Captured ") + capture_place_text(cp.place) + " (from " + cp.evidence + ")";
    if (cp.connections)
        out += fmt(": round trip %.3f ms, %.3f ms of it on the client's side, %.3f ms on the server's",
                   cp.client_side_ms + cp.server_side_ms, cp.client_side_ms, cp.server_side_ms);
    out += "\n  Latencies are " + cp.view + "\n";
    if ((cp.place == CapturePlace::Server || cp.place == CapturePlace::Path) && r.summary.client_lived.calls)
        out += fmt("  The client lived about %.3f ms per call (median; an estimate: latency + the round trip from "
                   "the capture point to the client)\n", r.summary.client_lived.median_ms);
    return out;
}

// The capture: file, format, counts, damage, where it was taken.
void header_section(const AnalysisResult& r, const CapturePointSummary& cp, TextOut& out) {
    const CaptureInfo& cap = r.capture;
    std::string links;
    for (auto& l : cap.link_types) links += (links.empty() ? "" : ", ") + l;
    out += "StallScope report: " + clean(cap.file, 200) + "\n";
    const size_t n_conns = connection_count(r), n_calls = call_count(r);
    out += fmt("  %s, %llu packet%s, link types: %s, %.3f s, %zu connection%s, %zu call%s\n", cap.format.c_str(),
               (unsigned long long)cap.packets, plural(cap.packets), links.empty() ? "none" : links.c_str(),
               double(cap.last_ns - cap.first_ns) / 1e9, n_conns, plural(n_conns), n_calls, plural(n_calls));
    if (cap.truncated) out += "  WARNING: the capture is damaged; analysed up to the damage (see warnings)\n";
    out += capture_point_text(r, cp);
}

// Summary: latency, where the time went (the ledger), time per kind, what each fix buys.
void summary_section(const AnalysisResult& r, const FindingsDigest& found, TextOut& out) {
    const SummaryGroup& all = r.summary.overall;
    out += "\nSummary\n";
    if (all.latency.calls)
        out += fmt("  %llu complete call%s: latency median %.3f ms, p90 %.3f ms, max %.3f ms\n",
                   (unsigned long long)all.latency.calls, plural(all.latency.calls), all.latency.median_ms, all.latency.p90_ms, all.latency.max_ms);
    else
        out += "  no complete calls\n";
    // Every millisecond of the calls once (the call ledger's partition).
    double total = all.latency.total_ms;
    auto pct = [&](double ms) { return total > 0 ? ms / total * 100 : 0.0; };
    double network_ms = 0;
    for (const TimeShare& t : all.attribution)
        if (t.cause == kNetwork) network_ms = t.ms;
    if (all.latency.calls)
        out += fmt("  Where the time went: avoidable waits %.3f ms (%.1f%%), server processing %.3f ms (%.1f%%), "
                   "transfer %.3f ms (%.1f%%)%s\n",
                   all.avoidable_ms, pct(all.avoidable_ms), all.server_ms, pct(all.server_ms), all.transfer_ms,
                   pct(all.transfer_ms),
                   network_ms > 0 ? fmt(", network (the path's round trip to the server) %.3f ms (%.1f%%)", network_ms,
                                        pct(network_ms)).c_str()
                                  : "");
    if (all.losses.empty()) out += "  No stalls found.\n";
    for (auto& k : all.losses) {
        if (k.kind == "connection_setup" && k.lost_ms > 0)  // before the first request byte: not in latency
            out += fmt("  %-18s %10.3f ms before the first request byte (%5.1f%% of the client's time) in %llu call%s\n",
                       k.kind.c_str(), k.lost_ms, k.share * 100, (unsigned long long)k.calls, plural(k.calls));
        else if (!k.avoidable)
            out += fmt("  %-18s %10.3f ms server processing (%5.1f%% of latency) in %llu call%s: not a stall\n",
                       k.kind.c_str(), k.lost_ms, k.share * 100, (unsigned long long)k.calls, plural(k.calls));
        else if (k.lost_ms > 0)
            out += fmt("  %-18s %10.3f ms lost (%5.1f%% of latency) in %llu call%s\n", k.kind.c_str(), k.lost_ms,
                       k.share * 100, (unsigned long long)k.calls, plural(k.calls));
        else if (found.counted_under_root.count(k.kind))  // a wait that is another finding's, which started the chain
            out += fmt("  %-18s    found in %llu call%s (its wait is counted once, under the finding it overlaps)\n",
                       k.kind.c_str(), (unsigned long long)k.calls, plural(k.calls));
        else  // split writes that armed no stall, message size: worth fixing, but no wait of their own
            out += fmt("  %-18s    found in %llu call%s (no wait of its own)\n", k.kind.c_str(), (unsigned long long)k.calls,
                       plural(k.calls));
    }
    if (!all.what_if.empty() && all.latency.calls) {
        out += "  If you fix ...\n";
        out += fmt("    %-22s %-6s %6s %18s %15s\n", "fix", "side", "calls", "median_ms (now)", "p90_ms (now)");
        for (const WhatIf& w : all.what_if) {
            const LatencyStats& now = w.client_time ? all.client_latency : all.latency;
            out += fmt("    %-22s %-6s %6llu %8.3f (%7.3f) %6.3f (%6.3f)%s\n",
                       w.kind == "all_stalls" ? "all stalls" : w.kind.c_str(), w.side.c_str(),
                       (unsigned long long)w.calls, w.predicted_median_ms, now.median_ms, w.predicted_p90_ms,
                       now.p90_ms, w.client_time ? "  client time, from SYN" : "");
        }
    }
}

// Per operation: latency and the ledger's stall time per operation.
void operations_section(const AnalysisResult& r, TextOut& out) {
    if (!r.summary.per_operation.empty()) {
        out += "\nPer operation\n";
        out += fmt("  %-28s %6s %11s %11s %11s %11s %13s\n", "operation", "calls", "median_ms", "p90_ms", "max_ms",
                   "lost_ms", "predicted_ms");
        for (auto& g : r.summary.per_operation) {
            double lost = g.avoidable_ms;  // the call ledger's stall part
            // An operation without a complete call has no latency: "-", not 0.
            auto lat = [&](double v, int width) { return g.latency.calls ? fmt("%*.3f", width, v) : fmt("%*s", width, "-"); };
            out += fmt("  %-28s %6llu %s %s %s %11.3f %s\n", clean(g.operation, 28).c_str(),
                       (unsigned long long)g.latency.calls, lat(g.latency.median_ms, 11).c_str(),
                       lat(g.latency.p90_ms, 11).c_str(), lat(g.latency.max_ms, 11).c_str(), lost,
                       lat(g.predicted_median_ms, 13).c_str());
        }
    }
}

// Findings grouped by kind and side, by time counted (KindTotals: the Summary's rule).
void findings_section(const AnalysisResult& r, FindingsDigest& found, TextOut& out) {
    if (found.groups.empty()) return;
    // Findings of one kind and side usually repeat call after call: show
    // each group once (total, typical cost, the calls) with its first
    // case as the example. --json lists every finding.
    using Group = FindingsDigest::Group;
    std::vector<Group*> order;
    for (auto& [key, g] : found.groups) order.push_back(&g);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->total > b->total; });
    out += "\nFindings (grouped by kind, by time counted; an overlap is counted once, under its root)\n";
    size_t n = 0;
    Finding ex;
    for (Group* g : order) {
        finding_at(r, g->first, ex);
        const size_t typical_at = g->costs.size() / 2;
        size_t i = 0;
        double typical = 0;
        g->costs.each([&](double c) {
            if (i++ == typical_at) typical = c;
        });
        // The distinct calls: the first 12 by id, and how many.
        std::string call_list;
        size_t distinct = 0;
        uint64_t last = 0;
        g->calls.each([&](uint64_t id) {
            if (distinct && id == last) return;
            last = id;
            if (distinct < 12) call_list += (distinct ? "," : "") + std::to_string(id);
            ++distinct;
        });
        if (distinct > 12) call_list += fmt(",... (%zu calls)", distinct);
        out += fmt("  %zu. %s (%s side): %zu finding%s, %.3f ms in total, %.3f ms typical — calls %s\n", ++n,
                   ex.kind.c_str(), side_name(ex.side), g->count, g->count == 1 ? "" : "s", g->total,
                   typical, call_list.c_str());
        out += fmt("     e.g. call %llu: ", (unsigned long long)(ex.calls.empty() ? 0 : ex.calls.front())) +
               ex.explanation + "\n";
        out += "     evidence frames: " + frames_list(ex.frames) + "\n";
        if (!ex.cost_method.empty() && ex.cost_ms > 0) out += "     cost: " + ex.cost_method + "\n";
        for (auto& [key, value] : ex.details)  // one wait, two findings: which one counts it
            if (key == "overlap") out += "     overlap: " + value + "\n";
        out += "     fix: " + ex.fix + "\n";
        if (!ex.toolkit_fix.empty()) out += "     " + ex.toolkit + ": " + ex.toolkit_fix + "\n";
    }
}

// What the report takes from the connections, read once (from the spill,
// a pass costs a decode of every connection): where the capture was taken,
// and the TLS section's lines.
struct ConnectionsDigest {
    CapturePointSummary capture_point;
    std::string tls_lines;  // the first 50 TLS connections
    size_t tls_conns = 0;
};

ConnectionsDigest digest_connections(const AnalysisResult& r) {
    ConnectionsDigest d;
    CapturePointTally tally;
    for_each_connection(r, [&](const Connection& k) {
        tally.add(k);
        if (!k.tls) return true;
        if (++d.tls_conns > 50) return true;
        const ConnectionTls& t = *k.tls;
        std::string hs = t.handshake_last_frame ? fmt("%.3f ms", double(t.handshake_end_ns - t.handshake_start_ns) / 1e6)
                                                : std::string("not seen");
        d.tls_lines += fmt("  %4llu %s %s, SNI %s, %s handshake %s, %llu calls: %s\n", (unsigned long long)k.id,
                         t.version.empty() ? "TLS (version unknown)" : t.version.c_str(),
                         t.cipher_suite.empty() ? "-" : t.cipher_suite.c_str(), t.sni.empty() ? "-" : clean(t.sni, 60).c_str(),
                         t.resumed ? "resumed" : "full", hs.c_str(), (unsigned long long)k.calls,
                         t.decrypted ? "decrypted" : ("not decrypted (" + t.reason + ")").c_str());
        return true;
    });
    d.capture_point = tally.done();
    return d;
}

// TLS connections, only when there are any (plaintext reports keep their bytes).
void tls_section(const std::string& tls_lines, size_t tls_conns, TextOut& out) {
    if (tls_conns) {
        out += fmt("\nTLS connections (%zu)\n", tls_conns) + tls_lines;
        if (tls_conns > 50) out += fmt("  ... %zu more (see --json)\n", tls_conns - 50);
    }
}

// The first kTextReportCalls calls' lines (of a result that kept only
// those, the ones it has), up to their findings: those need the findings' pass.
struct CallLine {
    uint64_t id;
    std::string head;
};
std::vector<CallLine> call_lines(const AnalysisResult& r) {
    std::vector<CallLine> lines;
    if (!call_count(r)) return lines;
    for_each_call(r, [&](const Call& c) {
        if (lines.size() == kTextReportCalls) return false;
        std::string lat = c.complete ? fmt("%.3f", c.latency_ms) : std::string("-");
        std::string status = c.status ? std::to_string(c.status) : std::string("-");
        lines.push_back({c.id, fmt("  %5llu %4llu %-6s %-22s %6s %10s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f  ",
                                   (unsigned long long)c.id, (unsigned long long)c.connection_id,
                                   c.encrypted ? "TLS" : clean(c.method, 6).c_str(),
                                   clean(operation_key(c), 22).c_str(), status.c_str(), lat.c_str(),
                                   phase_ms(c, PhaseKind::Connect), phase_ms(c, PhaseKind::RequestHeaders),
                                   phase_ms(c, PhaseKind::ContinueWait), phase_ms(c, PhaseKind::RequestBody),
                                   phase_ms(c, PhaseKind::ServerTime), phase_ms(c, PhaseKind::ResponseHeaders),
                                   phase_ms(c, PhaseKind::ResponseBody))});
        return true;
    });
    return lines;
}

// Calls: one line each, the first kTextReportCalls.
void calls_section(const AnalysisResult& r, const std::vector<CallLine>& lines, const CallFindings& kinds, TextOut& out) {
    if (size_t total = call_count(r)) {
        out += "\nCalls (ms)\n";
        out += fmt("  %5s %4s %-6s %-22s %6s %10s %8s %8s %8s %8s %8s %8s %8s  %s\n", "id", "conn", "method",
                   "operation", "status", "latency", "connect", "req_hdr", "100wait", "req_body", "server", "resp_hdr",
                   "resp_bdy", "findings");
        for (const CallLine& l : lines) {
            out += l.head;
            out += kinds.kinds(l.id, ",", false);
            out += "\n";
        }
        if (total > lines.size()) out += fmt("  ... %zu more calls (see --json or --csv)\n", total - lines.size());
    }
}

// Warnings, each with its connection and frame.
void warnings_section(const AnalysisResult& r, TextOut& out) {
    const CaptureInfo& cap = r.capture;
    if (!cap.warnings.empty()) {
        out += fmt("\nWarnings (%zu)\n", cap.warnings.size());
        for (auto& w : cap.warnings) {
            out += "  - " + clean(w.message, 300);
            if (w.connection_id) out += fmt(" [connection %llu]", (unsigned long long)w.connection_id);
            if (w.frame && !warning_text_names_frame(w.code)) out += fmt(" [frame %llu]", (unsigned long long)w.frame);
            out += "\n";
        }
    }
}

} // namespace

void write_report_text(const AnalysisResult& r, std::ostream& os, unsigned threads) {
    TextOut out(os);
    // Three passes that share nothing (the spill file is read with pread
    // only): on two threads, the connections' and the calls' on another.
    struct Apart {
        ConnectionsDigest conns;
        std::vector<CallLine> calls;
    };
    auto apart = [&r] { return Apart{digest_connections(r), call_lines(r)}; };
    std::future<Apart> apart_later;
    if (threads > 1) apart_later = std::async(std::launch::async, apart);
    FindingsDigest found(r);
    const Apart rest = apart_later.valid() ? apart_later.get() : apart();
    const ConnectionsDigest& conns = rest.conns;
    header_section(r, conns.capture_point, out);
    summary_section(r, found, out);
    operations_section(r, out);
    findings_section(r, found, out);
    tls_section(conns.tls_lines, conns.tls_conns, out);
    calls_section(r, rest.calls, found.kinds, out);
    warnings_section(r, out);
    out.flush();
}

std::string report_text(const AnalysisResult& r) {
    std::ostringstream os;
    write_report_text(r, os);
    return std::move(os).str();
}

} // namespace stallscope
