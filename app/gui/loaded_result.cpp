#include "app/gui/loaded_result.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/result_spill.h"
#include "app/gui/display_text.h"

#include <algorithm>

namespace stallscope::gui {

template <class T> std::shared_ptr<const T> LoadedResult::Cache<T>::get(uint64_t key) {
    auto it = at.find(key);
    if (it == at.end()) return nullptr;
    lru.splice(lru.begin(), lru, it->second);
    return it->second->second;
}

template <class T> void LoadedResult::Cache<T>::put(uint64_t key, std::shared_ptr<const T> v) {
    lru.emplace_front(key, std::move(v));
    at[key] = lru.begin();
    if (lru.size() > kCacheItems) {
        at.erase(lru.back().first);
        lru.pop_back();
    }
}

LoadedResult::LoadedResult(AnalysisResult&& r) : AnalysisResult(std::move(r)) {
    std::unordered_map<std::string, uint32_t> op_of;
    call_keys_.reserve(call_count(*this));
    for_each_call(*this, [&](const Call& c) {
        indexCall(c, op_of);
        return true;
    });
    if (!ids_in_order_)
        for (size_t i = 0; i < call_keys_.size(); ++i) row_of_id_[call_keys_[i].id] = uint32_t(i);
    finding_keys_.reserve(finding_count(*this));
    for_each_finding(*this, [&](const Finding& f) {
        indexFinding(f);
        return true;
    });
    connection_count_ = connection_count(*this);
}

void LoadedResult::indexCall(const Call& c, std::unordered_map<std::string, uint32_t>& op_of) {
    CallKey k;
    k.id = c.id;
    k.connection_id = c.connection_id;
    k.start_ns = c.start_ns;
    k.end_ns = c.end_ns;
    k.span_start_ns = c.start_ns;
    k.span_end_ns = std::max(c.start_ns, c.end_ns);
    for (const Phase& p : c.phases) {
        k.span_start_ns = std::min(k.span_start_ns, p.start_ns);
        k.span_end_ns = std::max(k.span_end_ns, p.end_ns);
    }
    k.latency_ms = c.latency_ms;
    k.lost_ms = stall_ms(c);   // the call ledger's (each millisecond once), as in every report
    k.request_bytes = c.request.header_bytes + c.request.body_bytes;
    k.response_bytes = c.response.header_bytes + c.response.body_bytes;
    const QString op = callOperation(c);
    auto [it, added] = op_of.try_emplace(op.toStdString(), uint32_t(operations_.size()));
    if (added) operations_.push_back(op);
    k.operation = it->second;
    k.status = int16_t(std::clamp(c.status, -32768, 32767));
    k.flags = uint8_t((c.complete ? CallKey::Complete : 0) | (c.soap_response.fault ? CallKey::Fault : 0));
    if (k.id != call_keys_.size() + 1) ids_in_order_ = false;
    total_latency_ms_ += c.latency_ms;
    call_keys_.push_back(k);
}

void LoadedResult::indexFinding(const Finding& f) {
    FindingKey k;
    k.connection_id = f.connection_id;
    k.first_call = f.calls.empty() ? 0 : f.calls.front();
    k.last_call = f.calls.empty() ? 0 : f.calls.back();
    if (!f.calls.empty()) {
        auto [lo, hi] = std::minmax_element(f.calls.begin(), f.calls.end());
        k.min_call = *lo;
        k.max_call = *hi;
    }
    k.start_ns = f.start_ns;
    k.end_ns = f.end_ns;
    k.counted_ms = f.counted_ms;
    k.calls = uint32_t(f.calls.size());
    auto kind = std::find(kinds_.begin(), kinds_.end(), f.kind);
    k.kind = uint16_t(kind - kinds_.begin());
    if (kind == kinds_.end()) kinds_.push_back(f.kind);
    k.side = f.side;
    finding_keys_.push_back(k);
    // A call shows at most 64 kinds (there are about 15).
    const uint64_t bit = k.kind < 64 ? uint64_t(1) << k.kind : 0;
    const bool stalls_kind = is_stall_kind(f.kind);   // server processing marks no call as stalled
    for (uint64_t id : f.calls) {
        const int row = rowOfCall(id);
        if (row < 0) continue;
        call_keys_[size_t(row)].kinds |= bit;
        // A stall worth marking: at least kMinStallBracketMs (what the timeline draws; a 0.04 ms loopback handshake is none).
        if (f.counted_ms >= kMinStallBracketMs && stalls_kind) call_keys_[size_t(row)].flags |= CallKey::Stalled;
    }
}

bool LoadedResult::isStall(const FindingKey& k) const { return is_stall_kind(kinds_[k.kind]); }

int LoadedResult::rowOfCall(uint64_t id) const {
    if (ids_in_order_) return id >= 1 && id <= call_keys_.size() ? int(id - 1) : -1;
    auto it = row_of_id_.find(id);
    return it == row_of_id_.end() ? -1 : int(it->second);
}

// In memory: a non-owning pointer, valid while this result lives (the views
// hold it through their ResultPtr). Spilled: read once, then from the cache.
template <class T, class Read>
std::shared_ptr<const T> LoadedResult::fetch(Cache<T>& cache, const std::vector<T>& in_memory, size_t i, Read&& read) const {
    if (!spill) return std::shared_ptr<const T>(std::shared_ptr<const T>(), &in_memory[i]);
    std::lock_guard lock(mutex_);
    if (auto v = cache.get(i)) return v;
    auto v = std::make_shared<T>();
    read(i, *v);
    cache.put(i, v);
    return v;
}

std::shared_ptr<const Call> LoadedResult::call(size_t row) const {
    if (row >= call_keys_.size()) return nullptr;
    return fetch(calls_cache_, calls, row, [this](size_t i, Call& c) { spill->call_at(i, c); });
}

std::shared_ptr<const Call> LoadedResult::callById(uint64_t id) const {
    const int row = rowOfCall(id);
    return row < 0 ? nullptr : call(size_t(row));
}

std::shared_ptr<const Finding> LoadedResult::finding(size_t i) const {
    if (i >= finding_keys_.size()) return nullptr;
    return fetch(findings_cache_, findings, i, [this](size_t k, Finding& f) { spill->finding_at(k, f); });
}

std::shared_ptr<const Connection> LoadedResult::connection(uint64_t id) const {
    std::lock_guard lock(mutex_);
    if (auto c = connections_cache_.get(id)) return c;
    std::shared_ptr<const Connection> found;
    if (spill) {
        auto c = std::make_shared<Connection>();
        if (spill->find_connection(id, *c)) found = std::move(c);
    } else {
        for (const Connection& c : connections)   // small results only
            if (c.id == id) { found = std::shared_ptr<const Connection>(std::shared_ptr<const Connection>(), &c); break; }
    }
    if (found) connections_cache_.put(id, found);
    return found;
}

std::vector<std::string> LoadedResult::kindsOf(const CallKey& k) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < kinds_.size() && i < 64; ++i)
        if (k.kinds & (uint64_t(1) << i)) out.push_back(kinds_[i]);
    return out;
}

AnalysisResult LoadedResult::slice(uint64_t connection_id, uint64_t only_call) const {
    AnalysisResult out;
    auto conn = connection(connection_id);
    if (!conn) return out;
    out.capture = capture;
    out.connections.push_back(*conn);
    if (only_call) {
        if (auto c = callById(only_call); c && c->connection_id == connection_id) out.calls.push_back(*c);
    } else {
        for (size_t row = 0; row < call_keys_.size(); ++row)
            if (call_keys_[row].connection_id == connection_id) out.calls.push_back(*call(row));
    }
    for (size_t i = 0; i < finding_keys_.size(); ++i) {
        const FindingKey& k = finding_keys_[i];
        if (k.connection_id != connection_id) continue;
        // For one call: the findings naming it, and those of the whole connection.
        if (only_call && k.calls > 0 && (only_call < k.min_call || only_call > k.max_call)) continue;
        out.findings.push_back(*finding(i));
    }
    return out;
}

} // namespace stallscope::gui
