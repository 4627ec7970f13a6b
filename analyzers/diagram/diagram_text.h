#pragma once
// Short texts the diagrams and the HTML report print: TCP flags the way
// tcpdump does, durations, and human names for finding kinds and phases.
#include "analyzers/result/finding_kinds.h"
#include "analyzers/result/model.h"
#include "analyzers/result/ms_text.h"  // format_ms: "41.3 ms", "0.212 ms", "1.25 s"

#include <cstdint>
#include <string>

namespace stallscope {

std::string tcp_flags_text(uint8_t flags);          // "[S.]", "[P.]", "[.]", "[FP.]", "[R]"
std::string format_offset_ms(int64_t delta_ns);     // "+0.512 ms" (relative time label)
const char* phase_title(PhaseKind k);               // "request headers", "100-continue wait", ...

} // namespace stallscope

namespace stallscope {
// Valid UTF-8 with no control characters: invalid bytes and controls become
// U+FFFD / a space. Text from a capture goes through this before cairo (which
// stops drawing on invalid UTF-8) or HTML.
std::string clean_text(const std::string& s);
}
