#include "analyzers/accounting/summary_records.h"

#include <algorithm>

namespace stallscope {

void SummaryRecords::add_saving(uint64_t id, Rec& r, Saving s) {
    if (r.nsavings < kInlineSavings) r.savings[r.nsavings] = s;
    else more_savings_[id].push_back(s);
    if (r.nsavings < 255) ++r.nsavings;
}

void SummaryRecords::each_saving(uint64_t id, const Rec& r, const std::function<void(const Saving&)>& fn) const {
    for (size_t i = 0; i < std::min<size_t>(r.nsavings, kInlineSavings); ++i) fn(r.savings[i]);
    if (r.nsavings <= kInlineSavings) return;
    auto it = more_savings_.find(id);
    if (it != more_savings_.end())
        for (const Saving& s : it->second) fn(s);
}

void SummaryRecords::each(const std::function<void(uint64_t id, const Rec&)>& fn) {
    recs_.each([&](uint64_t i, const Rec& r) {
        if (r.complete) fn(i + 1, r);
    });
}

} // namespace stallscope
