// Compare verdicts per side: which side of a partly fixed stall is left,
// and what that side must change (docs/compare.md, "Verdicts per side").
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/compare/compare.h"

namespace stallscope {

std::string still_sentence(const std::string& kind, const std::string& side, bool is_new) {
    return finding_kind_fix(kind, side, is_new ? "now" : "still");
}

std::vector<VerdictEntry> verdict_entries(const Comparison& c) {
    std::vector<VerdictEntry> out;
    for (const KindComparison& k : c.kinds) {
        if (!k.split_by_side()) {
            out.push_back({k.kind, k.kind, k.verdict, k.worse && k.verdict == Verdict::StillPresent, nullptr});
            continue;
        }
        for (const SideVerdict& s : k.sides)
            out.push_back({k.kind + " (" + s.side + ")", k.kind, s.verdict, k.worse && s.verdict == Verdict::StillPresent, &s});
    }
    return out;
}

std::vector<VerdictEntry> still_to_fix(const Comparison& c) {
    bool some_fix = false;
    for (const KindComparison& k : c.kinds)
        for (const SideVerdict& s : k.sides)
            some_fix |= s.verdict == Verdict::Fixed || s.verdict == Verdict::Reduced;
    std::vector<VerdictEntry> out;
    if (!some_fix) return out;
    for (const KindComparison& k : c.kinds) {
        if (!is_avoidable(k.kind)) continue;
        for (const SideVerdict& s : k.sides)
            if (!s.still.empty() && s.after.lost_ms > 0)
                out.push_back({k.kind + " (" + s.side + ")", k.kind, s.verdict, false, &s});
    }
    return out;
}

} // namespace stallscope
