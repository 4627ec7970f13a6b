#pragma once
// Findings grouped the way Wireshark's Expert Information groups them: one
// group per kind and side, with how many findings and calls it holds, the
// time it cost and a severity; the stalls ranked by time lost, then server
// processing and notes (never a Warning: no time lost). Pure, no Qt.
#include "app/gui/loaded_result.h"

#include <string>
#include <vector>

namespace stallscope::gui {

enum class Severity { Info, Note, Warning };   // no time lost (or not a stall) / some / a large share

struct FindingGroup {
    std::string kind;
    Side side = Side::Client;
    std::vector<size_t> findings;   // indexes into result.findings, most time lost first
    uint64_t calls = 0;             // distinct calls touched
    double lost_ms = 0;             // summed counted_ms (the call ledger's: time lost for a stall, server processing for server_time)
    bool stall = true;              // the kind is a stall (analyzers/result/finding_kinds.h)
    bool every_call = false;        // touches every call of the capture
    Severity severity = Severity::Info;
};

// A group is a Warning when it cost at least this share of all call time.
constexpr double kWarningShare = 0.05;

std::vector<FindingGroup> groupFindings(const LoadedResult& r);   // from the keys only
const char* severityName(Severity s);   // "Warning", "Note", "Info"

} // namespace stallscope::gui
