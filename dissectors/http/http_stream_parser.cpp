#include "dissectors/http/http_stream_parser.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>

namespace stallscope {

namespace {

// Longest request method we accept while sniffing the start line early.
constexpr size_t kMaxMethodLength = 32;
// A chunk-size line (size + extensions) longer than this is garbage.
constexpr size_t kMaxChunkLine = 4096;
// Responses may never come; do not let pushed methods pile up forever.
constexpr size_t kMaxPendingMethods = 65536;

bool is_tchar(uint8_t c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// Calls fn(token) for each comma-separated, trimmed, non-empty list element.
template <class Fn>
void for_each_list_token(std::string_view list, Fn fn) {
    while (!list.empty()) {
        size_t comma = list.find(',');
        std::string_view tok = trim_ows(list.substr(0, comma));
        if (!tok.empty()) fn(tok);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
}

bool parse_http1_version(std::string_view v) {
    return v.size() == 8 && v.substr(0, 7) == "HTTP/1." && v[7] >= '0' && v[7] <= '9';
}

int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

struct HttpStreamParser::Impl {
    enum class State {
        Idle,            // between messages (leading CR/LF skipped)
        Head,            // start line + header fields
        Body,            // Content-Length body, `remaining` bytes left
        BodyUntilClose,  // response body delimited by end_of_stream()
        ChunkSize,       // hex digits of a chunk-size line
        ChunkExt,        // chunk extensions up to CR/LF
        ChunkSizeLF,     // CR seen after chunk size
        ChunkData,       // `remaining` bytes of chunk data left
        ChunkDataCR,     // CRLF after chunk data
        ChunkDataLF,
        Trailer,         // trailer fields up to the empty line
        Resync,          // after a gap: waiting for a feed that looks like a message start
        Tunnel,          // after 101 / CONNECT 2xx: bytes are not HTTP any more
        Dead,            // after a fatal error
        Closed,          // after end_of_stream()
    };

    Role role;
    HttpStreamListener& listener;
    HttpParserLimits limits;

    State state = State::Idle;
    uint64_t off = 0;  // stream offset of the next byte

    // Head accumulation: only the current line is buffered.
    HttpMessageHead head;
    std::string line;
    bool start_line_done = false;
    uint64_t head_bytes = 0;
    size_t header_lines = 0;
    uint64_t msg_begin = 0;

    // Body.
    uint64_t remaining = 0;
    uint64_t body_pos = 0;

    // Chunked framing.
    uint64_t chunk_size = 0;
    bool chunk_has_digit = false;
    size_t chunk_line_len = 0;
    size_t trailer_line_len = 0;
    uint64_t trailer_bytes = 0;
    size_t trailer_lines = 0;

    std::deque<std::string> pending_methods;

    Impl(Role r, HttpStreamListener& l, HttpParserLimits lim) : role(r), listener(l), limits(lim) {}

    void fatal(const std::string& msg, uint64_t at) {
        listener.on_error(msg, at, true);
        state = State::Dead;
    }

    void reset_message() {
        head = HttpMessageHead{};
        head.is_request = role == Role::Request;
        line.clear();
        start_line_done = false;
        head_bytes = 0;
        header_lines = 0;
        remaining = 0;
        body_pos = 0;
    }

    void complete(State next = State::Idle) {
        listener.on_message_complete(off);
        reset_message();
        state = next;
    }

    bool looks_like_start(std::span<const uint8_t> d) const {
        return role == Role::Request ? HttpStreamParser::looks_like_request(d)
                                     : HttpStreamParser::looks_like_response(d);
    }

    void feed(std::span<const uint8_t> data) {
        if (state == State::Resync) {
            if (!looks_like_start(data)) {
                off += data.size();
                return;
            }
            reset_message();
            state = State::Idle;
        }
        const uint8_t* p = data.data();
        size_t n = data.size();
        size_t i = 0;
        auto consume = [&](size_t k) { i += k; off += k; };
        while (i < n) {
            switch (state) {
            case State::Idle: {
                uint8_t c = p[i];
                if (c == '\r' || c == '\n') { consume(1); break; }  // tolerated empty lines
                reset_message();
                msg_begin = off;
                listener.on_message_begin(off);
                state = State::Head;
                break;
            }
            case State::Head: {
                const void* lf = std::memchr(p + i, '\n', n - i);
                size_t k = lf ? size_t(static_cast<const uint8_t*>(lf) - (p + i)) + 1 : n - i;
                if (head_bytes + k > limits.max_header_bytes) {
                    uint64_t at = off + (limits.max_header_bytes - head_bytes);
                    fatal("header section exceeds " + std::to_string(limits.max_header_bytes) + " bytes", at);
                    break;
                }
                uint64_t line_start = off - line.size();
                line.append(reinterpret_cast<const char*>(p + i), k);
                head_bytes += k;
                consume(k);
                if (!start_line_done && !start_line_prefix_ok()) {
                    fatal(role == Role::Request ? "not an HTTP request line" : "not an HTTP status line", msg_begin);
                    break;
                }
                if (lf) process_line(line_start);
                break;
            }
            case State::Body: {
                size_t k = size_t(std::min<uint64_t>(remaining, n - i));
                listener.on_body({p + i, k}, body_pos);
                body_pos += k;
                remaining -= k;
                consume(k);
                if (remaining == 0) complete();
                break;
            }
            case State::BodyUntilClose: {
                size_t k = n - i;
                listener.on_body({p + i, k}, body_pos);
                body_pos += k;
                consume(k);
                break;
            }
            case State::ChunkSize: {
                uint8_t c = p[i];
                if (++chunk_line_len > kMaxChunkLine) { fatal("chunk-size line too long", off); break; }
                int v = hex_value(c);
                if (v >= 0) {
                    if (chunk_size > (std::numeric_limits<uint64_t>::max() >> 4)) {
                        fatal("chunk size overflows 64 bits", off);
                        break;
                    }
                    chunk_size = (chunk_size << 4) | uint64_t(v);
                    chunk_has_digit = true;
                    consume(1);
                    break;
                }
                if (!chunk_has_digit) { fatal("bogus chunk size", off); break; }
                if (c == ';' || c == ' ' || c == '\t') { state = State::ChunkExt; consume(1); break; }
                if (c == '\r') { state = State::ChunkSizeLF; consume(1); break; }
                if (c == '\n') { consume(1); chunk_size_done(); break; }
                fatal("bogus chunk size", off);
                break;
            }
            case State::ChunkExt: {
                uint8_t c = p[i];
                if (++chunk_line_len > kMaxChunkLine) { fatal("chunk-size line too long", off); break; }
                consume(1);
                if (c == '\r') state = State::ChunkSizeLF;
                else if (c == '\n') chunk_size_done();
                break;
            }
            case State::ChunkSizeLF:
                if (p[i] != '\n') { fatal("expected LF after chunk size", off); break; }
                consume(1);
                chunk_size_done();
                break;
            case State::ChunkData: {
                size_t k = size_t(std::min<uint64_t>(remaining, n - i));
                listener.on_body({p + i, k}, body_pos);
                body_pos += k;
                remaining -= k;
                consume(k);
                if (remaining == 0) state = State::ChunkDataCR;
                break;
            }
            case State::ChunkDataCR:
                if (p[i] == '\r') { state = State::ChunkDataLF; consume(1); }
                else if (p[i] == '\n') { begin_chunk_size(); consume(1); }  // bare LF tolerated
                else fatal("missing CRLF after chunk data", off);
                break;
            case State::ChunkDataLF:
                if (p[i] != '\n') { fatal("missing CRLF after chunk data", off); break; }
                consume(1);
                begin_chunk_size();
                break;
            case State::Trailer: {
                uint8_t c = p[i];
                consume(1);
                if (c == '\n') {
                    if (trailer_line_len == 0) { complete(); break; }
                    trailer_line_len = 0;
                    if (++trailer_lines > limits.max_headers) {
                        fatal("more than " + std::to_string(limits.max_headers) + " trailer fields", off - 1);
                    }
                } else if (c != '\r') {
                    ++trailer_line_len;
                    if (++trailer_bytes > limits.max_header_bytes) {
                        fatal("trailer section exceeds " + std::to_string(limits.max_header_bytes) + " bytes", off - 1);
                    }
                }
                break;
            }
            case State::Resync:  // only entered from gap(); handled above
            case State::Tunnel:
            case State::Dead:
            case State::Closed:
                consume(n - i);
                break;
            }
        }
    }

    // Rejects a stream that cannot be HTTP as soon as its first bytes show it,
    // instead of buffering up to max_header_bytes of garbage.
    bool start_line_prefix_ok() const {
        if (role == Role::Response) {
            static constexpr std::string_view kPrefix = "HTTP/";
            size_t k = std::min(line.size(), kPrefix.size());
            return std::string_view(line).substr(0, k) == kPrefix.substr(0, k);
        }
        size_t k = std::min(line.size(), kMaxMethodLength + 1);
        for (size_t j = 0; j < k; ++j) {
            uint8_t c = uint8_t(line[j]);
            if (c == ' ') return j > 0;
            if (!is_tchar(c)) return false;
        }
        return k <= kMaxMethodLength;
    }

    void begin_chunk_size() {
        state = State::ChunkSize;
        chunk_size = 0;
        chunk_has_digit = false;
        chunk_line_len = 0;
    }

    void chunk_size_done() {
        if (chunk_size == 0) {
            state = State::Trailer;
            trailer_line_len = 0;
            trailer_bytes = 0;
            trailer_lines = 0;
        } else {
            state = State::ChunkData;
            remaining = chunk_size;
        }
    }

    void process_line(uint64_t line_start) {
        std::string_view l(line);
        l.remove_suffix(1);  // '\n'
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!start_line_done) {
            start_line_done = true;
            if (!parse_start_line(l)) return;
        } else if (l.empty()) {
            line.clear();
            finish_head();
            return;
        } else if (++header_lines > limits.max_headers) {
            fatal("more than " + std::to_string(limits.max_headers) + " header fields", line_start);
            return;
        } else if (l.front() == ' ' || l.front() == '\t') {
            // obs-fold (RFC 9112 5.2): continuation of the previous field value.
            if (head.headers.empty()) { fatal("obs-fold line before any header field", line_start); return; }
            std::string& v = head.headers.back().value;
            std::string_view more = trim_ows(l);
            if (!more.empty()) {
                if (!v.empty()) v += ' ';
                v.append(more);
            }
        } else {
            size_t colon = l.find(':');
            if (colon == std::string_view::npos || colon == 0) {
                fatal("malformed header field line", line_start);
                return;
            }
            std::string_view name = l.substr(0, colon);
            for (char c : name)
                if (!is_tchar(uint8_t(c))) { fatal("invalid header field name", line_start); return; }
            head.headers.push_back({std::string(name), std::string(trim_ows(l.substr(colon + 1)))});
        }
        line.clear();
    }

    bool parse_start_line(std::string_view l) {
        if (role == Role::Request) {
            size_t sp1 = l.find(' ');
            size_t sp2 = sp1 == std::string_view::npos ? sp1 : l.find(' ', sp1 + 1);
            if (sp2 == std::string_view::npos || sp1 == 0 || sp2 == sp1 + 1) {
                fatal("malformed request line", msg_begin);
                return false;
            }
            std::string_view version = l.substr(sp2 + 1);
            if (!parse_http1_version(version)) {
                fatal("unsupported HTTP version in request line", msg_begin);
                return false;
            }
            std::string_view uri = l.substr(sp1 + 1, sp2 - sp1 - 1);
            for (char c : uri)
                if (uint8_t(c) <= 0x20 || c == 0x7f) { fatal("malformed request target", msg_begin); return false; }
            head.method = std::string(l.substr(0, sp1));
            head.uri = std::string(uri);
            head.version = std::string(version);
            return true;
        }
        // HTTP-version SP 3DIGIT [SP reason-phrase]
        if (l.size() < 12 || !parse_http1_version(l.substr(0, 8)) || l[8] != ' ') {
            fatal("malformed status line", msg_begin);
            return false;
        }
        int status = 0;
        for (size_t j = 9; j < 12; ++j) {
            if (l[j] < '0' || l[j] > '9') { fatal("malformed status code", msg_begin); return false; }
            status = status * 10 + (l[j] - '0');
        }
        if (l.size() > 12 && l[12] != ' ') { fatal("malformed status code", msg_begin); return false; }
        if (status < 100) { fatal("malformed status code", msg_begin); return false; }
        head.version = std::string(l.substr(0, 8));
        head.status = status;
        head.reason = l.size() > 13 ? std::string(l.substr(13)) : std::string();
        return true;
    }

    void finish_head() {
        head.header_bytes = head_bytes;

        bool te_present = false;
        std::string_view last_coding;
        bool cl_present = false;
        bool cl_invalid = false;
        bool cl_conflict = false;
        uint64_t cl = 0;
        bool conn_close = false;
        bool conn_keep_alive = false;
        for (const auto& h : head.headers) {
            if (iequals(h.name, "Transfer-Encoding")) {
                te_present = true;
                for_each_list_token(h.value, [&](std::string_view tok) {
                    last_coding = trim_ows(tok.substr(0, tok.find(';')));
                });
            } else if (iequals(h.name, "Content-Length")) {
                // "5" or "5, 5" (RFC 9110 8.6): all values must be the same number.
                bool any = false;
                for_each_list_token(h.value, [&](std::string_view tok) {
                    any = true;
                    uint64_t v = 0;
                    for (char c : tok) {
                        if (c < '0' || c > '9' || v > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
                            cl_invalid = true;
                            return;
                        }
                        v = v * 10 + uint64_t(c - '0');
                    }
                    if (cl_present && v != cl) cl_conflict = true;
                    cl_present = true;
                    cl = v;
                });
                if (!any) cl_invalid = true;
            } else if (iequals(h.name, "Connection")) {
                for_each_list_token(h.value, [&](std::string_view tok) {
                    if (iequals(tok, "close")) conn_close = true;
                    if (iequals(tok, "keep-alive")) conn_keep_alive = true;
                });
            } else if (iequals(h.name, "Expect")) {
                if (iequals(trim_ows(h.value), "100-continue")) head.expect_continue = true;
            }
        }
        head.connection_close = conn_close || (head.version == "HTTP/1.0" && !conn_keep_alive);
        head.chunked = te_present && iequals(last_coding, "chunked");

        if (te_present) {
            if (!head.chunked && role == Role::Request) {
                fatal("request Transfer-Encoding does not end in chunked", msg_begin);
                return;
            }
            if (cl_present || cl_invalid) {
                // RFC 9112 6.3: Transfer-Encoding overrides Content-Length.
                listener.on_error("both Transfer-Encoding and Content-Length; Transfer-Encoding wins", msg_begin,
                                  false);
            }
        } else if (cl_invalid) {
            fatal("invalid Content-Length", msg_begin);
            return;
        } else if (cl_conflict) {
            fatal("conflicting Content-Length values", msg_begin);
            return;
        } else if (cl_present) {
            head.content_length = cl;
        }

        bool no_body = false;
        State after_no_body = State::Idle;
        if (role == Role::Response) {
            if (head.status < 200) {
                // Interim response: a complete message of its own; the request
                // still waits for its final response, so no method is consumed.
                listener.on_headers_complete(head, off);
                complete(head.status == 101 ? State::Tunnel : State::Idle);
                return;
            }
            std::string method;
            if (!pending_methods.empty()) {
                method = std::move(pending_methods.front());
                pending_methods.pop_front();
            }
            if (method == "HEAD" || head.status == 204 || head.status == 304) no_body = true;
            if (method == "CONNECT" && head.status < 300) {
                no_body = true;
                after_no_body = State::Tunnel;
            }
        }
        listener.on_headers_complete(head, off);
        if (state == State::Dead) return;
        if (no_body) {
            complete(after_no_body);
        } else if (head.chunked) {
            begin_chunk_size();
        } else if (te_present) {
            state = State::BodyUntilClose;  // response with a non-chunked coding
        } else if (head.content_length) {
            if (*head.content_length == 0) {
                complete();
            } else {
                remaining = *head.content_length;
                state = State::Body;
            }
        } else if (role == Role::Request) {
            complete();  // requests without framing headers have no body
        } else {
            state = State::BodyUntilClose;
        }
    }

    void gap(uint64_t len) {
        if (len == 0) return;
        switch (state) {
        case State::Body:
        case State::ChunkData: {
            // The length is known, so framing survives: skip the missing bytes.
            uint64_t k = std::min(len, remaining);
            off += k;
            body_pos += k;
            remaining -= k;
            len -= k;
            if (remaining == 0) {
                if (state == State::Body) complete();
                else state = State::ChunkDataCR;
            }
            if (len == 0) return;
            break;
        }
        case State::BodyUntilClose:
            off += len;
            body_pos += len;
            return;
        case State::Resync:
        case State::Tunnel:
        case State::Dead:
        case State::Closed:
            off += len;
            return;
        default:
            break;
        }
        // Framing is lost. Abandon the current message (it never completes)
        // and resynchronise: the next feed() whose data starts like a message
        // (looks_like_request / looks_like_response) begins a new message;
        // feeds before that are skipped whole. A message starting in the middle
        // of a fed chunk is therefore missed.
        listener.on_error("gap of " + std::to_string(len) + " bytes outside a body of known length; resynchronising",
                          off, false);
        off += len;
        reset_message();
        state = State::Resync;
    }

    void end_of_stream() {
        switch (state) {
        case State::BodyUntilClose:
            complete(State::Closed);
            return;
        case State::Idle:
        case State::Resync:
        case State::Tunnel:
        case State::Dead:
        case State::Closed:
            break;
        default:
            listener.on_error("stream ended inside a message", off, true);
            break;
        }
        state = State::Closed;
    }
};

HttpStreamParser::HttpStreamParser(Role role, HttpStreamListener& listener, HttpParserLimits limits)
    : impl_(std::make_unique<Impl>(role, listener, limits)) {
    impl_->reset_message();
}

HttpStreamParser::~HttpStreamParser() = default;

void HttpStreamParser::feed(std::span<const uint8_t> data) { impl_->feed(data); }
void HttpStreamParser::gap(uint64_t len) { impl_->gap(len); }
void HttpStreamParser::end_of_stream() { impl_->end_of_stream(); }

void HttpStreamParser::push_request_method(const std::string& method) {
    if (impl_->pending_methods.size() >= kMaxPendingMethods) impl_->pending_methods.pop_front();
    impl_->pending_methods.push_back(method);
}

bool HttpStreamParser::looks_like_request(std::span<const uint8_t> data) {
    size_t n = 0;
    while (n < data.size() && n <= 10 && data[n] >= 'A' && data[n] <= 'Z') ++n;
    return n >= 3 && n <= 10 && n < data.size() && data[n] == ' ';
}

bool HttpStreamParser::looks_like_response(std::span<const uint8_t> data) {
    static constexpr std::string_view kPrefix = "HTTP/1.";
    return data.size() >= kPrefix.size() && std::memcmp(data.data(), kPrefix.data(), kPrefix.size()) == 0;
}

uint64_t HttpStreamParser::offset() const { return impl_->off; }

} // namespace stallscope
