#include "analyzers/diagram/diagram_text.h"

#include "analyzers/result/finding_kinds.h"
#include "capture/packet_decoder.h"

#include <cctype>
#include <cstdio>

namespace stallscope {

std::string tcp_flags_text(uint8_t f) {
    // tcpdump's order: F S R P, '.' for ACK, then U.
    std::string s = "[";
    if (f & tcpflag::kFin) s += 'F';
    if (f & tcpflag::kSyn) s += 'S';
    if (f & tcpflag::kRst) s += 'R';
    if (f & tcpflag::kPsh) s += 'P';
    if (f & tcpflag::kAck) s += '.';
    if (f & tcpflag::kUrg) s += 'U';
    if (s.size() == 1) s += "none";
    s += ']';
    return s;
}

std::string format_offset_ms(int64_t delta_ns) {
    char buf[64];
    double ms = double(delta_ns) / 1e6;
    if (ms >= 100000 || ms <= -100000) std::snprintf(buf, sizeof buf, "%+.3f s", ms / 1000);
    else std::snprintf(buf, sizeof buf, "%+.3f ms", ms);
    return buf;
}

const char* phase_title(PhaseKind k) {
    switch (k) {
    case PhaseKind::Connect: return "connect";
    case PhaseKind::RequestHeaders: return "request headers";
    case PhaseKind::ContinueWait: return "100-continue wait";
    case PhaseKind::RequestBody: return "request body";
    case PhaseKind::ServerTime: return "server time";
    case PhaseKind::ResponseHeaders: return "response headers";
    case PhaseKind::ResponseBody: return "response body";
    case PhaseKind::Close: return "close";
    case PhaseKind::TlsHandshake: return "TLS handshake";
    }
    return "phase";
}

} // namespace stallscope

namespace stallscope {

std::string clean_text(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t n = s.size(), i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c < 0x80) {
            out += (c < 0x20 || c == 0x7f) ? ' ' : char(c);
            ++i;
            continue;
        }
        // Length and smallest code point of a well-formed sequence.
        size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
        if (c >= 0xF5) len = 0;
        bool ok = len > 0 && i + len <= n;
        uint32_t cp = 0;
        if (ok) {
            cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
            for (size_t k = 1; k < len && ok; ++k) {
                if ((p[i + k] & 0xC0) != 0x80) ok = false;
                cp = (cp << 6) | (p[i + k] & 0x3F);
            }
            if (ok) {
                if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) ok = false;
                if (cp >= 0xD800 && cp <= 0xDFFF) ok = false;
                if (cp >= 0x80 && cp < 0xA0) ok = false;   // C1 controls
            }
        }
        if (ok) {
            out.append(s, i, len);
            i += len;
        } else {
            out += "\uFFFD";
            ++i;
        }
    }
    return out;
}

} // namespace stallscope
