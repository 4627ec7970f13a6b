#include "dissectors/http/start_line.h"

#include <algorithm>
#include <cstring>

namespace stallscope {

namespace {
// Longer "methods" are text, not requests (the longest registered is 17).
constexpr size_t kMaxMethodLength = 32;

bool is_ws(uint8_t c) { return c == ' ' || c == '\t'; }
bool is_target_char(uint8_t c) { return c > 0x20 && c != 0x7f; }
bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
} // namespace

void StartLineMatcher::reset() {
    method.clear();
    target.clear();
    version.clear();
    reason.clear();
    status = 0;
    digits_ = 0;
    reject_code = HttpError::NotHttp;
    reject_reason.clear();
    st_ = request_ ? St::Method : St::Version;
    length_ = 0;
    lenient_ = 0;
}

StartLineMatcher::Result StartLineMatcher::reject(HttpError code, std::string why) {
    reject_code = code;
    reject_reason = std::move(why);
    return Result::Rejected;
}

StartLineMatcher::Result StartLineMatcher::on_line_end(uint8_t c) {
    if (c == '\r') {
        st_ = St::Cr;
        return Result::More;
    }
    lenient_ |= bit(HttpError::BareLineFeed);
    return finish();
}

// "HTTP/1.d", case-insensitive; stored upper-cased so "HTTP/1.0" compares.
bool StartLineMatcher::version_byte(uint8_t c, std::string& out) {
    static constexpr std::string_view kPrefix = "HTTP/1.";
    size_t p = out.size();
    uint8_t u = (c >= 'a' && c <= 'z') ? uint8_t(c - 'a' + 'A') : c;
    bool ok = p < kPrefix.size() ? u == uint8_t(kPrefix[p]) : is_digit(c);
    if (!ok) {
        if (p < 5) reject(request_ ? HttpError::MalformedStartLine : HttpError::NotHttp,
                          request_ ? "request line without an HTTP/1.x version" : "not an HTTP status line");
        else reject(HttpError::UnsupportedVersion, "not HTTP/1.x");
        return false;
    }
    if (u != c) lenient_ |= bit(HttpError::LowerCaseVersion);
    out += char(u);
    return true;
}

StartLineMatcher::Result StartLineMatcher::finish() {
    if (request_ && version.empty()) {
        // "GET /" (HTTP/0.9) or "OPTIONS HTTP/1.1" (no target): not HTTP/1.x requests.
        bool version_only = target.size() == 8 && (target.rfind("HTTP/1.", 0) == 0 || target.rfind("http/1.", 0) == 0);
        return reject(version_only ? HttpError::MalformedStartLine : HttpError::NotHttp,
                      version_only ? "request line without a request target"
                                   : "request line without an HTTP/1.x version (HTTP/0.9 or not HTTP)");
    }
    while (!reason.empty() && is_ws(uint8_t(reason.back()))) reason.pop_back();
    return Result::Accepted;
}

StartLineMatcher::Result StartLineMatcher::push(uint8_t c) {
    if (++length_ > max_line_) return reject(HttpError::StartLineTooLong, "start line longer than the header cap");
    if (st_ == St::Cr) {
        if (c != '\n') return reject(HttpError::MalformedStartLine, "CR not followed by LF in the start line");
        return finish();
    }
    return request_ ? push_request(c) : push_response(c);
}

size_t StartLineMatcher::take_run(const uint8_t* data, size_t n) {
    // push() takes a byte while the line is at most max_line_ long.
    n = std::min(n, max_line_ > length_ ? max_line_ - length_ : 0);
    size_t k = 0;
    std::string* out = nullptr;
    if (request_ && st_ == St::Method) {
        n = std::min(n, kMaxMethodLength > method.size() ? kMaxMethodLength - method.size() : 0);
        while (k < n && is_http_tchar(data[k])) ++k;
        out = &method;
    } else if (request_ && st_ == St::Target) {
        while (k < n && is_target_char(data[k])) ++k;
        out = &target;
    } else if (!request_ && st_ == St::Reason && !reason.empty()) {  // leading white space is push()'s
        while (k < n && data[k] != '\r' && data[k] != '\n') ++k;
        out = &reason;
    } else if (st_ == St::Version && version.size() < 8) {
        // "HTTP/1.d" as sent, upper case: what version_byte() appends unchanged
        // (a lower-case letter, flagged lenient, and anything else are its).
        static constexpr std::string_view kVersion = "HTTP/1.";
        for (size_t at = version.size(); k < n && at < 8; ++k, ++at)
            if (at < kVersion.size() ? data[k] != uint8_t(kVersion[at]) : !is_digit(data[k])) break;
        out = &version;
    } else {
        return 0;
    }
    out->append(reinterpret_cast<const char*>(data), k);
    length_ += k;
    return k;
}

size_t StartLineMatcher::take_line(const uint8_t* data, size_t n) {
    if (length_ != 0) return 0;
    LineParts parts;
    const size_t len = match_line(data, n, parts);
    if (!len) return 0;
    if (request_) {
        set_from_view(method, parts.method);
        set_from_view(target, parts.target);
    } else {
        status = parts.status;
        digits_ = 3;
        set_from_view(reason, parts.reason);
    }
    set_from_view(version, parts.version);
    length_ = len;
    st_ = St::Cr;
    return len;
}

size_t StartLineMatcher::match_line(const uint8_t* data, size_t n, LineParts& parts) const {
    const auto* lf = static_cast<const uint8_t*>(std::memchr(data, '\n', std::min(n, max_line_)));
    if (!lf || lf == data || lf[-1] != '\r') return 0;
    const size_t len = size_t(lf - data) + 1;  // within max_line_, as push() counts
    const uint8_t* end = lf - 1;              // the CR
    const uint8_t* p = data;
    static constexpr std::string_view kVersion = "HTTP/1.";
    auto version_at = [&](const uint8_t* v) {  // "HTTP/1.d" exactly, before `end`
        return end - v >= 8 && std::memcmp(v, kVersion.data(), kVersion.size()) == 0 && is_digit(v[7]);
    };
    auto view = [](const uint8_t* b, const uint8_t* e) {
        return std::string_view(reinterpret_cast<const char*>(b), size_t(e - b));
    };
    if (request_) {
        const uint8_t* m = p;
        while (p < end && is_http_tchar(*p)) ++p;
        if (p == m || size_t(p - m) > kMaxMethodLength || p == end || *p != ' ') return 0;
        const uint8_t* t = ++p;
        while (p < end && is_target_char(*p)) ++p;
        if (p == t || p == end || *p != ' ') return 0;
        const uint8_t* v = ++p;
        if (end - v != 8 || !version_at(v)) return 0;
        parts.method = view(m, t - 1);
        parts.target = view(t, v - 1);
        parts.version = view(v, v + 8);
    } else {
        // HTTP/1.d SP DDD (CRLF | SP reason CRLF), reason not starting with
        // white space and holding no CR.
        if (!version_at(p) || end - p < 12 || p[8] != ' ') return 0;
        const uint8_t* d = p + 9;
        if (!is_digit(d[0]) || !is_digit(d[1]) || !is_digit(d[2])) return 0;
        int code = (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
        if (code < 100) return 0;
        const uint8_t* r = d + 3;
        if (r != end) {
            if (*r != ' ') return 0;
            ++r;
            if (r == end || is_ws(*r) || std::memchr(r, '\r', size_t(end - r))) return 0;
        }
        const uint8_t* re = end;
        while (re > r && is_ws(re[-1])) --re;  // as finish() trims
        parts.version = view(p, p + 8);
        parts.status = code;
        parts.reason = view(r, re);
    }
    return len;
}

StartLineMatcher::Result StartLineMatcher::push_request(uint8_t c) {
    const bool line_end = c == '\r' || c == '\n';
    switch (st_) {
    case St::Method:
        if (is_http_tchar(c)) {
            if (method.size() >= kMaxMethodLength) return reject(HttpError::NotHttp, "method longer than 32 bytes");
            method += char(c);
            return Result::More;
        }
        if (is_ws(c) && !method.empty()) { st_ = St::Ws1; return Result::More; }
        return reject(HttpError::NotHttp, "not an HTTP request line");
    case St::Ws1:
        if (is_ws(c)) { lenient_ |= bit(HttpError::ExtraWhitespace); return Result::More; }
        if (line_end) return reject(HttpError::NotHttp, "request line without target and version");
        if (!is_target_char(c)) return reject(HttpError::MalformedStartLine, "control byte in the request target");
        st_ = St::Target;
        target += char(c);
        return Result::More;
    case St::Target:
        if (is_target_char(c)) { target += char(c); return Result::More; }
        if (is_ws(c)) { st_ = St::Ws2; return Result::More; }
        if (line_end) return on_line_end(c);
        return reject(HttpError::MalformedStartLine, "control byte in the request target");
    case St::Ws2:
        if (is_ws(c)) { lenient_ |= bit(HttpError::ExtraWhitespace); return Result::More; }
        if (line_end) { lenient_ |= bit(HttpError::ExtraWhitespace); return on_line_end(c); }
        st_ = St::Version;
        return version_byte(c, version) ? Result::More : Result::Rejected;
    case St::Version:
        if (version.size() < 8) {
            if (line_end) return reject(HttpError::UnsupportedVersion, "not HTTP/1.x");
            return version_byte(c, version) ? Result::More : Result::Rejected;
        }
        if (is_ws(c)) { lenient_ |= bit(HttpError::ExtraWhitespace); st_ = St::TrailWs; return Result::More; }
        if (line_end) return on_line_end(c);
        return reject(HttpError::UnsupportedVersion, "not HTTP/1.x");
    case St::TrailWs:
        if (is_ws(c)) return Result::More;
        if (line_end) return on_line_end(c);
        return reject(HttpError::MalformedStartLine, "more than three words in the request line");
    default:
        return reject(HttpError::MalformedStartLine, "malformed request line");
    }
}

StartLineMatcher::Result StartLineMatcher::push_response(uint8_t c) {
    const bool line_end = c == '\r' || c == '\n';
    switch (st_) {
    case St::Version:
        if (version.size() < 8) {
            if (line_end) return reject(HttpError::NotHttp, "not an HTTP status line");
            return version_byte(c, version) ? Result::More : Result::Rejected;
        }
        if (is_ws(c)) { st_ = St::Ws1; return Result::More; }
        return reject(version.size() == 8 && is_digit(c) ? HttpError::UnsupportedVersion : HttpError::MalformedStartLine,
                      "no status code after the version");
    case St::Ws1:
        if (is_ws(c)) { lenient_ |= bit(HttpError::ExtraWhitespace); return Result::More; }
        if (!is_digit(c)) return reject(HttpError::MalformedStartLine, "malformed status code");
        st_ = St::Status;
        status = c - '0';
        digits_ = 1;
        return Result::More;
    case St::Status:
        if (is_digit(c) && digits_ < 3) {
            status = status * 10 + (c - '0');
            ++digits_;
            return Result::More;
        }
        if (digits_ < 3 || status < 100) return reject(HttpError::MalformedStartLine, "malformed status code");
        if (is_ws(c)) { st_ = St::Reason; return Result::More; }
        if (line_end) return on_line_end(c);
        return reject(HttpError::MalformedStartLine, "malformed status code");
    case St::Reason:
        if (line_end) return on_line_end(c);
        if (reason.empty() && is_ws(c)) return Result::More;
        reason += char(c);
        return Result::More;
    default:
        return reject(HttpError::MalformedStartLine, "malformed status line");
    }
}

bool is_registered_method(std::string_view method) {
    static constexpr std::string_view kMethods[] = {
        "GET",    "HEAD",      "POST",   "PUT",      "DELETE",      "CONNECT", "OPTIONS", "TRACE",
        "PATCH",  "PROPFIND",  "PROPPATCH", "MKCOL", "COPY",        "MOVE",    "LOCK",    "UNLOCK",
        "REPORT", "SEARCH",    "M-SEARCH", "NOTIFY", "SUBSCRIBE",   "UNSUBSCRIBE", "PRI",
    };
    for (auto m : kMethods)
        if (m == method) return true;
    return false;
}

void StartLineScanner::restart(bool at_line_start) {
    c_[0].active = c_[1].active = false;
    line_start_ = at_line_start;
    chunk_start_ = false;
}

size_t StartLineScanner::take_first_line(const uint8_t* data, size_t n, uint64_t off) {
    if (!line_start_ || c_[0].active || c_[1].active) return 0;
    c_[0].m.reset();
    size_t k = c_[0].m.take_line(data, n);
    if (!k) return 0;
    c_[0].off = off;
    winner_ = 0;
    line_start_ = true;
    chunk_start_ = false;
    return k;
}

uint64_t StartLineScanner::earliest_offset() const {
    if (c_[0].active && c_[1].active) return std::min(c_[0].off, c_[1].off);
    return c_[0].active ? c_[0].off : c_[1].off;
}

bool StartLineScanner::push(uint8_t c, uint64_t off) {
    const bool at_chunk = chunk_start_, at_line = line_start_;
    chunk_start_ = line_start_ = false;
    if (c != '\r' && c != '\n' && (at_line || at_chunk)) {
        // A line start ends nothing (no candidate spans a line end); a chunk
        // start opens the free slot, or replaces the later of two.
        int slot = !c_[0].active ? 0 : !c_[1].active ? 1 : (c_[0].off > c_[1].off ? 0 : 1);
        c_[slot].m.reset();
        c_[slot].active = true;
        c_[slot].off = off;
    }
    bool accepted[2] = {false, false};
    for (int k = 0; k < 2; ++k) {
        if (!c_[k].active) continue;
        auto r = c_[k].m.push(c);
        if (r == StartLineMatcher::Result::More) continue;
        c_[k].active = false;
        accepted[k] = r == StartLineMatcher::Result::Accepted;
    }
    line_start_ = c == '\n';
    if (!accepted[0] && !accepted[1]) return false;
    c_[0].active = c_[1].active = false;
    line_start_ = true;
    if (accepted[0] && accepted[1]) {
        int later = c_[0].off > c_[1].off ? 0 : 1;
        bool known_later = is_registered_method(c_[later].m.method);
        bool known_earlier = is_registered_method(c_[1 - later].m.method);
        winner_ = known_earlier && !known_later ? 1 - later : later;
    } else {
        winner_ = accepted[0] ? 0 : 1;
    }
    return true;
}

} // namespace stallscope
