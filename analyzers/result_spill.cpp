#include "analyzers/result_spill.h"

#include "analyzers/model_spill.h"

#include <algorithm>
#include <numeric>

namespace stallscope {

ResultSpill::ResultSpill(std::unique_ptr<SpillFile> file) : file_(std::move(file)) {}

ResultSpill::Entry ResultSpill::put(uint64_t key, const std::string& bytes) {
    Entry e;
    e.key = key;
    e.offset = file_->append(bytes);
    e.len = uint32_t(bytes.size());
    return e;
}

void ResultSpill::add(const Connection& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    conns_.push_back(put(c.id, scratch_));
}

void ResultSpill::add(const Call& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    calls_.push_back(put(c.id, scratch_));
}

void ResultSpill::add(const Finding& f) {
    scratch_.clear();
    spill_encode(f, scratch_);
    Entry e = put(f.calls.empty() ? 0 : f.calls.front(), scratch_);
    auto k = std::find(kinds_.begin(), kinds_.end(), f.kind);
    e.kind = uint32_t(k - kinds_.begin());
    if (k == kinds_.end()) kinds_.push_back(f.kind);
    findings_.push_back(e);
}

template <class T> void ResultSpill::read(const Entry& e, T& out) const {
    std::string bytes;
    file_->read(e.offset, e.len, bytes);
    if (!spill_decode(bytes, out))
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(e.offset) +
                         " does not decode");
}

void ResultSpill::seal(const std::function<void(Finding&)>& each_finding) {
    auto by_key = [](const Entry& a, const Entry& b) { return a.key < b.key; };
    std::sort(conns_.begin(), conns_.end(), by_key);
    std::sort(calls_.begin(), calls_.end(), by_key);
    // Kinds compare by name; arrival order breaks ties (a stable sort).
    std::vector<uint32_t> rank(kinds_.size());
    std::vector<uint32_t> by_name(kinds_.size());
    std::iota(by_name.begin(), by_name.end(), 0);
    std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return kinds_[a] < kinds_[b]; });
    for (uint32_t i = 0; i < by_name.size(); ++i) rank[by_name[i]] = i;
    std::stable_sort(findings_.begin(), findings_.end(), [&](const Entry& a, const Entry& b) {
        return a.key != b.key ? a.key < b.key : rank[a.kind] < rank[b.kind];
    });
    // Rewrite the findings, final and in order, after everything else
    // (entries updated in place: no second index at the peak).
    Finding f;
    for (Entry& e : findings_) {
        read(e, f);
        each_finding(f);
        scratch_.clear();
        spill_encode(f, scratch_);
        Entry n = put(e.key, scratch_);
        e.offset = n.offset;
        e.len = n.len;
    }
}

void ResultSpill::each_connection(const std::function<bool(const Connection&)>& fn) const {
    Connection c;
    for (const Entry& e : conns_) {
        read(e, c);
        if (!fn(c)) return;
    }
}

void ResultSpill::each_call(const std::function<bool(const Call&)>& fn) const {
    Call c;
    for (const Entry& e : calls_) {
        read(e, c);
        if (!fn(c)) return;
    }
}

void ResultSpill::each_finding(const std::function<bool(const Finding&)>& fn) const {
    Finding f;
    for (const Entry& e : findings_) {
        read(e, f);
        if (!fn(f)) return;
    }
}

namespace {
// Entries are sorted by id after seal(): a binary search finds one.
template <class E> const E* by_id(const std::vector<E>& v, uint64_t id) {
    auto it = std::lower_bound(v.begin(), v.end(), id, [](const E& e, uint64_t k) { return e.key < k; });
    return it != v.end() && it->key == id ? &*it : nullptr;
}
} // namespace

bool ResultSpill::find_connection(uint64_t id, Connection& out) const {
    const Entry* e = by_id(conns_, id);
    if (e) read(*e, out);
    return e != nullptr;
}

bool ResultSpill::find_call(uint64_t id, Call& out) const {
    const Entry* e = by_id(calls_, id);
    if (e) read(*e, out);
    return e != nullptr;
}

size_t connection_count(const AnalysisResult& r) { return r.spill ? r.spill->connection_count() : r.connections.size(); }
size_t call_count(const AnalysisResult& r) { return r.spill ? r.spill->call_count() : r.calls.size(); }
size_t finding_count(const AnalysisResult& r) { return r.spill ? r.spill->finding_count() : r.findings.size(); }

// A result is either all in memory or all spilled (Analyzer moves what it
// held when it starts spilling).
void for_each_connection(const AnalysisResult& r, const std::function<bool(const Connection&)>& fn) {
    if (r.spill) return r.spill->each_connection(fn);
    for (const Connection& c : r.connections)
        if (!fn(c)) return;
}

void for_each_call(const AnalysisResult& r, const std::function<bool(const Call&)>& fn) {
    if (r.spill) return r.spill->each_call(fn);
    for (const Call& c : r.calls)
        if (!fn(c)) return;
}

void for_each_finding(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn) {
    if (r.spill) return r.spill->each_finding(fn);
    for (const Finding& f : r.findings)
        if (!fn(f)) return;
}

} // namespace stallscope
