#pragma once
// The one table of finding kinds: every front end (text/JSON/HTML reports,
// GUI, diagrams, the Wireshark plugin), the ledger, compare and the CLI's
// help read a kind's title, precedence, whether it is a stall, its docs page,
// expert-info text and fix sentence from here. A detector that adds a kind
// adds a row; nothing else lists kinds.
#include <span>
#include <string>
#include <string_view>

namespace stallscope {

struct FindingKindInfo {
    std::string_view id;              // "nagle_delayed_ack": the JSON `kind`
    std::string_view title;           // "Nagle / delayed ACK"
    // Where stalls cover the same time the lower number is the root cause
    // and keeps the time (analyzers/accounting/call_ledger.h).
    int precedence;
    // Avoidable: fixing it removes its time. Only server processing is not:
    // it is where the rest of a call's time went, never "time lost".
    bool avoidable;
    std::string_view expert_summary;  // Wireshark Expert Info summary
    // What is left to fix when the client / the server causes it, with
    // "{when}" for "still" or "now" (compare's "still to fix" sentences).
    std::string_view fix_client, fix_server;
};

// Every kind the detectors emit, in report order.
std::span<const FindingKindInfo> finding_kinds();
// The row for `id`, or nullptr for a kind this build does not know.
const FindingKindInfo* find_finding_kind(std::string_view id);
// Title for display; an unknown "some_kind" reads "Some kind".
std::string finding_kind_title(std::string_view id);
// docs/detectors/<id>.md, relative to the repository; "" for unknown kinds.
std::string finding_kind_doc_page(std::string_view id);
// Unknown kinds count as avoidable (a detector added without a row is loud).
bool is_avoidable(std::string_view id);
int finding_kind_precedence(std::string_view id);
// The kind's fix sentence for `side` ("client"/"server") with {when} filled.
std::string finding_kind_fix(std::string_view id, std::string_view side, std::string_view when);

}  // namespace stallscope
