#include "analyzers/result/finding_kinds.h"

#include <array>
#include <cctype>

namespace stallscope {

namespace {

constexpr int kNoPrecedence = 3;

constexpr std::array<FindingKindInfo, 12> kKinds{{
    {"nagle_delayed_ack", "Nagle / delayed ACK", 1, KindTime::Latency, "StallScope: Nagle/delayed-ACK stall",
     "the client {when} holds its request for the server's delayed ACK: set TCP_NODELAY on the client (or send "
     "each message in one write)",
     "the server {when} holds its response for the client's delayed ACK: set TCP_NODELAY on the server (or send "
     "each message in one write)"},
    {"split_write", "Split header/body write", kNoPrecedence, KindTime::Note, "StallScope: message split over several writes",
     "the client {when} writes a message in several pieces: one write (one buffer or writev)",
     "the server {when} writes a message in several pieces: one write (one buffer or writev)"},
    {"expect_100_wait", "100-continue wait", 0, KindTime::Latency, "StallScope: Expect: 100-continue wait",
     "the client {when} waits for 100 Continue before it sends the body: turn Expect: 100-continue off in the "
     "client",
     "the server {when} sends 100 Continue after the whole request: do not send an unasked 100 Continue"},
    {"connection_setup", "Connection setup", kNoPrecedence, KindTime::Setup, "StallScope: new connection per call",
     "the client {when} opens a connection per call: keep-alive and a connection pool in the client",
     "the server {when} closes the connection after each call: keep-alive on the server"},
    {"server_time", "Server time", kNoPrecedence, KindTime::Server, "StallScope: slow server",
     "the server {when} takes most of the call: profile its handling",
     "the server {when} takes most of the call: profile its handling"},
    {"retransmission", "Retransmission", 2, KindTime::Latency, "StallScope: retransmission delay",
     "the client's data is {when} retransmitted: find the loss (link errors, a full queue, a firewall)",
     "the server's data is {when} retransmitted: find the loss (link errors, a full queue, a firewall)"},
    {"message_size", "Message size", kNoPrecedence, KindTime::Note, "StallScope: large message",
     "messages are {when} large: compress bodies or send less XML",
     "messages are {when} large: compress bodies or send less XML"},
    // TLS (docs/https.md): a Nagle hold on records, or behind a session
    // ticket, is a Nagle hold and ranks as one.
    {"tls_nagle_delayed_ack", "TLS record held (Nagle / delayed ACK)", 1, KindTime::Latency,
     "StallScope: TLS record held for a delayed ACK",
     "the client {when} holds a TLS record for the server's delayed ACK: set TCP_NODELAY on the client (or one "
     "SSL_write per message, a buffering BIO for writes over 16 KB)",
     "the server {when} holds a TLS record for the client's delayed ACK: set TCP_NODELAY on the server (or one "
     "SSL_write per message, a buffering BIO for writes over 16 KB)"},
    {"tls_split_write", "Split TLS write", kNoPrecedence, KindTime::Note, "StallScope: message split over several TLS records",
     "the client {when} writes a message in several TLS records: one SSL_write per message",
     "the server {when} writes a message in several TLS records: one SSL_write per message"},
    {"tls_ticket_stall", "TLS session-ticket stall", 1, KindTime::Latency,
     "StallScope: first response held behind TLS session tickets",
     "the client {when} waits behind the server's session tickets: set TCP_NODELAY on the server",
     "the server {when} holds its first response behind its session tickets: set TCP_NODELAY on the server"},
    {"tls_resumption_missing", "TLS resumption missing", kNoPrecedence, KindTime::Setup,
     "StallScope: full TLS handshake where a resumption was possible",
     "the client {when} makes a full TLS handshake per connection: reuse TLS sessions in the client",
     "the server {when} refuses TLS session resumption: enable session tickets or a session cache"},
    {"tls_certificate_flight", "TLS certificate flight over the initial window", kNoPrecedence, KindTime::Setup,
     "StallScope: TLS certificate flight larger than the initial congestion window",
     "the server's certificate flight {when} costs a round trip: a shorter chain or an ECDSA certificate; keep-alive",
     "the server's certificate flight {when} costs a round trip: a shorter chain or an ECDSA certificate; keep-alive"},
}};

}  // namespace

std::span<const FindingKindInfo> finding_kinds() { return kKinds; }

const FindingKindInfo* find_finding_kind(std::string_view id) {
    for (const FindingKindInfo& k : kKinds)
        if (k.id == id) return &k;
    return nullptr;
}

std::string finding_kind_title(std::string_view id) {
    if (const FindingKindInfo* k = find_finding_kind(id)) return std::string(k->title);
    std::string s(id);
    for (char& c : s)
        if (c == '_') c = ' ';
    if (!s.empty()) s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
    return s.empty() ? "Finding" : s;
}

std::string finding_kind_doc_page(std::string_view id) {
    // Reports from before the kind was renamed say connection_per_call: the same page.
    if (id == "connection_per_call") id = "connection_setup";
    return find_finding_kind(id) ? "docs/detectors/" + std::string(id) + ".md" : std::string();
}

KindTime kind_time(std::string_view id) {
    const FindingKindInfo* k = find_finding_kind(id);
    return k ? k->time : KindTime::Latency;
}

int finding_kind_precedence(std::string_view id) {
    const FindingKindInfo* k = find_finding_kind(id);
    return k ? k->precedence : kNoPrecedence;
}

std::string finding_kind_fix(std::string_view id, std::string_view side, std::string_view when) {
    const FindingKindInfo* k = find_finding_kind(id);
    if (!k) return std::string(id) + " is " + std::string(when) + " found on the " + std::string(side) + " side";
    std::string s(side == "server" ? k->fix_server : k->fix_client);
    if (size_t at = s.find("{when}"); at != std::string::npos) s.replace(at, 6, when);
    return s;
}

}  // namespace stallscope
