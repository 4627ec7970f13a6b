#pragma once
// The one table of finding kinds: every front end (text/JSON/HTML reports,
// GUI, diagrams, the Wireshark plugin), the ledger, compare and the CLI's
// help read a kind's title, precedence, whether it is a stall, its docs page,
// expert-info text and fix sentence from here. A detector that adds a kind
// adds a row; nothing else lists kinds.
//
// The vocabulary of time (docs/json-format.md, "attribution"):
//  - a stall is an avoidable wait, "time lost": inside the call's latency
//    (Latency) or before its first request byte, in the client's time (Setup);
//  - server processing is where the rest of the time went (Server): not
//    lost, no transport setting removes it; shown in neutral colours;
//  - a note has no wait of its own (Note): a split write whose wait is the
//    Nagle stall it armed, a large message.
#include <span>
#include <string>
#include <string_view>

namespace stallscope {

enum class KindTime {
    Latency,  // a stall inside the call: the ledger counts it in the latency partition
    Setup,    // a stall before the first request byte: the client's time (connection setup)
    Server,   // server processing: not a stall
    Note,     // no wait of its own
};

struct FindingKindInfo {
    std::string_view id;              // "nagle_delayed_ack": the JSON `kind`
    std::string_view title;           // "Nagle / delayed ACK"
    // Where stalls cover the same time the lower number is the root cause
    // and keeps the time (analyzers/accounting/call_ledger.h).
    int precedence;
    KindTime time;
    std::string_view expert_summary;  // Wireshark Expert Info summary
    // What is left to fix when the client / the server causes it, with
    // "{when}" for "still" or "now" (compare's "still to fix" sentences).
    std::string_view fix_client, fix_server;

    // Avoidable: fixing it removes its time. Only server processing is not.
    bool avoidable() const { return time != KindTime::Server; }
    bool stall() const { return time == KindTime::Latency || time == KindTime::Setup; }  // "time lost"
};

// Every kind the detectors emit, in report order.
std::span<const FindingKindInfo> finding_kinds();
// The row for `id`, or nullptr for a kind this build does not know.
const FindingKindInfo* find_finding_kind(std::string_view id);
// Title for display; an unknown "some_kind" reads "Some kind".
std::string finding_kind_title(std::string_view id);
// docs/detectors/<id>.md, relative to the repository; "" for unknown kinds.
std::string finding_kind_doc_page(std::string_view id);
// Unknown kinds count as avoidable stalls in the latency: what the ledger
// did with them before this table (a wait with intervals is a stall).
KindTime kind_time(std::string_view id);
inline bool is_avoidable(std::string_view id) { return kind_time(id) != KindTime::Server; }
inline bool is_stall_kind(std::string_view id) {
    const KindTime t = kind_time(id);
    return t == KindTime::Latency || t == KindTime::Setup;
}
int finding_kind_precedence(std::string_view id);
// The names the GUI and figures use for the same lookups.
inline const FindingKindInfo* finding_kind_info(std::string_view id) { return find_finding_kind(id); }
inline int kind_precedence(std::string_view id) { return finding_kind_precedence(id); }
// The kind's fix sentence for `side` ("client"/"server") with {when} filled.
std::string finding_kind_fix(std::string_view id, std::string_view side, std::string_view when);

}  // namespace stallscope
