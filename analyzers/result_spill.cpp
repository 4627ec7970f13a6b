#include "analyzers/result_spill.h"

#include "analyzers/model_spill.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace stallscope {

ResultSpill::ResultSpill(std::unique_ptr<SpillFile> file) : file_(std::move(file)) {}

namespace {
constexpr uint64_t kFirstRead = 4096;  // most records are shorter: one read each
constexpr uint64_t kMaxDenseGap = 1 << 20;  // ids further apart than this: pairs
}

void ResultSpill::ById::put(uint64_t id, uint64_t offset) {
    ++count_;
    if (sparse_.empty() && id != 0 && id <= slots_.size() + kMaxDenseGap && (id > slots_.size() || slots_[id - 1] == 0)) {
        if (id > slots_.size()) slots_.resize(id, 0);
        slots_[id - 1] = offset + 1;
        return;
    }
    if (sparse_.empty())  // from now on pairs for all (rare: odd ids)
        for (size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i]) sparse_.push_back({i + 1, slots_[i] - 1});
    slots_ = {};
    sparse_.push_back({id, offset});
}

void ResultSpill::ById::seal() {
    if (!sparse_.empty()) {
        std::stable_sort(sparse_.begin(), sparse_.end(), [](auto& a, auto& b) { return a.first < b.first; });
        return;
    }
    size_t out = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i]) slots_[out++] = slots_[i];
        else missing_.push_back(i + 1);
    }
    slots_.resize(out);
    slots_.shrink_to_fit();
}

bool ResultSpill::ById::find(uint64_t id, uint64_t& offset) const {
    if (!sparse_.empty()) {
        auto it = std::lower_bound(sparse_.begin(), sparse_.end(), id, [](auto& e, uint64_t k) { return e.first < k; });
        if (it == sparse_.end() || it->first != id) return false;
        offset = it->second;
        return true;
    }
    if (id == 0 || id > slots_.size() + missing_.size()) return false;
    auto m = std::lower_bound(missing_.begin(), missing_.end(), id);
    if (m != missing_.end() && *m == id) return false;
    offset = slots_[size_t(id - 1) - size_t(m - missing_.begin())] - 1;
    return true;
}

uint64_t ResultSpill::put(const std::string& bytes) {
    const uint32_t len = uint32_t(bytes.size());
    char head[4];
    std::memcpy(head, &len, 4);
    uint64_t at = file_->append(std::string_view(head, 4));
    file_->append(bytes);
    return at;
}

void ResultSpill::add(const Connection& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    conns_.put(c.id, put(scratch_));
}

void ResultSpill::add(const Call& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    calls_.put(c.id, put(scratch_));
}

void ResultSpill::add(const Finding& f) {
    scratch_.clear();
    spill_encode(f, scratch_);
    auto k = std::find(kinds_.begin(), kinds_.end(), f.kind);
    const uint64_t kind = uint64_t(k - kinds_.begin());
    if (k == kinds_.end()) kinds_.push_back(f.kind);
    const uint64_t first = f.calls.empty() ? 0 : f.calls.front();
    if (first >= (uint64_t(1) << 48) || kind >= (1u << 16))
        throw SpillError("spill file in " + file_->dir() + ": finding's call id or kind count out of range");
    findings_.push_back({first << 16 | kind, put(scratch_)});
}

template <class T> void ResultSpill::read(uint64_t offset, T& out) const {
    std::string bytes;
    const uint64_t size = file_->size();
    uint32_t len = 0;
    if (offset + 4 <= size) {
        file_->read(offset, uint32_t(std::min(kFirstRead, size - offset)), bytes);
        std::memcpy(&len, bytes.data(), 4);
    }
    if (offset + 4 > size || offset + 4 + len > size)
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) + " runs past the end");
    std::string_view record;
    if (4 + len <= bytes.size()) {
        record = std::string_view(bytes).substr(4, len);
    } else {
        file_->read(offset + 4, len, bytes);
        record = bytes;
    }
    if (!spill_decode(record, out))
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) +
                         " does not decode");
}

void ResultSpill::seal(const std::function<void(Finding&)>& each_finding) {
    conns_.seal();
    calls_.seal();
    // Kinds compare by name; arrival order breaks ties (a stable sort).
    std::vector<uint64_t> rank(kinds_.size());
    std::vector<uint32_t> by_name(kinds_.size());
    std::iota(by_name.begin(), by_name.end(), 0);
    std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return kinds_[a] < kinds_[b]; });
    for (uint32_t i = 0; i < by_name.size(); ++i) rank[by_name[i]] = i;
    auto order = [&](const FindingEntry& e) { return (e.key_kind >> 16) << 16 | rank[e.key_kind & 0xffff]; };
    std::stable_sort(findings_.begin(), findings_.end(),
                     [&](const FindingEntry& a, const FindingEntry& b) { return order(a) < order(b); });
    // Rewrite the findings, final and in order, after everything else
    // (entries updated in place: no second index at the peak).
    Finding f;
    for (FindingEntry& e : findings_) {
        read(e.offset, f);
        each_finding(f);
        scratch_.clear();
        spill_encode(f, scratch_);
        e.offset = put(scratch_);
    }
}

void ResultSpill::each_connection(const std::function<bool(const Connection&)>& fn) const {
    Connection c;
    for (size_t i = 0; i < conns_.size(); ++i) {
        read(conns_.at(i), c);
        if (!fn(c)) return;
    }
}

void ResultSpill::each_call(const std::function<bool(const Call&)>& fn) const {
    Call c;
    for (size_t i = 0; i < calls_.size(); ++i) {
        read(calls_.at(i), c);
        if (!fn(c)) return;
    }
}

void ResultSpill::each_finding(const std::function<bool(const Finding&)>& fn) const {
    Finding f;
    for (const FindingEntry& e : findings_) {
        read(e.offset, f);
        if (!fn(f)) return;
    }
}

bool ResultSpill::find_connection(uint64_t id, Connection& out) const {
    uint64_t offset = 0;
    if (!conns_.find(id, offset)) return false;
    read(offset, out);
    return true;
}

bool ResultSpill::find_call(uint64_t id, Call& out) const {
    uint64_t offset = 0;
    if (!calls_.find(id, offset)) return false;
    read(offset, out);
    return true;
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
