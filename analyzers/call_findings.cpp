#include "analyzers/call_findings.h"

#include "analyzers/result_spill.h"

#include <algorithm>

namespace stallscope {

CallFindings::CallFindings(const AnalysisResult& r) {
    for_each_finding(r, [&](const Finding& f) {
        add(f);
        return true;
    });
}

void CallFindings::add(const Finding& f) {
    auto it = std::find(names_.begin(), names_.end(), f.kind);
    if (it == names_.end() && names_.size() < 15) it = names_.insert(names_.end(), f.kind);
    uint64_t code = it == names_.end() ? 0 : uint64_t(it - names_.begin()) + 1;
    for (uint64_t id : f.calls) {
        if (id == 0) continue;
        if (id > calls_.size()) calls_.resize(id);
        Entry& e = calls_[id - 1];
        if (!code) continue;
        int used = 0;
        bool seen = false;
        for (uint64_t k = e.kinds; k; k >>= 4, ++used) seen = seen || (k & 0xF) == code;
        if (!seen && used < 16) e.kinds |= code << (4 * used);
    }
}

std::string CallFindings::kinds(uint64_t call_id, const char* sep, bool sorted) const {
    if (call_id == 0 || call_id > calls_.size()) return {};
    std::vector<std::string> v;
    for (uint64_t k = calls_[call_id - 1].kinds; k; k >>= 4) v.push_back(names_[(k & 0xF) - 1]);
    if (sorted) std::sort(v.begin(), v.end());
    std::string out;
    for (auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

} // namespace stallscope
