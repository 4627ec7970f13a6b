#pragma once
// How model values read on screen: names, durations, sizes.
#include "analyzers/result/model.h"

#include <QString>
#include <utility>
#include <vector>

namespace stallscope::gui {

QString phaseLabel(PhaseKind k);               // "Request headers"
QString findingKindLabel(const std::string& kind);  // "Nagle / delayed ACK"
// A finding's (or a group's) time, in the words of its kind (the table in
// analyzers/result/finding_kinds.h): a stall's time is lost ("40.2 ms"),
// server processing is where the time went ("8.00 s server processing"),
// a note has none ("none").
QString kindTimeText(const std::string& kind, double ms);
QString sideLabel(Side s);                      // "client" / "server"
QString formatMs(double ms);                    // "0.512 ms", "40.2 ms", "1.25 s"
QString formatBytes(uint64_t bytes);
QString countNoun(uint64_t n, const QString& one, const QString& many);   // "1 call", "2 calls"            // "312 B", "1.5 KiB"
QString callOperation(const Call& c);           // SOAP operation, else "POST /path"
QString statusText(const Call& c);              // "200", "500 fault", "—"
QString endpointText(const Endpoint& e);
// A TLS connection's state for a table cell: "TLS 1.3 · decrypted",
// "TLS 1.2 · resumed · decrypted", "TLS 1.3 · encrypted, not decrypted: no key log".
QString tlsSummary(const ConnectionTls& t);
// Why a TLS connection was not decrypted, in words ("" when it was).
QString tlsNotDecryptedWhy(const ConnectionTls& t);
// A tooltip: version, suite, SNI, ALPN, handshake, and the state with its reason.
QString tlsDetails(const ConnectionTls& t);
// A finding's detail as words: ("held_segment", "312 B body") -> ("Held segment", "312 B body");
// ("ack_delay_ms", "40.1") -> ("ACK delay", "40.1 ms").
std::pair<QString, QString> detailText(const std::string& key, const std::string& value);
// What an evidence frame is, from the segments of the finding's calls:
// "#25 ACK from client, 46 ms after #24", "#24 request body (312 B) from client".
// "#25" alone when the frame is not among them.
QString evidenceFrameText(uint64_t frame, const std::vector<const SegmentInfo*>& segments);

} // namespace stallscope::gui
