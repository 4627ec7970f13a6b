#include "analyzers/pipeline/back_stage.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/pipeline/load_figures.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace stallscope {

namespace {
constexpr size_t kMaxWarnings = 500;

XmlSampling xml_sampling(const AnalysisOptions& o) { return {o.full_xml, o.xml_sample_first, o.xml_sample_every}; }
}

AnalysisBack::AnalysisBack(const AnalysisOptions& options)
    : opt_(options), detectors_(make_detectors(options.deflate_sample_first, xml_sampling(options))) {
    result_.xml_sample_first = options.full_xml ? 0 : options.xml_sample_first;
    result_.xml_sample_every = options.full_xml ? 0 : options.xml_sample_every;
    for (const auto& d : detectors_)
        if (!d->call_alone()) keeping_.push_back(d.get());
}

AnalysisBack::~AnalysisBack() = default;

size_t AnalysisBack::add_warning(Warning w) {
    auto& list = result_.capture.warnings;
    if (list.size() >= kMaxWarnings) { ++warnings_suppressed_; return SIZE_MAX; }
    // Call ids are final here (the sharded merge has mapped call_id).
    if (size_t at = w.message.find("{call}"); at != std::string::npos)
        w.message.replace(at, 6, std::to_string(w.call_id));
    list.push_back(std::move(w));
    return list.size() - 1;
}

bool AnalysisBack::keep_segments(const Call& c) const {
    return opt_.keep_segments || (opt_.keep_segments_for_call && *opt_.keep_segments_for_call == c.id) ||
           (opt_.keep_segments_for_connection && *opt_.keep_segments_for_connection == c.connection_id);
}

void AnalysisBack::call_ready(Call&& call, const Connection& conn) {
    const size_t first_new = result_.findings.size();
    call_work_.run(call, conn, result_.findings);
    take_call(std::move(call), conn, first_new);
}

void AnalysisBack::call_worked(Call&& call, const Connection& conn, std::vector<Finding>& worked) {
    const size_t first_new = result_.findings.size();
    result_.findings.insert(result_.findings.end(), std::make_move_iterator(worked.begin()),
                            std::make_move_iterator(worked.end()));
    worked.clear();
    take_call(std::move(call), conn, first_new);
}

void AnalysisBack::call_digested(Call& call, std::vector<Finding>& worked) {
    if (call.id <= opt_.keep_calls || opt_.counters)
        throw std::logic_error("a call the analysis keeps or shows crossed as a digest");
    call_worked(std::move(call), no_connection_, worked);  // not kept: take_call leaves it where it is
}

void AnalysisBack::take_call(Call&& call, const Connection& conn, size_t first_new) {
    const size_t worked = result_.findings.size();
    const CallScan scan(call, conn);  // searched only if one asks (none of these does)
    for (Detector* d : keeping_) d->on_call(call, conn, scan, result_.findings);
    if (result_.findings.size() != worked)  // the ledger has run: such a finding would count no time
        throw std::logic_error("a detector that keeps state made a finding in on_call");
    if (opt_.counters) {   // relaxed: a display figure, read by another thread
        opt_.counters->calls.fetch_add(1, std::memory_order_relaxed);
        opt_.counters->findings.fetch_add(result_.findings.size() - first_new, std::memory_order_relaxed);
    }
    if (!keep_segments(call)) {
        call.segments.clear();
        if (!spill_) call.segments.shrink_to_fit();  // kept in memory; a spilled call's buffer is reused
    }
    summary_.add_call(call);
    if (opt_.counters)   // after add_call: the summary knows this call is complete
        opt_.counters->figures->add(&call, std::span<const Finding>(result_.findings).subspan(first_new),
                                   [this](const Finding& f) { return summary_.complete_calls(f); });
    const bool keep = call.id <= opt_.keep_calls;
    if (!keep) ++result_.calls_not_kept;
    if (spill_) {
        if (keep) {
            if (opt_.snapshot_recent_calls) remember_recent(call, std::span<const Finding>(result_.findings).subspan(first_new));
            spill_call(call);
        }
        spill_findings();
        return;
    }
    if (keep) result_.calls.push_back(std::move(call));
    // Counted over every call, kept or not: findings and connections grow with them.
    if (++calls_seen_ > opt_.spill_after_calls && !spill_failed_) start_spill();
}

void AnalysisBack::start_spill() {
    std::string error;
    auto file = SpillFile::create(opt_.spill_dir, error);
    if (!file) {
        spill_failed_ = true;
        add_warning({WarningCode::SpillUnavailable, error + "; keeping every call in memory", 0, 0, 0});
        return;
    }
    spill_ = std::make_shared<ResultSpill>(std::move(file));
    // The summary's per-call numbers go to disk too (their own file: fixed-size records by id).
    if (auto records = SpillFile::create(opt_.spill_dir, error)) summary_.spill_to(std::move(records));
    else add_warning({WarningCode::SpillUnavailable, error + "; keeping the summary's per-call numbers in memory", 0, 0, 0});
    const std::string dir = opt_.spill_dir;
    for (auto& d : detectors_)  // and what detectors keep per call (nothing when no file can be made)
        d->spill_to([&dir]() {
            std::string ignored;
            return SpillFile::create(dir, ignored);
        });
    if (opt_.snapshot_recent_calls) {   // what live views showed so far, trimmed
        const size_t n = std::min(opt_.snapshot_recent_calls, result_.calls.size());
        recent_calls_.assign(result_.calls.end() - ptrdiff_t(n), result_.calls.end());
        for (const Finding& f : result_.findings)
            if (!f.calls.empty() && !recent_calls_.empty() && f.calls.back() >= recent_calls_.front().id)
                recent_findings_.push_back(f);
    }
    for (const Connection& c : result_.connections) spill_->add(c);
    for (const Call& c : result_.calls) spill_call(c);
    result_.connections = {};
    result_.calls = {};
    spill_findings();
}

void AnalysisBack::remember_recent(const Call& call, std::span<const Finding> findings) {
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

void AnalysisBack::spill_call(const Call& call) {
    if (!opt_.spill_call_as) return spill_->add(call);
    spill_->add_call_record(call.id, opt_.spill_call_as(call));
}

void AnalysisBack::spill_findings() {
    for (const Finding& f : result_.findings) spill_->add(f);
    result_.findings.clear();
}

void AnalysisBack::connection_closed(Connection&& info) {
    const size_t before = result_.findings.size();
    for (auto& d : detectors_) d->on_connection_closed(info, result_.findings);
    if (opt_.counters) {
        opt_.counters->findings.fetch_add(result_.findings.size() - before, std::memory_order_relaxed);
        opt_.counters->figures->add(nullptr, std::span<const Finding>(result_.findings).subspan(before),
                                   [this](const Finding& f) { return summary_.complete_calls(f); });
    }
    if (spill_) {
        spill_->add(info);
        spill_findings();
    } else {
        result_.connections.push_back(std::move(info));
    }
}

AnalysisResult AnalysisBack::so_far() const {
    if (!spill_) return result_;
    AnalysisResult r;   // the rest is on disk: the recent calls stand for it
    r.capture = result_.capture;
    r.xml_sample_first = result_.xml_sample_first;
    r.xml_sample_every = result_.xml_sample_every;
    r.calls.assign(recent_calls_.begin(), recent_calls_.end());
    r.findings.assign(recent_findings_.begin(), recent_findings_.end());
    r.findings.insert(r.findings.end(), result_.findings.begin(), result_.findings.end());
    return r;
}

AnalysisResult AnalysisBack::finish(CaptureInfo capture, size_t missing_at, uint64_t missing, size_t backwards_at,
                                    uint64_t backwards) {
    capture.warnings = std::move(result_.capture.warnings);
    result_.capture = std::move(capture);
    auto add_count = [&](size_t at, uint64_t n) {
        if (n > 1 && at < result_.capture.warnings.size())
            result_.capture.warnings[at].message += " [" + std::to_string(n) + " frames in all]";
    };
    add_count(missing_at, missing);
    add_count(backwards_at, backwards);
    // Every call is in: with the analysis on several threads their cores are
    // free now, and one sorts the summary's series while this one seals.
    if (opt_.threads >= 2) summary_.sort_ahead();
    std::sort(result_.connections.begin(), result_.connections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    std::sort(result_.calls.begin(), result_.calls.end(), [](auto& a, auto& b) { return a.id < b.id; });
    for (auto& d : detectors_) d->finish(result_.findings);
    // Report order of findings, each finalized and counted in the summary
    // once, in that order (the order fixes how the sums round).
    auto final_touch = [&](Finding& f) {
        for (auto& d : detectors_)
            if (f.kind == d->kind()) d->finalize(f);
        const size_t complete = summary_.complete_calls(f);
        account_finding(f, complete);
        summary_.add_finding(f, complete);
    };
    if (spill_) {
        spill_findings();
        spill_->seal(final_touch, [&](const std::string& kind) {  // else only counted_ms changes
            for (auto& d : detectors_)
                if (kind == d->kind()) return d->finalizes();
            return false;
        });
        result_.spill = spill_;
    } else {
        std::stable_sort(result_.findings.begin(), result_.findings.end(), [](const Finding& a, const Finding& b) {
            uint64_t ca = a.calls.empty() ? 0 : a.calls.front(), cb = b.calls.empty() ? 0 : b.calls.front();
            return ca != cb ? ca < cb : a.kind < b.kind;
        });
        for (Finding& f : result_.findings) final_touch(f);
    }
    if (warnings_suppressed_)
        result_.capture.warnings.push_back(
            {WarningCode::WarningsSuppressed, std::to_string(warnings_suppressed_) + " more warnings not shown", 0, 0, 0});
    result_.summary = summary_.build();
    if (opt_.counters) {   // the final counts, whole-capture findings included
        opt_.counters->calls.store(call_count(result_), std::memory_order_relaxed);
        opt_.counters->findings.store(finding_count(result_), std::memory_order_relaxed);
        opt_.counters->figures->finish(result_.summary.overall);
    }
    return std::move(result_);
}

} // namespace stallscope
