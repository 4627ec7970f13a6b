#pragma once
// How model values read on screen: names, durations, sizes.
#include "analyzers/result/model.h"

#include <QString>
#include <utility>
#include <vector>

namespace stallscope::gui {

QString phaseLabel(PhaseKind k);               // "Request headers"
QString findingKindLabel(const std::string& kind);  // "Nagle / delayed ACK"
QString sideLabel(Side s);                      // "client" / "server"
QString formatMs(double ms);                    // "0.512 ms", "40.2 ms", "1.25 s"
QString formatBytes(uint64_t bytes);            // "312 B", "1.5 KiB"
QString callOperation(const Call& c);           // SOAP operation, else "POST /path"
QString statusText(const Call& c);              // "200", "500 fault", "—"
QString endpointText(const Endpoint& e);
// A finding's detail as words: ("held_segment", "312 B body") -> ("Held segment", "312 B body");
// ("ack_delay_ms", "40.1") -> ("ACK delay", "40.1 ms").
std::pair<QString, QString> detailText(const std::string& key, const std::string& value);
// What an evidence frame is, from the segments of the finding's calls:
// "#25 ACK from client, 46 ms after #24", "#24 request body (312 B) from client".
// "#25" alone when the frame is not among them.
QString evidenceFrameText(uint64_t frame, const std::vector<const SegmentInfo*>& segments);

} // namespace stallscope::gui
