#include "analyzers/result/model.h"

#include "analyzers/result/tls_carries.h"

namespace stallscope {

const char* side_name(Side s) { return s == Side::Client ? "client" : "server"; }

const char* place_name(CapturePlace p) {
    switch (p) {
    case CapturePlace::Client: return "client";
    case CapturePlace::Server: return "server";
    case CapturePlace::Path: return "path";
    case CapturePlace::Both: return "both_ends";
    case CapturePlace::Unknown: break;
    }
    return "unknown";
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
    case PhaseKind::TlsHandshake: return "tls_handshake";
    }
    return "?";
}

std::string carries_label(uint16_t bits) {
    if (bits == 0) return "ACK";
    std::string out;
    auto add = [&](const char* s) { if (!out.empty()) out += "+"; out += s; };
    if (bits & carries::kTlsMessages) {  // the handshake messages (and alerts) by name
        std::string m;
        auto msg = [&](uint16_t bit, const char* s) { if (bits & bit) m += (m.empty() ? "" : "+") + std::string(s); };
        const bool alert = (bits & carries::kTlsAlert) == carries::kTlsAlert;
        if (alert) bits = uint16_t(bits & ~carries::kTlsAlert);
        msg(carries::kTlsClientHello, "ClientHello");
        msg(carries::kTlsServerHello, "ServerHello");
        msg(carries::kTlsCertificate, "Certificate");
        msg(carries::kTlsKeyExchange, "KeyExchange");
        msg(carries::kTlsSessionTicket, "SessionTicket");  // TLS 1.2 sends it before ChangeCipherSpec
        msg(carries::kTlsChangeCipherSpec, "ChangeCipherSpec");
        msg(carries::kTlsFinished, "Finished");
        msg(carries::kTlsEncryptedHandshake, "encrypted");  // TLS 1.3's hidden flight, read without keys
        if (alert) m += m.empty() ? "Alert" : "+Alert";
        add(("TLS " + m).c_str());
    } else if (bits & carries::kTlsHandshake) {
        add("TLS handshake");
    }
    if (bits & carries::kEncrypted) {  // TLS records read without keys: which part of the message is unknown
        if (bits & carries::kRequestBody) add("encrypted request");
        if (bits & carries::kResponseBody) add("encrypted response");
        return out;
    }
    if (bits & carries::kContinue) add("100 Continue");
    if ((bits & carries::kRequestHeaders) && (bits & carries::kRequestBody)) add("request headers+body");
    else if (bits & carries::kRequestHeaders) add("request headers");
    else if (bits & carries::kRequestBody) add("request body");
    if ((bits & carries::kResponseHeaders) && (bits & carries::kResponseBody)) add("response headers+body");
    else if (bits & carries::kResponseHeaders) add("response headers");
    else if (bits & carries::kResponseBody) add("response body");
    if (bits & carries::kOther) add("data");
    return out;
}

bool locate_frame(const CaptureInfo& c, uint64_t frame, uint32_t& file, uint64_t& file_frame) {
    if (!c.frame_runs.empty()) return locate_in_runs(c.frame_runs, frame, file, file_frame);
    file = 0;
    file_frame = frame;
    return frame > 0;
}

} // namespace stallscope
