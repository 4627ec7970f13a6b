#pragma once
// The finding kinds the detectors emit, in one table: the name shown for
// each, where its time goes, which one counts an overlap, its docs page and
// its fix in a sentence. Every front end (text/JSON reports, figures, the
// GUI, compare) asks here whether a kind is a stall ("time lost") instead
// of keeping its own list. Header-only: the table is data.
//
// The vocabulary of time (docs/json-format.md, "attribution"):
//  - a stall is an avoidable wait, "time lost": inside the call's latency
//    (Latency) or before its first request byte, in the client's time (Setup);
//  - server processing is where the rest of the time went (Server): not
//    lost, no transport setting removes it; shown in neutral colours;
//  - a note has no wait of its own (Note): a split write whose wait is the
//    Nagle stall it armed, a large message.
#include <array>
#include <string_view>

namespace stallscope {

enum class KindTime {
    Latency,  // a stall inside the call: the ledger counts it in the latency partition
    Setup,    // a stall before the first request byte: the client's time (connection setup)
    Server,   // server processing: not a stall
    Note,     // no wait of its own
};

struct FindingKindInfo {
    std::string_view id;         // "nagle_delayed_ack"
    std::string_view title;      // "Nagle / delayed ACK"
    int precedence;              // where stalls cover the same time, the lower counts it (the cause that starts the chain)
    KindTime time;
    std::string_view docs_page;  // under docs/
    std::string_view fix;        // the general fix, one sentence
    bool avoidable() const { return time != KindTime::Server; }   // a fix removes it
    bool stall() const { return time == KindTime::Latency || time == KindTime::Setup; }  // "time lost"
};

// In report order (analyzers/detectors/all_detectors.cpp).
inline constexpr std::array<FindingKindInfo, 7> kFindingKinds{{
    {"nagle_delayed_ack", "Nagle / delayed ACK", 1, KindTime::Latency, "detectors/nagle_delayed_ack.md",
     "Set TCP_NODELAY on the sending socket, or send each message in one write."},
    {"split_write", "Split header/body write", 9, KindTime::Note, "detectors/split_write.md",
     "Build the whole message in one buffer and send it with one write (or a gather write)."},
    {"expect_100_wait", "100-continue wait", 0, KindTime::Latency, "detectors/expect_100_wait.md",
     "Turn Expect: 100-continue off in the client for small bodies."},
    {"connection_setup", "Connection setup", 9, KindTime::Setup, "detectors/connection_setup.md",
     "Keep connections open (HTTP/1.1 keep-alive) and pool them in the client."},
    {"server_time", "Server time", 9, KindTime::Server, "detectors/server_time.md",
     "Profile the server's handling of the operation; no transport setting removes it."},
    {"retransmission", "Retransmission", 2, KindTime::Latency, "detectors/retransmission.md",
     "Find the loss (link errors, drops at a full queue, a firewall)."},
    {"message_size", "Message size", 9, KindTime::Note, "detectors/message_size.md",
     "Compress bodies (gzip) or send less XML."},
}};

// nullptr for a kind not in the table (an older or a plugin's name).
inline const FindingKindInfo* finding_kind_info(std::string_view kind) {
    for (const FindingKindInfo& k : kFindingKinds)
        if (k.id == kind) return &k;
    return nullptr;
}

// Unknown kinds count as avoidable stalls in the latency: what the ledger
// did with them before this table (a wait with intervals is a stall).
inline KindTime kind_time(std::string_view kind) {
    const FindingKindInfo* k = finding_kind_info(kind);
    return k ? k->time : KindTime::Latency;
}
inline bool is_stall_kind(std::string_view kind) {
    const KindTime t = kind_time(kind);
    return t == KindTime::Latency || t == KindTime::Setup;
}
inline int kind_precedence(std::string_view kind) {
    const FindingKindInfo* k = finding_kind_info(kind);
    return k ? k->precedence : 9;
}

} // namespace stallscope
