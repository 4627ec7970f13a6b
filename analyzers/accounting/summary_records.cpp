#include "analyzers/accounting/summary_records.h"

namespace stallscope {

void SummaryRecords::add_saving(uint64_t id, Rec& r, Saving s) {
    if (r.nsavings < kInlineSavings) r.savings[r.nsavings] = s;
    else more_savings_[id].push_back(s);
    if (r.nsavings < 255) ++r.nsavings;
}

} // namespace stallscope
