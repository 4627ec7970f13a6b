#include "dissectors/http/http_stream_parser.h"

#include "dissectors/http/ascii_case.h"
#include "dissectors/http/start_line.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>

namespace stallscope {

namespace {

// A chunk-size line (size + extensions) longer than this is garbage.
constexpr size_t kMaxChunkLine = 4096;
// Responses may never come; do not let pushed methods pile up forever.
constexpr size_t kMaxPendingMethods = 65536;

// The methods of the requests still waiting for a response, oldest first,
// as runs of one method: pipelined requests repeat one method, so 70,000
// pipelined HEADs are one entry and none is forgotten (a forgotten HEAD
// makes its response's Content-Length a body, and every later response is
// misread). Past kMaxPendingMethods runs the oldest method is dropped.
// Only what a response's framing asks of its request's method is kept.
enum class PendingMethod : uint8_t { Other, Head, Connect };

class MethodQueue {
public:
    bool empty() const { return runs_.empty(); }
    void push(const std::string& method) {
        PendingMethod m = method == "HEAD" ? PendingMethod::Head
                          : method == "CONNECT" ? PendingMethod::Connect
                                                : PendingMethod::Other;
        if (!runs_.empty() && runs_.back().first == m) {
            ++runs_.back().second;
            return;
        }
        if (runs_.size() >= kMaxPendingMethods) pop();
        runs_.emplace_back(m, 1);
    }
    PendingMethod pop() {  // not empty()
        PendingMethod m = runs_.front().first;
        if (--runs_.front().second == 0) runs_.pop_front();
        return m;
    }

private:
    std::deque<std::pair<PendingMethod, uint64_t>> runs_;
};

bool is_tchar(uint8_t c) { return is_http_tchar(c); }


// Inline: asked for every field value, which rarely has more than one space.
[[gnu::always_inline]] inline std::string_view trim_ows(std::string_view s) {
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

// A head's buffers keep their memory for the next message up to these
// sizes (a hostile head of 64 KiB must not stay with every connection).
constexpr size_t kKeepFieldBytes = 4096;
constexpr size_t kKeepFields = 64;
// The field bytes' first buffer: the heads of SOAP calls are 100-300 bytes
// (growing a string from its inline 15 bytes took ~3 reallocations a parser).
constexpr size_t kFirstFieldBytes = 256;

// Where one field's name and value lie in the head's field_bytes (offsets:
// the buffer may move while the head grows).
struct FieldPos {
    size_t name_off, name_len, value_off, value_len;
    HttpField kind;
};

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
        Resync,          // framing lost: scanning for the next valid start line
        Tunnel,          // after 101 / CONNECT 2xx: bytes are not HTTP any more
        Closed,          // after end_of_stream()
    };

    Role role;
    HttpStreamListener& listener;
    HttpParserLimits limits;

    State state = State::Idle;
    uint64_t off = 0;  // stream offset of the next byte

    // Head accumulation: only the current line is buffered; the fields'
    // names and values are copied into head.field_bytes, at `fields`.
    HttpMessageHead head;
    std::vector<FieldPos> fields;
    std::string line;
    StartLineMatcher start;    // the start line of the message in progress
    StartLineScanner scanner;  // where to begin again when framing is lost
    bool start_line_done = false;
    uint64_t head_bytes = 0;
    size_t header_lines = 0;
    uint64_t msg_begin = 0;
    uint32_t warned = 0;       // lenient-form warnings already given for this message

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

    MethodQueue pending_methods;
    bool head_fresh = false;   // reset_message() ran and no message began since

    Impl(Role r, HttpStreamListener& l, HttpParserLimits lim)
        : role(r), listener(l), limits(lim), start(r == Role::Request, lim.max_header_bytes),
          scanner(r == Role::Request, lim.max_header_bytes) {}

    bool in_message() const {
        return state != State::Idle && state != State::Resync && state != State::Tunnel && state != State::Closed;
    }

    void report(HttpError code, HttpErrorEffect effect, std::string msg, uint64_t at) {
        listener.on_error(HttpParseError{code, effect, at, std::move(msg)});
    }

    // A lenient form: reported once per message.
    void warn(HttpError code, std::string msg, uint64_t at) {
        uint32_t b = StartLineMatcher::bit(code);
        if (warned & b) return;
        warned |= b;
        report(code, HttpErrorEffect::Warning, std::move(msg), at);
    }

    // The message in progress (if any) ends here; skip to the next start
    // line. `line_start`: the next byte begins a line.
    void drop(HttpError code, const std::string& msg, uint64_t at, bool line_start) {
        HttpErrorEffect effect = !in_message()       ? HttpErrorEffect::Skipped
                                 : start_line_done   ? HttpErrorEffect::Dropped
                                                     : HttpErrorEffect::Rejected;
        // A final response dropped inside its head still answered a request:
        // its method goes, or the next response would take it (HEAD bodies).
        if (role == Role::Response && state == State::Head && start_line_done && head.status >= 200 &&
            !pending_methods.empty())
            pending_methods.pop();
        reset_message();
        state = State::Resync;
        scanner.restart(line_start);
        report(code, effect, msg, at);
    }

    void reset_message() {
        // The head's strings and vectors keep their buffers for the next
        // message (no allocation per message once they are warm), within
        // kKeepFieldBytes / kKeepFields.
        head.is_request = role == Role::Request;
        head.method.clear();
        head.uri.clear();
        head.version.clear();
        head.status = 0;
        head.reason.clear();
        head.header_bytes = 0;
        head.content_length.reset();
        head.chunked = head.connection_close = head.expect_continue = false;
        head.first_field = {};
        head.fields_indexed = true;
        if (head.field_bytes.capacity() > kKeepFieldBytes) std::string().swap(head.field_bytes);
        head.field_bytes.clear();
        if (fields.capacity() > kKeepFields) {
            std::vector<FieldPos>().swap(fields);
            std::vector<HttpHeader>().swap(head.headers);
        }
        fields.clear();
        head.headers.clear();
        line.clear();
        start_line_done = false;
        head_bytes = 0;
        header_lines = 0;
        remaining = 0;
        body_pos = 0;
        warned = 0;
        head_fresh = true;
    }

    void complete(State next = State::Idle) {
        listener.on_message_complete(off);
        reset_message();
        state = next;
    }

    // The start line in `m` is valid: it becomes the head's first line.
    // (Swapping the parts instead of copying them costs more: libstdc++'s
    // swap of short strings is ~50 instructions, measured.)
    void accept_start_line(const StartLineMatcher& m) {
        head.method = m.method;
        head.uri = m.target;
        head.version = m.version;
        head.reason = m.reason;
        start_line_accepted(m.status, m.lenient());
    }

    // The same for a whole canonical line judged in place (no lenient form).
    void accept_start_line(const StartLineMatcher::LineParts& l) {
        set_from_view(head.method, l.method);
        set_from_view(head.uri, l.target);
        set_from_view(head.version, l.version);
        set_from_view(head.reason, l.reason);
        start_line_accepted(l.status, 0);
    }

    void start_line_accepted(int status, uint32_t lenient) {
        start_line_done = true;
        head_bytes = off - msg_begin;
        head.status = status;
        listener.on_start_line(head, off);
        static constexpr std::pair<HttpError, const char*> kLenient[] = {
            {HttpError::ExtraWhitespace, "extra whitespace in the start line (accepted)"},
            {HttpError::LowerCaseVersion, "lower-case HTTP version (accepted)"},
            {HttpError::BareLineFeed, "line ended by a bare LF (accepted)"},
        };
        for (auto [code, text] : kLenient)
            if (lenient & StartLineMatcher::bit(code)) warn(code, text, msg_begin);
    }

    // One step of the state machine on the `n` (> 0) bytes at p: how many it
    // used (0: the state changed, go on with the same bytes). `off` moves with
    // every byte used, before what follows reads it.
    size_t step(const uint8_t* p, size_t n) {
        switch (state) {
        case State::Idle: return step_idle(p[0]);
        case State::Resync: return step_resync(p[0]);
        case State::Head: return start_line_done ? step_header_line(p, n) : step_start_line(p, n);
        case State::Body:
        case State::ChunkData:
        case State::BodyUntilClose: return step_body(p, n);
        case State::ChunkSize: return step_chunk_size(p[0]);
        case State::ChunkExt: return step_chunk_ext(p[0]);
        case State::ChunkSizeLF:
            if (p[0] != '\n') { bad_chunk("expected LF after chunk size", p[0]); return 0; }
            ++off;
            chunk_size_done();
            return 1;
        case State::ChunkDataCR:
            if (p[0] == '\r') { state = State::ChunkDataLF; ++off; return 1; }
            if (p[0] == '\n') { begin_chunk_size(); ++off; return 1; }  // bare LF tolerated
            bad_chunk("missing CRLF after chunk data", p[0]);
            return 0;
        case State::ChunkDataLF:
            if (p[0] != '\n') { bad_chunk("missing CRLF after chunk data", p[0]); return 0; }
            ++off;
            begin_chunk_size();
            return 1;
        case State::Trailer: return step_trailer(p[0]);
        case State::Tunnel:
        case State::Closed: off += n; return n;
        }
        return 0;
    }

    size_t step_idle(uint8_t c) {
        if (c == '\r' || c == '\n') { ++off; return 1; }  // tolerated empty lines
        if (!head_fresh) reset_message();  // complete() already did, as a rule
        head_fresh = false;
        msg_begin = off;
        start.reset();
        listener.on_message_begin(off);
        state = State::Head;
        return 0;
    }

    size_t step_resync(uint8_t c) {
        uint64_t at = off++;
        if (scanner.push(c, at)) {
            reset_message();
            head_fresh = false;
            msg_begin = scanner.candidate_offset();
            state = State::Head;
            listener.on_message_begin(msg_begin);
            accept_start_line(scanner.matcher());
        }
        return 1;
    }

    size_t step_start_line(const uint8_t* p, size_t n) {
        StartLineMatcher::LineParts parts;
        size_t line = start.started() ? 0 : start.match_line(p, n, parts);
        if (line) {  // a whole canonical line: at once, its parts straight into the head
            off += line;
            accept_start_line(parts);
            // The header lines in the same bytes follow without a step each.
            if (line < n && state == State::Head && start_line_done) line += step_header_line(p + line, n - line);
            return line;
        }
        if (size_t run = start.take_run(p, n)) {  // method, target, reason: at once
            off += run;
            return run;
        }
        uint8_t c = p[0];
        ++off;
        auto r = start.push(c);
        if (r == StartLineMatcher::Result::Accepted) accept_start_line(start);
        else if (r == StartLineMatcher::Result::Rejected) drop(start.reject_code, start.reject_reason, msg_begin, c == '\n');
        return 1;
    }

    // Header lines: every whole line in the `n` bytes at p while the head
    // lasts (as many steps would), then a line cut by their end.
    size_t step_header_line(const uint8_t* p, size_t n) {
        size_t used = 0;
        do used += header_line(p + used, n - used);
        while (used < n && state == State::Head && start_line_done);
        return used;
    }

    size_t header_line(const uint8_t* p, size_t n) {
        const void* lf = std::memchr(p, '\n', n);
        size_t k = lf ? size_t(static_cast<const uint8_t*>(lf) - p) + 1 : n;
        if (head_bytes + k > limits.max_header_bytes) {
            uint64_t at = off + (limits.max_header_bytes - head_bytes);
            off += k;
            drop(HttpError::HeaderTooLarge,
                 "header section exceeds " + std::to_string(limits.max_header_bytes) + " bytes", at, lf != nullptr);
            return k;
        }
        uint64_t line_start = off - line.size();
        const char* at = reinterpret_cast<const char*>(p);
        head_bytes += k;
        off += k;
        if (lf && line.empty()) {
            process_line(line_start, {at, k});  // the whole line is in this chunk: read it there
        } else {
            line.append(at, k);  // a line cut by the chunk's end waits here for its rest
            if (lf) process_line(line_start, line);
        }
        return k;
    }

    // Body bytes: up to `remaining` (a length, a chunk) or all (until the close).
    size_t step_body(const uint8_t* p, size_t n) {
        const bool counted = state != State::BodyUntilClose;
        size_t k = counted ? size_t(std::min<uint64_t>(remaining, n)) : n;
        listener.on_body({p, k}, body_pos);
        body_pos += k;
        off += k;
        if (counted) {
            remaining -= k;
            if (remaining == 0) {
                if (state == State::Body) complete();
                else state = State::ChunkDataCR;
            }
        }
        return k;
    }

    size_t step_chunk_size(uint8_t c) {
        if (++chunk_line_len > kMaxChunkLine) { bad_chunk("chunk-size line too long", c); return 0; }
        int v = hex_value(c);
        if (v >= 0) {
            if (chunk_size > (std::numeric_limits<uint64_t>::max() >> 4)) {
                bad_chunk("chunk size overflows 64 bits", c);
                return 0;
            }
            chunk_size = (chunk_size << 4) | uint64_t(v);
            chunk_has_digit = true;
            ++off;
            return 1;
        }
        if (!chunk_has_digit) { bad_chunk("bogus chunk size", c); return 0; }
        if (c == ';' || c == ' ' || c == '\t') { state = State::ChunkExt; ++off; return 1; }
        if (c == '\r') { state = State::ChunkSizeLF; ++off; return 1; }
        if (c == '\n') { ++off; chunk_size_done(); return 1; }
        bad_chunk("bogus chunk size", c);
        return 0;
    }

    size_t step_chunk_ext(uint8_t c) {
        if (++chunk_line_len > kMaxChunkLine) { bad_chunk("chunk-size line too long", c); return 0; }
        ++off;
        if (c == '\r') state = State::ChunkSizeLF;
        else if (c == '\n') chunk_size_done();
        return 1;
    }

    size_t step_trailer(uint8_t c) {
        ++off;
        if (c == '\n') {
            if (trailer_line_len == 0) { complete(); return 1; }
            trailer_line_len = 0;
            if (++trailer_lines > limits.max_headers)
                drop(HttpError::TooManyHeaders, "more than " + std::to_string(limits.max_headers) + " trailer fields",
                     off - 1, true);
        } else if (c != '\r') {
            ++trailer_line_len;
            if (++trailer_bytes > limits.max_header_bytes)
                drop(HttpError::HeaderTooLarge,
                     "trailer section exceeds " + std::to_string(limits.max_header_bytes) + " bytes", off - 1, false);
        }
        return 1;
    }

    void feed(std::span<const uint8_t> data) {
        const uint8_t* p = data.data();
        const size_t n = data.size();
        if (state == State::Resync) scanner.chunk_start();
        for (size_t i = 0; i < n;) i += step(p + i, n - i);
    }

    // Broken chunk framing at the byte `c` (not consumed): the byte itself
    // may begin the next line, so the scan starts on it.
    void bad_chunk(const char* msg, uint8_t) { drop(HttpError::BadChunk, msg, off, true); }

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

    // `l`: one header line with its LF, in the fed chunk or in `line`
    // (cleared here once `l` is no longer read).
    void process_line(uint64_t line_start, std::string_view l) {
        l.remove_suffix(1);  // '\n'
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        else warn(HttpError::BareLineFeed, "line ended by a bare LF (accepted)", line_start);
        if (l.empty()) {
            line.clear();
            finish_head();
            return;
        } else if (++header_lines > limits.max_headers) {
            drop(HttpError::TooManyHeaders, "more than " + std::to_string(limits.max_headers) + " header fields",
                 line_start, true);
            return;
        } else if (l.front() == ' ' || l.front() == '\t') {
            // obs-fold (RFC 9112 5.2): continuation of the previous field value.
            if (fields.empty()) {
                drop(HttpError::MalformedHeader, "obs-fold line before any header field", line_start, true);
                return;
            }
            FieldPos& f = fields.back();  // its value ends field_bytes
            std::string_view more = trim_ows(l);
            if (!more.empty()) {
                if (f.value_len) {
                    head.field_bytes += ' ';
                    ++f.value_len;
                }
                head.field_bytes.append(more);
                f.value_len += more.size();
            }
        } else {
            // The name: up to the first colon, token bytes only. A name
            // http_field_of() knows is made of them (it matches no other
            // byte), so only the others are tested byte by byte.
            const void* cp = std::memchr(l.data(), ':', l.size());
            const size_t colon = cp ? size_t(static_cast<const char*>(cp) - l.data()) : l.size();
            const std::string_view name = l.substr(0, colon);
            const HttpField kind = http_field_of(name);
            if (kind == HttpField::Other &&
                !std::all_of(name.begin(), name.end(), [](char c) { return is_tchar(uint8_t(c)); })) {
                drop(HttpError::MalformedHeader, cp ? "invalid header field name" : "malformed header field line",
                     line_start, true);
                return;
            }
            if (colon == 0 || !cp) {
                drop(HttpError::MalformedHeader, "malformed header field line", line_start, true);
                return;
            }
            std::string_view value = trim_ows(l.substr(colon + 1));
            std::string& bytes = head.field_bytes;
            const size_t at = bytes.size();
            const size_t value_at = size_t(value.data() - l.data());
            FieldPos f{at, name.size(), at + value_at, value.size(), kind};
            if (fields.capacity() == 0) {  // a SOAP head's usual few fields and bytes: one allocation each
                fields.reserve(8);
                if (bytes.capacity() < kFirstFieldBytes) bytes.reserve(kFirstFieldBytes);
            }
            bytes.append(l.substr(0, value_at + value.size()));  // name to value's end: one copy
            if (f.kind != HttpField::Other && !head.first_field[size_t(f.kind)] && fields.size() < 0xffff)
                head.first_field[size_t(f.kind)] = uint16_t(fields.size() + 1);
            fields.push_back(f);
        }
        line.clear();
    }

    // What the headers say about the message's framing and the connection.
    struct Framing {
        bool te_present = false;
        std::string_view last_coding;
        bool cl_present = false, cl_invalid = false, cl_conflict = false;
        uint64_t cl = 0;
        bool conn_close = false, conn_keep_alive = false;
    };

    // "5" or "5, 5" (RFC 9110 8.6): all values must be the same number.
    static void read_content_length(std::string_view value, Framing& f) {
        // The usual value, 1-19 digits (no overflow possible): read at once.
        if (!value.empty() && value.size() <= 19) {
            uint64_t v = 0;
            size_t i = 0;
            for (; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) v = v * 10 + uint64_t(value[i] - '0');
            if (i == value.size()) {
                if (f.cl_present && v != f.cl) f.cl_conflict = true;
                f.cl_present = true;
                f.cl = v;
                return;
            }
        }
        bool any = false;
        for_each_list_token(value, [&](std::string_view tok) {
            any = true;
            uint64_t v = 0;
            for (char c : tok) {
                if (c < '0' || c > '9' || v > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
                    f.cl_invalid = true;
                    return;
                }
                v = v * 10 + uint64_t(c - '0');
            }
            if (f.cl_present && v != f.cl) f.cl_conflict = true;
            f.cl_present = true;
            f.cl = v;
        });
        if (!any) f.cl_invalid = true;
    }

    // Also makes head.headers: views of the fields in head.field_bytes,
    // which no longer moves.
    Framing read_framing() {
        Framing f;
        if (head.headers.capacity() == 0) head.headers.reserve(std::max<size_t>(fields.size(), 8));
        const std::string_view bytes = head.field_bytes;
        for (const FieldPos& p : fields) {  // positions within `bytes`: no bounds test
            const std::string_view value(bytes.data() + p.value_off, p.value_len);
            head.headers.push_back({std::string_view(bytes.data() + p.name_off, p.name_len), value});
            switch (p.kind) {
            case HttpField::TransferEncoding:
                f.te_present = true;
                for_each_list_token(value, [&](std::string_view tok) {
                    f.last_coding = trim_ows(tok.substr(0, tok.find(';')));
                });
                break;
            case HttpField::ContentLength: read_content_length(value, f); break;
            case HttpField::Connection:
                for_each_list_token(value, [&](std::string_view tok) {
                    if (ascii_iequals(tok, "close")) f.conn_close = true;
                    if (ascii_iequals(tok, "keep-alive")) f.conn_keep_alive = true;
                });
                break;
            case HttpField::Expect:
                if (ascii_iequals(trim_ows(value), "100-continue")) head.expect_continue = true;
                break;
            default: break;
            }
        }
        return f;
    }

    // The body's length from Transfer-Encoding / Content-Length; false when
    // the message is dropped (RFC 9112 6.3's errors).
    bool apply_length(const Framing& f) {
        if (f.te_present) {
            if (!head.chunked && role == Role::Request) {
                drop(HttpError::BadTransferEncoding, "request Transfer-Encoding does not end in chunked", msg_begin, true);
                return false;
            }
            if (f.cl_present || f.cl_invalid) {
                // RFC 9112 6.3: Transfer-Encoding overrides Content-Length.
                warn(HttpError::LengthAndChunked, "both Transfer-Encoding and Content-Length; Transfer-Encoding wins",
                     msg_begin);
            }
        } else if (f.cl_invalid) {
            drop(HttpError::InvalidContentLength, "invalid Content-Length", msg_begin, true);
            return false;
        } else if (f.cl_conflict) {
            drop(HttpError::ConflictingContentLength, "conflicting Content-Length values", msg_begin, true);
            return false;
        } else if (f.cl_present) {
            head.content_length = f.cl;
        }
        return true;
    }

    // After the headers: no body, chunks, a length, or until the close.
    void begin_body(bool te_present, bool no_body, State after_no_body) {
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

    void finish_head() {
        head.header_bytes = head_bytes;
        const Framing f = read_framing();
        head.connection_close = f.conn_close || (std::string_view(head.version) == "HTTP/1.0" && !f.conn_keep_alive);
        head.chunked = f.te_present && ascii_iequals(f.last_coding, "chunked");
        if (!apply_length(f)) return;

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
            PendingMethod method = PendingMethod::Other;
            if (!pending_methods.empty()) method = pending_methods.pop();
            if (method == PendingMethod::Head || head.status == 204 || head.status == 304) no_body = true;
            if (method == PendingMethod::Connect && head.status < 300) {
                no_body = true;
                after_no_body = State::Tunnel;
            }
        }
        listener.on_headers_complete(head, off);
        begin_body(f.te_present, no_body, after_no_body);
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
            scanner.restart(false);
            off += len;
            return;
        case State::Tunnel:
        case State::Closed:
            off += len;
            return;
        default:
            break;
        }
        // Framing is lost: the message in progress never completes.
        drop(HttpError::Gap, "gap of " + std::to_string(len) + " bytes outside a body of known length; resynchronising",
             off, false);
        off += len;
    }

    void abandon() {
        if (in_message()) drop(HttpError::Abandoned, "message abandoned; resynchronising", off, false);
    }

    void enter_tunnel() {
        if (state == State::Tunnel || state == State::Closed) return;
        if (in_message()) drop(HttpError::TunnelEntered, "the connection became a tunnel inside a message", off, false);
        reset_message();
        state = State::Tunnel;
    }

    void end_of_stream() {
        if (state == State::BodyUntilClose) {
            complete(State::Closed);
            return;
        }
        if (in_message()) drop(HttpError::StreamEnded, "stream ended inside a message", off, false);
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
void HttpStreamParser::abandon() { impl_->abandon(); }
void HttpStreamParser::enter_tunnel() { impl_->enter_tunnel(); }
bool HttpStreamParser::in_tunnel() const { return impl_->state == Impl::State::Tunnel; }

void HttpStreamParser::discard_request_method() {
    if (!impl_->pending_methods.empty()) impl_->pending_methods.pop();
}

void HttpStreamParser::push_request_method(const std::string& method) {
    impl_->pending_methods.push(method);
}

bool HttpStreamParser::looks_like_request(std::span<const uint8_t> data) {
    // A whole line is judged as the parser would; a line cut by the segment
    // end needs a method with a letter in it followed by white space ("220 "
    // of SMTP, or digits of a chunk size, do not orient a connection).
    StartLineMatcher m(true, data.size() + 1);
    m.reset();
    for (uint8_t c : data) {
        auto r = m.push(c);
        if (r != StartLineMatcher::Result::More) return r == StartLineMatcher::Result::Accepted;
    }
    bool letter = std::any_of(m.method.begin(), m.method.end(),
                              [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); });
    return letter && data.size() > m.method.size();
}

bool HttpStreamParser::looks_like_response(std::span<const uint8_t> data) {
    static constexpr std::string_view kPrefix = "HTTP/1.";
    if (data.size() < kPrefix.size()) return false;
    for (size_t i = 0; i < kPrefix.size(); ++i)
        if (ascii_lower(char(data[i])) != ascii_lower(kPrefix[i])) return false;
    return true;
}

uint64_t HttpStreamParser::offset() const { return impl_->off; }

} // namespace stallscope
