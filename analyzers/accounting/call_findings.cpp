#include "analyzers/accounting/call_findings.h"

#include "analyzers/result/result_spill.h"

#include <algorithm>

namespace stallscope {

CallFindings::CallFindings(const AnalysisResult& r, bool fill) {
    if (r.spill) {
        std::string error;
        if (auto f = SpillFile::create(r.spill->dir(), error)) calls_.to_file(std::move(f));  // else in memory
    }
    if (!fill) return;
    for_each_finding_brief(r, [&](const Finding& f) {
        add(f);
        return true;
    });
    done();
}

void CallFindings::add(const Finding& f) {
    auto it = std::find(names_.begin(), names_.end(), f.kind);
    if (it == names_.end() && names_.size() < 15) it = names_.insert(names_.end(), f.kind);
    uint64_t code = it == names_.end() ? 0 : uint64_t(it - names_.begin()) + 1;
    for (uint64_t id : f.calls) {
        if (id == 0 || !code) continue;
        uint64_t& e = calls_.at(id - 1);
        int used = 0;
        bool seen = false;
        for (uint64_t k = e; k; k >>= 4, ++used) seen = seen || (k & 0xF) == code;
        if (!seen && used < 16) e |= code << (4 * used);
    }
}

uint64_t CallFindings::entry(uint64_t call_id) const {
    if (call_id == 0 || call_id > calls_.size()) return 0;
    const uint64_t i = call_id - 1;
    if (i < chunk_first_ || i >= chunk_first_ + chunk_.size()) {
        chunk_first_ = i - i % calls_.block_size();
        calls_.read(chunk_first_, calls_.block_size(), chunk_);
    }
    return chunk_[i - chunk_first_];
}

std::string CallFindings::kinds(uint64_t call_id, const char* sep, bool sorted) const {
    std::vector<std::string> v;
    for (uint64_t k = entry(call_id); k; k >>= 4) v.push_back(names_[(k & 0xF) - 1]);
    if (sorted) std::sort(v.begin(), v.end());
    std::string out;
    for (auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

} // namespace stallscope
