// Compare verdicts per side: which side of a partly fixed stall is left,
// and what that side must change (docs/compare.md, "Verdicts per side").
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/compare/compare.h"

namespace stallscope {

std::string still_sentence(const std::string& kind, const std::string& side, bool is_new) {
    const std::string when = is_new ? "now" : "still";
    const bool client = side == "client";
    const std::string peer = client ? "server" : "client";
    if (kind == "nagle_delayed_ack")
        return "the " + side + " " + when + " holds its " + (client ? "request" : "response") + " for the " + peer +
               "'s delayed ACK: set TCP_NODELAY on the " + side + " (or send each message in one write)";
    if (kind == "expect_100_wait")
        return client ? "the client " + when + " waits for 100 Continue before it sends the body: turn Expect: "
                                            "100-continue off in the client"
                      : "the server " + when + " sends 100 Continue after the whole request: do not send an unasked "
                                               "100 Continue";
    if (kind == "connection_setup")
        return client ? "the client " + when + " opens a connection per call: keep-alive and a connection pool in the client"
                      : "the server " + when + " closes the connection after each call: keep-alive on the server";
    if (kind == "retransmission")
        return "the " + side + "'s data is " + when + " retransmitted: find the loss (link errors, a full queue, a firewall)";
    if (kind == "split_write")
        return "the " + side + " " + when + " writes a message in several pieces: one write (one buffer or writev)";
    if (kind == "server_time") return "the server " + when + " takes most of the call: profile its handling";
    if (kind == "message_size") return "messages are " + when + " large: compress bodies or send less XML";
    return kind + " is " + when + " found on the " + side + " side";
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
