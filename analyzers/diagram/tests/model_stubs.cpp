// Stand-ins for the small helpers of analyzers/model.cpp (owned by the lead),
// so the diagram tests link without the analysis library. Delete this file and
// link the library that holds model.cpp once it exists.
#include "analyzers/model.h"

namespace stallscope {

const char* side_name(Side s) { return s == Side::Client ? "client" : "server"; }

std::string carries_label(uint16_t bits) {
    std::string out;
    auto add = [&](const char* s) { if (!out.empty()) out += '+'; out += s; };
    if (bits & (carries::kRequestHeaders | carries::kResponseHeaders)) add("headers");
    if (bits & (carries::kRequestBody | carries::kResponseBody)) add("body");
    if (bits & carries::kContinue) add("100 Continue");
    if (bits & carries::kOther) add("data");
    return out.empty() ? "ACK" : out;
}

const char* phase_name(PhaseKind k) {
    switch (k) {
    case PhaseKind::Connect: return "connect";
    case PhaseKind::RequestHeaders: return "request_headers";
    case PhaseKind::ContinueWait: return "continue_wait";
    case PhaseKind::RequestBody: return "request_body";
    case PhaseKind::ServerTime: return "server_time";
    case PhaseKind::ResponseHeaders: return "response_headers";
    case PhaseKind::ResponseBody: return "response_body";
    case PhaseKind::Close: return "close";
    }
    return "?";
}

} // namespace stallscope
