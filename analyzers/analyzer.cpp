#include "analyzers/analyzer.h"

#include "analyzers/call_ledger.h"
#include "analyzers/summary.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <cstdio>

namespace stallscope {

namespace {
constexpr size_t kMaxWarnings = 500;
constexpr size_t kMaxUnsupportedKinds = 64;  // distinct "unsupported encapsulation" warnings
constexpr int64_t kClosedLingerNs = 1'000'000'000;  // late ACKs of a closed connection still count
constexpr size_t kMaxUntimedFrames = 10000;  // frames held for a first timestamp, see docs/limits.md

std::string seconds(int64_t ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
    return buf;
}
}

Analyzer::Analyzer(const AnalysisOptions& options, std::string file_name)
    : opt_(options), detectors_(make_detectors(options.deflate_sample_first)),
      fragments_(FragmentLimits{}, [this](const std::string& message, uint64_t frame) {
          add_warning({message, frame, 0, 0});
      }) {
    result_.capture.file = std::move(file_name);
}

Analyzer::~Analyzer() = default;

void Analyzer::warn(const std::string& message, uint64_t frame, uint64_t connection_id) {
    Warning w;
    w.message = message;
    w.frame = frame;
    w.connection_id = connection_id;
    add_warning(std::move(w));
}

void Analyzer::add_warning(Warning w) {
    if (result_.capture.warnings.size() >= kMaxWarnings) { ++warnings_suppressed_; return; }
    result_.capture.warnings.push_back(std::move(w));
}

bool Analyzer::keep_segments(const Call& c) const {
    return opt_.keep_segments || (opt_.keep_segments_for_call && *opt_.keep_segments_for_call == c.id) ||
           (opt_.keep_segments_for_connection && *opt_.keep_segments_for_connection == c.connection_id);
}

void Analyzer::call_ready(Call&& call, const Connection& conn) {
    size_t first_new = result_.findings.size();
    const CallScan scan(call, conn);  // the Nagle search, once for every detector
    for (auto& d : detectors_) d->on_call(call, conn, scan, result_.findings);
    account_call(call, conn, std::span<Finding>(result_.findings).subspan(first_new));
    if (!keep_segments(call)) {
        call.segments.clear();
        if (!spill_) call.segments.shrink_to_fit();  // kept in memory; a spilled call's buffer is reused
    }
    summary_.add_call(call);
    if (spill_) {
        if (opt_.snapshot_recent_calls) remember_recent(call, std::span<const Finding>(result_.findings).subspan(first_new));
        spill_->add(call);
        spill_findings();
        return;
    }
    result_.calls.push_back(std::move(call));
    if (result_.calls.size() > opt_.spill_after_calls && !spill_failed_) start_spill();
}

void Analyzer::start_spill() {
    std::string error;
    auto file = SpillFile::create(opt_.spill_dir, error);
    if (!file) {
        spill_failed_ = true;
        add_warning({error + "; keeping every call in memory", 0, 0, 0});
        return;
    }
    spill_ = std::make_shared<ResultSpill>(std::move(file));
    // The summary's per-call numbers go to disk too (their own file: fixed-size records by id).
    if (auto records = SpillFile::create(opt_.spill_dir, error)) summary_.spill_to(std::move(records));
    else add_warning({error + "; keeping the summary's per-call numbers in memory", 0, 0, 0});
    if (opt_.snapshot_recent_calls) {   // what live views showed so far, trimmed
        const size_t n = std::min(opt_.snapshot_recent_calls, result_.calls.size());
        recent_calls_.assign(result_.calls.end() - ptrdiff_t(n), result_.calls.end());
        for (const Finding& f : result_.findings)
            if (!f.calls.empty() && !recent_calls_.empty() && f.calls.back() >= recent_calls_.front().id)
                recent_findings_.push_back(f);
    }
    for (const Connection& c : result_.connections) spill_->add(c);
    for (const Call& c : result_.calls) spill_->add(c);
    result_.connections = {};
    result_.calls = {};
    spill_findings();
}

void Analyzer::remember_recent(const Call& call, std::span<const Finding> findings) {
    recent_calls_.push_back(call);
    recent_findings_.insert(recent_findings_.end(), findings.begin(), findings.end());
    while (recent_calls_.size() > opt_.snapshot_recent_calls) recent_calls_.pop_front();
    // Findings leave with the calls they are about (most name one call; at most 4 per call kept).
    const uint64_t oldest = recent_calls_.empty() ? 0 : recent_calls_.front().id;
    while (!recent_findings_.empty() &&
           (recent_findings_.front().calls.empty() || recent_findings_.front().calls.back() < oldest ||
            recent_findings_.size() > 4 * opt_.snapshot_recent_calls))
        recent_findings_.pop_front();
}

void Analyzer::spill_findings() {
    for (const Finding& f : result_.findings) spill_->add(f);
    result_.findings.clear();
}

void Analyzer::close_flow(std::unordered_map<FlowKey, std::unique_ptr<ConnectionAnalyzer>, FlowKeyHash>::iterator it) {
    it->second->finish();
    Connection info = it->second->info();
    flows_.erase(it);
    for (auto& d : detectors_) d->on_connection_closed(info, result_.findings);
    if (spill_) {
        spill_->add(info);
        spill_findings();
    } else {
        result_.connections.push_back(std::move(info));
    }
}

// A closed connection lingers kClosedLingerNs of capture time after its last
// packet (late ACKs still belong to its last call), then is closed at the
// first frame past that: memory holds the connections closed in the last
// second, not every connection since the last sweep.
void Analyzer::expire_closed(int64_t now_ns) {
    while (!lingering_.empty() && now_ns - lingering_.top().last_ns > kClosedLingerNs) {
        Lingering l = lingering_.top();
        lingering_.pop();
        auto it = flows_.find(l.key);
        if (it == flows_.end() || it->second->info().id != l.id) continue;  // already closed (reuse, cap)
        if (now_ns - it->second->last_ns() > kClosedLingerNs) close_flow(it);
        else lingering_.push({it->second->last_ns(), l.id, l.key});  // a packet came since
    }
}

bool Analyzer::resolve_decoded(const Frame& f, DecodeResult& d) {
    CaptureInfo& cap = result_.capture;
    auto skipped = [&](const std::string& what) {
        ++cap.undecodable_packets;
        add_warning({"frame " + std::to_string(f.number) + ": " + what, f.number, f.file_offset, 0});
        return false;
    };
    // A reassembled datagram can hold another fragment (inside a tunnel):
    // bounded like tunnel nesting.
    for (int round = 0; round <= kMaxTunnelDepth; ++round) {
        switch (d.status) {
        case DecodeStatus::Tcp: return true;
        case DecodeStatus::NotTcp: ++cap.non_tcp_packets; return false;
        case DecodeStatus::UnsupportedLink:
            if (!unsupported_links_warned_.insert(f.linktype).second) {
                ++cap.undecodable_packets;
                return false;
            }
            return skipped(std::string("unsupported link type ") + linktype_name(f.linktype) +
                           " (packets of this link type are skipped)");
        case DecodeStatus::Unsupported:
            // Once per kind: a capture of one unknown encapsulation has thousands.
            if (unsupported_warned_.size() >= kMaxUnsupportedKinds || !unsupported_warned_.insert(d.detail).second) {
                ++cap.undecodable_packets;
                return false;
            }
            return skipped(d.detail + " (packets like this one are skipped)");
        case DecodeStatus::Malformed: return skipped(d.detail + " (packet skipped)");
        case DecodeStatus::Fragment: {
            auto whole = fragments_.add(d.fragment, f.number, f.ts_ns);
            if (!whole) return false;  // held (or dropped with a warning)
            d = decode_ip_datagram(*whole, d.fragment.depth);
            continue;
        }
        }
    }
    return skipped("IP fragments nested deeper than " + std::to_string(kMaxTunnelDepth) + " (packet skipped)");
}

void Analyzer::on_frame(const Frame& raw) {
    if (!clock_.started() && raw.ts_ns <= 0) {
        // No time yet: wait for the first timed frame (bounded; past the cap
        // the capture is taken as untimed and runs at time 0).
        if (untimed_.size() < kMaxUntimedFrames) {
            UntimedFrame u{raw, std::vector<uint8_t>(raw.data.begin(), raw.data.end())};
            u.frame.data = {};
            untimed_.push_back(std::move(u));
            return;
        }
        add_warning({"frame " + std::to_string(raw.number) + ": " + std::to_string(kMaxUntimedFrames) +
                         " frames without a timestamp before any timed frame: the capture is analysed as untimed "
                         "(time 0) until a timestamp appears",
                     raw.number, raw.file_offset, 0});
        clock_.start_untimed();
        replay_untimed();
    }
    FrameClock::Fix fix;
    Frame f = raw;
    f.ts_ns = clock_.time_of(raw.ts_ns, fix);
    note_time_fix(raw, fix, f.ts_ns);
    if (fix == FrameClock::Fix::None) latest_frame_ = f.number;
    replay_untimed();
    analyse_frame(f);
}

void Analyzer::replay_untimed() {
    if (untimed_.empty()) return;
    auto held = std::move(untimed_);
    untimed_.clear();
    for (auto& u : held) {
        u.frame.data = u.bytes;
        u.frame.ts_ns = clock_.latest();
        note_time_fix(u.frame, FrameClock::Fix::Missing, u.frame.ts_ns);
        analyse_frame(u.frame);
    }
}

void Analyzer::note_time_fix(const Frame& f, FrameClock::Fix fix, int64_t fixed_ns) {
    if (fix == FrameClock::Fix::Missing && ++missing_ts_ == 1) {
        missing_warning_ = result_.capture.warnings.size();
        add_warning({"frame " + std::to_string(f.number) +
                         ": no timestamp (stamped 0, or a pcapng simple packet block); timed as the timed frame "
                         "before it (or the first timed frame)",
                     f.number, f.file_offset, 0});
    }
    if (fix == FrameClock::Fix::Backwards && ++backwards_ts_ == 1) {
        backwards_warning_ = result_.capture.warnings.size();
        add_warning({"frame " + std::to_string(f.number) + ": timestamp goes back " + seconds(fixed_ns - f.ts_ns) +
                         " s behind frame " + std::to_string(latest_frame_) + "; timed as frame " +
                         std::to_string(latest_frame_) + " (analysis time never goes backwards)",
                     f.number, f.file_offset, 0});
    }
}

void Analyzer::analyse_frame(const Frame& f) {
    CaptureInfo& cap = result_.capture;
    ++cap.packets;
    if (cap.first_ns == 0 || f.ts_ns < cap.first_ns) cap.first_ns = f.ts_ns;
    cap.last_ns = std::max(cap.last_ns, f.ts_ns);
    if (link_types_.insert(f.linktype).second) cap.link_types.push_back(linktype_name(f.linktype));

    if (fragments_.datagrams_held()) fragments_.advance(f.ts_ns);
    DecodeResult d = decode_packet(f.linktype, f.data);
    if (!resolve_decoded(f, d)) return;
    const TcpPacket& p = d.tcp;
    expire_closed(f.ts_ns);  // first: a packet past a closed connection's linger is not its own
    FlowKey key = p.src < p.dst ? FlowKey{p.src, p.dst} : FlowKey{p.dst, p.src};
    auto it = flows_.find(key);
    if (it != flows_.end() && !it->second->accepts(p)) {
        close_flow(it);  // the address pair is reused by a new connection
        it = flows_.end();
    }
    if (it == flows_.end()) {
        if (flows_.size() >= opt_.max_open_connections) {
            // Over the cap: the least recently active connection is finished early.
            auto oldest = std::min_element(flows_.begin(), flows_.end(), [](auto& a, auto& b) {
                return a.second->last_ns() < b.second->last_ns();
            });
            if (!cap_warned_) {
                cap_warned_ = true;
                add_warning({"open-connection cap (" + std::to_string(opt_.max_open_connections) +
                                 ") hit at frame " + std::to_string(f.number) +
                                 ": least recently active connections are finished early",
                             f.number, f.file_offset, 0});
            }
            close_flow(oldest);
        }
        it = flows_.emplace(key, std::make_unique<ConnectionAnalyzer>(++last_conn_id_, p, opt_, static_cast<ConnectionHost&>(*this))).first;
    }
    const bool was_closed = it->second->closed();
    it->second->on_packet(f, p);
    if (!was_closed && it->second->closed()) lingering_.push({it->second->last_ns(), it->second->info().id, key});
}

AnalysisResult Analyzer::snapshot() const {
    AnalysisResult r;
    if (spill_) {   // the rest is on disk: the recent calls stand for it
        r.capture = result_.capture;
        r.calls.assign(recent_calls_.begin(), recent_calls_.end());
        r.findings.assign(recent_findings_.begin(), recent_findings_.end());
        r.findings.insert(r.findings.end(), result_.findings.begin(), result_.findings.end());
    } else {
        r = result_;
    }
    for (auto& [key, conn] : flows_) {
        r.connections.push_back(conn->info());
        for (Call& c : conn->provisional_calls()) r.calls.push_back(std::move(c));
    }
    std::sort(r.connections.begin(), r.connections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    std::sort(r.calls.begin(), r.calls.end(), [](auto& a, auto& b) { return a.id < b.id; });
    r.summary = summarize(r.calls, r.findings);
    return r;
}

AnalysisResult Analyzer::finish() {
    if (!untimed_.empty()) {  // not one timed frame: the capture runs at time 0
        clock_.start_untimed();
        replay_untimed();
    }
    auto add_count = [&](size_t at, uint64_t n) {
        if (n > 1 && at < result_.capture.warnings.size())
            result_.capture.warnings[at].message += " [" + std::to_string(n) + " frames in all]";
    };
    add_count(missing_warning_, missing_ts_);
    add_count(backwards_warning_, backwards_ts_);
    fragments_.finish();
    result_.capture.undecodable_packets += fragments_.fragments_dropped();
    // Close in connection order so results do not depend on hash order.
    std::vector<std::pair<uint64_t, FlowKey>> order;
    for (auto& [key, conn] : flows_) order.push_back({conn->info().id, key});
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [id, key] : order) close_flow(flows_.find(key));
    std::sort(result_.connections.begin(), result_.connections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    std::sort(result_.calls.begin(), result_.calls.end(), [](auto& a, auto& b) { return a.id < b.id; });
    for (auto& d : detectors_) d->finish(result_.findings);
    // Report order of findings, each finalized and counted in the summary
    // once, in that order (the order fixes how the sums round).
    auto final_touch = [&](Finding& f) {
        for (auto& d : detectors_)
            if (f.kind == d->kind()) d->finalize(f);
        account_finding(f);
        summary_.add_finding(f);
    };
    if (spill_) {
        spill_findings();
        spill_->seal(final_touch);
        result_.spill = spill_;
    } else {
        std::stable_sort(result_.findings.begin(), result_.findings.end(), [](const Finding& a, const Finding& b) {
            uint64_t ca = a.calls.empty() ? 0 : a.calls.front(), cb = b.calls.empty() ? 0 : b.calls.front();
            return ca != cb ? ca < cb : a.kind < b.kind;
        });
        for (Finding& f : result_.findings) final_touch(f);
    }
    if (warnings_suppressed_)
        result_.capture.warnings.push_back({std::to_string(warnings_suppressed_) + " more warnings not shown", 0, 0, 0});
    result_.summary = summary_.build();
    return std::move(result_);
}

} // namespace stallscope
