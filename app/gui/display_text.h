#pragma once
// How model values read on screen: names, durations, sizes.
#include "analyzers/model.h"

#include <QString>

namespace stallscope::gui {

QString phaseLabel(PhaseKind k);               // "Request headers"
QString findingKindLabel(const std::string& kind);  // "Nagle / delayed ACK"
QString sideLabel(Side s);                      // "client" / "server"
QString formatMs(double ms);                    // "0.512 ms", "40.2 ms", "1.25 s"
QString formatBytes(uint64_t bytes);            // "312 B", "1.5 KiB"
QString callOperation(const Call& c);           // SOAP operation, else "POST /path"
QString statusText(const Call& c);              // "200", "500 fault", "—"
QString endpointText(const Endpoint& e);

} // namespace stallscope::gui
