#include "analyzers/report/json_call_layout.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/report/report.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>

namespace stallscope {

namespace {

// The runs of a call's element for one indent and depth (the open
// containers around it). D: the element's own line, M: the call's members,
// S: the members of its objects and the elements of its arrays, P: the
// members of a phase or attribution entry.
struct CallLayout {
    CallLayout(int indent, size_t depth) : indent(indent), depth(depth) {
        const size_t D = depth, M = D + 1, S = D + 2, P = D + 3;
        elem_first = run(nl(D) + "{" + nl(M) + key("id"));
        elem_next = run("," + nl(D) + "{" + nl(M) + key("id"));
        close_call = run(nl(D) + "}");
        for (size_t i = 0; i < kCallKeys; ++i) call[i] = run("," + nl(M) + key(kCallKey[i]));
        close_m = run(nl(M) + "}");
        fault_open = run("{" + nl(S) + key("code"));
        fault_string = run("," + nl(S) + key("string"));
        msg_open = run("{" + nl(S) + key("first_frame"));
        for (size_t i = 0; i < kMsgKeys; ++i) msg[i] = run("," + nl(S) + key(kMsgKey[i]));
        sizes_first = run("[" + nl(S + 1));
        sizes_next = run("," + nl(S + 1));
        sizes_close = run(nl(S) + "]");
        phase_first = run("[" + nl(S) + "{" + nl(P) + key("phase"));
        phase_next = run("," + nl(S) + "{" + nl(P) + key("phase"));
        for (size_t i = 0; i < kPhaseKeys; ++i) phase[i] = run("," + nl(P) + key(kPhaseKey[i]));
        cause_first = run("[" + nl(S) + "{" + nl(P) + key("cause"));
        cause_next = run("," + nl(S) + "{" + nl(P) + key("cause"));
        cause_ms = run("," + nl(P) + key("ms"));
        close_s = run(nl(S) + "}");
        array_close_m = run(nl(M) + "]");
    }

    // The call's keys after "id", in call_json's order.
    static constexpr const char* kCallKey[] = {"connection_id", "index_on_connection", "method", "uri",
        "http_version", "encrypted", "status", "reason", "operation", "namespace", "soap_version", "soap_action",
        "fault", "soap_error", "envelope_bytes", "element_count", "user_agent", "server", "expect_continue",
        "got_continue", "request_first_frame", "response_last_frame", "start_ms", "latency_ms", "complete",
        "opened_connection", "closed_connection", "request", "response", "phases", "attribution", "setup_ms",
        "client_ms", "latency_view", "client_latency_estimate_ms"};
    static constexpr size_t kCallKeys = std::size(kCallKey);
    static constexpr const char* kMsgKey[] = {"last_frame", "header_bytes", "body_bytes", "segments",
                                              "write_sizes", "complete", "missing_bytes"};
    static constexpr size_t kMsgKeys = std::size(kMsgKey);
    static constexpr const char* kPhaseKey[] = {"start_ms", "duration_ms", "start_frame", "end_frame"};
    static constexpr size_t kPhaseKeys = std::size(kPhaseKey);

    std::string nl(size_t d) const { return indent < 0 ? std::string() : "\n" + std::string(d * size_t(indent), ' '); }
    std::string key(std::string_view k) const { return "\"" + std::string(k) + (indent < 0 ? "\":" : "\": "); }
    JsonRun run(const std::string& s) {
        JsonRun r;
        r.id = next_id++;
        if (s.size() > JsonRun::kCap) fits = false;
        else {
            std::memcpy(r.bytes, s.data(), s.size());
            r.size = uint8_t(s.size());
        }
        return r;
    }

    int indent;
    size_t depth;
    bool fits = true;
    uint8_t next_id = 0;
    JsonRun elem_first, elem_next, close_call, call[kCallKeys], close_m, fault_open, fault_string, msg_open,
        msg[kMsgKeys], sizes_first, sizes_next, sizes_close, phase_first, phase_next, phase[kPhaseKeys], cause_first,
        cause_next, cause_ms, close_s, array_close_m;
};

// Index of a call key in kCallKey, found when compiled.
consteval size_t call_key(std::string_view k) {
    for (size_t i = 0; i < CallLayout::kCallKeys; ++i)
        if (std::string_view(CallLayout::kCallKey[i]) == k) return i;
    throw "not a call key";
}

// One layout per thread (the report's workers write calls in parallel),
// made again when the indent or depth changes. Out of line (call_json_tape
// inlines all it calls).
[[gnu::noinline]] const CallLayout* layout_for(int indent, size_t depth) {
    thread_local std::unique_ptr<CallLayout> cached;
    if (!cached || cached->indent != indent || cached->depth != depth)
        cached = std::make_unique<CallLayout>(indent, depth);
    return cached->fits ? cached.get() : nullptr;
}

// Values kept in a tape's shape instead of its values (issue 26, round
// eight): the template then holds their text and the report copies it with
// the pieces, nothing to store, format or loop over for them. Exact: the
// shape holds the value (another value is another shape). Only values that
// nearly every call of a shape has the same, so the shapes do not multiply:
// an ms value that rounds to +0 ("0.0": a phase or cause without time),
// and the integers write_call passes as fixed (a status, a message's
// segments and missing bytes), when >= 0.
inline bool ms_in_shape(double v) {
    uint64_t code = 1;
    return ms_rounded_code(v, code) && code == 0;
}
template <class T> bool fixed_in_shape(T v) { return v >= 0; }

// A call's frames, or its times, met so far as values (up to kMaxKept): a
// frame or time equal to one of them is written as a reference to it (a
// phase starts and ends at its messages' frames and times). The tape and
// the template meet the same values in the same order, so they agree.
struct KeptValues {
    uint64_t keys[CallSlot::kMaxKept];
    unsigned n = 0;
    int find(uint64_t x) const {
        for (unsigned i = 0; i < n; ++i)
            if (keys[i] == x) return int(i);
        return -1;
    }
    bool add(uint64_t x) {
        if (n == CallSlot::kMaxKept) return false;
        keys[n++] = x;
        return true;
    }
};

// The writer's pointer into the stream's buffer. After each run there is
// room for any value but a string (raw_string makes its own). With kSlots,
// each value's place is noted too (a shape's template: json_call_record.cpp).
template <bool kSlots> struct TextOut {
    JsonStream& w;
    char* p;
    int64_t t0;
    bool whole;
    CallJsonMarks* marks;
    std::vector<CallSlot>* slots = nullptr;

    void key(const JsonRun& r) { run(r); }
    void run(const JsonRun& r) {
        p = w.raw_room(p, 2 * JsonRun::kCap + kDoubleChars);
        std::memcpy(p, r.bytes, JsonRun::kCap);  // a fixed size copies fastest: the tail is overwritten
        p += r.size;
    }
    KeptValues frames{}, times{};  // with kSlots
    void slot(uint64_t from, CallSlot::Kind kind, int ref = 0) {
        if constexpr (kSlots) slots->push_back({from, uint32_t(written() - from), kind, uint8_t(ref)});
    }
    // The kinds as TapeOut tags them.
    template <class T> void num(T v) {
        const uint64_t from = kSlots ? written() : 0;
        p = JsonStream::raw_number(p, v);
        slot(from, CallSlot::Uint);
    }
    void ms(double v) {
        const uint64_t from = kSlots ? written() : 0;
        p = JsonStream::raw_ms(p, v);
        if constexpr (kSlots)
            if (!ms_in_shape(v)) slot(from, CallSlot::Ms);
    }
    // A frame: with kSlots, a reference to an equal earlier one (KeptValues).
    void frame(uint64_t x) {
        if constexpr (!kSlots) {
            num(x);
        } else {
            const uint64_t from = written();
            p = JsonStream::raw_number(p, x);
            const int r = frames.find(x);
            if (r >= 0) slot(from, CallSlot::FrameRef, r);
            else slot(from, frames.add(x) ? CallSlot::Frame : CallSlot::Uint);
        }
    }
    // A number the tape keeps in the shape: its text is the template's.
    template <class T> void fixed(T v) {
        if (!fixed_in_shape(v)) return num(v);
        p = JsonStream::raw_number(p, v);
    }
    void null() {
        std::memcpy(p, "null", 4);
        p += 4;
    }
    void empty() {
        std::memcpy(p, "[]", 2);
        p += 2;
    }
    void boolean(bool b) {
        if (b) std::memcpy(p, "true", 4);
        else std::memcpy(p, "false", 5);
        p += b ? 4 : 5;
    }
    void str(std::string_view s) { p = w.raw_string(p, s); }
    // An enum's name (phase_name, place_name: short, plain ASCII, checked by
    // json_stream_tests): no scan. Room: the run before it left kCap + 64.
    void name(const char* s) {
        const size_t n = std::strlen(s);
        if (n > JsonRun::kCap) return str(s);
        *p = '"';
        std::memcpy(p + 1, s, n);
        p[n + 1] = '"';
        p += n + 2;
    }
    void phase(PhaseKind k) { name(phase_name(k)); }
    void place(CapturePlace k) { name(place_name(k)); }
    // A time relative to the capture's first frame; with marks, null and noted.
    void time(int64_t ns) {
        if (!marks) return ms(ms_between(ns, t0));
        const uint64_t from = written();
        marks->times.push_back({from, ns});
        null();
        if constexpr (kSlots) {
            const int r = times.find(uint64_t(ns));
            if (r >= 0) slot(from, CallSlot::TimeRef, r);
            else slot(from, times.add(uint64_t(ns)) ? CallSlot::KeptTime : CallSlot::Time);
        }
    }
    void element_count(uint32_t n) {
        if (marks) {
            const uint64_t from = written();
            marks->element_count_at = from;
            null();
            slot(from, CallSlot::ElementCount);
        } else if (whole) {
            p = JsonStream::raw_number(p, n);
        } else {
            null();
        }
    }
    uint64_t written() const { return w.raw_written(p); }
};

// The shape and the values of an element instead of its text: each run's id,
// each string's bytes (length first), each null, bool and empty array as a
// tag in the shape, a phase's or place's name as its enum's byte; each number in the values, an integer or ms value as
// its kind's tag in the shape; each time as its ns, element_count as a tag
// only. A number is raw where it can be (an integer >= 0, a rounded ms value:
// its count of bytes first, 1 to 8), else its text (0x80 | its length first),
// so a value out of range does not make another shape. The shape is exact:
// two calls with the same shape and values have the same text.
struct TapeOut {
    // Tags above any run's id.
    enum : uint8_t {
        kStr = 0xE8, kTrue, kFalse, kNull, kEmpty, kTime, kCount, kUint, kMs, kPhase, kPlace, kFixed, kMsZero,
        kFrame, kKeptTime, kFrameRef, kTimeRef
    };
    CallTape& t;
    KeptValues frames, times;
    char* s;  // into t.shape.b: room for the whole element (room_for)
    char* v;  // into t.values.b: the same

    // The most a call's tape can take, made room for once (no test per tag
    // or value): per item (a run, value, null, bool, name, a string's head)
    // at most kItemShape bytes of shape (a fixed integer) and kItemValue of
    // values (a number's text), and the strings' bytes. write_call writes at
    // most 54 items, 2 more a write size, 6 a phase and 3 an attribution
    // entry; counted with room to spare.
    static constexpr size_t kItemShape = 10, kItemValue = 1 + kDoubleChars;
    static size_t items_of(const Call& k) {
        return 96 + 4 * (k.request.write_sizes.size() + k.response.write_sizes.size()) + 8 * k.phases.size() +
               4 * k.attribution.size();
    }
    // Every string write_call may write (some are left out: room to spare).
    static size_t string_bytes_of(const Call& k) {
        size_t n = k.method.size() + k.uri.size() + k.http_version.size() + k.reason.size() + k.soap_action.size() +
                   k.user_agent.size() + k.server.size();
        n += soap_bytes(k.soap) + soap_bytes(k.soap_response);  // not a loop over the two: no list to build
        for (const auto& a : k.attribution) n += a.cause.size();
        return n;
    }
    static size_t soap_bytes(const SoapInfo& i) {
        return i.operation.size() + i.operation_ns.size() + i.version.size() + i.fault_code.size() +
               i.fault_string.size() + i.error.size();
    }
    static char* room(TapeBytes& b, size_t n) {
        if (b.b.size() < n) b.b.resize(std::max(n, 2 * b.b.size()));
        return b.b.data();
    }

    TapeOut(CallTape& tape, const Call& k) : t(tape) {
        const size_t items = items_of(k);
        s = room(t.shape, items * kItemShape + string_bytes_of(k));
        v = room(t.values, items * kItemValue + CallTape::kValuePad);
    }
    void finish() {
        std::memset(v, 0, CallTape::kValuePad);
        v += CallTape::kValuePad;
        t.shape.n = size_t(s - t.shape.b.data());
        t.values.n = size_t(v - t.values.b.data());
        // Past its room: a bound above is wrong (memory already written over).
        if (t.shape.n > t.shape.b.size() || t.values.n > t.values.b.size()) std::abort();
    }
    void tag(uint8_t x) { *s++ = char(x); }
    void run(const JsonRun& r) { tag(r.id); }
    void key(const JsonRun&) {}  // decided by the tags before it (write_call)
    void value_done(char* end, uint8_t kind) {
        v = end;
        tag(kind);
    }
    // The bytes that hold x, 1 to 8 (0 takes one): from its top bit's index
    // (63 ^ clz is one bsr; 71 - clz took two more instructions a value).
    static unsigned byte_count(uint64_t x) { return (unsigned(63 ^ __builtin_clzll(x | 1)) + 8) >> 3; }
    // x's bytes, the count first: 8 stored, the count kept.
    void raw(uint64_t x, uint8_t kind) {
        const unsigned n = byte_count(x);
        *v = char(n);
        std::memcpy(v + 1, &x, 8);
        value_done(v + 1 + n, kind);
    }
    void text(char* end, uint8_t kind) {  // at most kDoubleChars
        *v = char(0x80 | (end - v - 1));
        value_done(end, kind);
    }
    template <class T> void num(T x) {
        if (x >= 0) raw(uint64_t(x), kUint);
        else text(JsonStream::raw_number(v + 1, x), kUint);
    }
    void ms(double x) {
        uint64_t code = 0;
        if (!ms_rounded_code(x, code)) return text(JsonStream::raw_ms(v + 1, x), kMs);
        if (code) return raw(code, kMs);
        tag(kMsZero);  // ms_in_shape
    }
    // In the shape: its tag, its count of bytes, its bytes (as raw's).
    template <class T> void fixed(T x) {
        if (!fixed_in_shape(x)) return num(x);
        const uint64_t u = uint64_t(x);
        const unsigned n = byte_count(u);
        s[0] = char(kFixed);
        s[1] = char(n);
        std::memcpy(s + 2, &u, 8);
        s += 2 + n;
    }
    void null() { tag(kNull); }
    void empty() { tag(kEmpty); }
    void boolean(bool b) { tag(b ? kTrue : kFalse); }
    void str(std::string_view x) {
        const uint32_t n = uint32_t(x.size());
        *s = char(kStr);
        std::memcpy(s + 1, &n, 4);
        JsonStream::copy(s + 5, x.data(), n);  // most are short: no memcpy call
        s += 5 + n;
    }
    // An enum written as its name: the enum's byte (its name is a function of it).
    void phase(PhaseKind k) { enum_tag(kPhase, uint8_t(k)); }
    void place(CapturePlace k) { enum_tag(kPlace, uint8_t(k)); }
    void enum_tag(uint8_t kind, uint8_t x) {
        s[0] = char(kind);
        s[1] = char(x);
        s += 2;
    }
    // A frame or time equal to an earlier one: a reference in the shape (KeptValues).
    void frame(uint64_t x) {
        const int r = frames.find(x);
        if (r >= 0) return enum_tag(kFrameRef, uint8_t(r));
        raw(x, frames.add(x) ? kFrame : kUint);
    }
    void time(int64_t ns) {
        const int r = times.find(uint64_t(ns));
        if (r >= 0) return enum_tag(kTimeRef, uint8_t(r));
        std::memcpy(v, &ns, 8);
        v += 8;
        tag(times.add(uint64_t(ns)) ? kKeptTime : kTime);
    }
    void element_count(uint32_t) { tag(kCount); }
};

// The element of call k: runs from L, values and strings through o. A run
// where the element's form branches (a choice, a loop, something present or
// not) goes through o.run, and a tape holds its id; any other through o.key,
// which a tape leaves out (issue 26, round eight: about 80 of a call's ~105
// runs): the tags of the branches before it decide it, so the shape stays
// exact. A new branch must write its runs with o.run, or decide between
// values of different tags (a null or a number, a string or a null).
template <class O> void write_call(O& o, const CallLayout& L, const Call& k, bool first) {
    o.run(first ? L.elem_first : L.elem_next);
    auto ms_or_null = [&](bool known, double ms) {
        if (known) o.ms(ms);
        else o.null();
    };
    auto str_or_null = [&](const std::string& s) {
        if (s.empty()) o.null();
        else o.str(s);
    };
    auto message = [&](const MessageInfo& m) {
        o.key(L.msg_open);
        o.frame(m.first_frame);
        o.key(L.msg[0]);
        o.frame(m.last_frame);
        o.key(L.msg[1]);
        o.num(m.header_bytes);
        o.key(L.msg[2]);
        o.num(m.body_bytes);
        o.key(L.msg[3]);
        o.fixed(m.write_sizes.size());
        o.key(L.msg[4]);
        if (m.write_sizes.empty()) {
            o.empty();
        } else {
            o.run(L.sizes_first);
            o.num(m.write_sizes[0]);
            for (size_t i = 1; i < m.write_sizes.size(); ++i) {
                o.run(L.sizes_next);
                o.num(m.write_sizes[i]);
            }
            o.run(L.sizes_close);
        }
        o.key(L.msg[5]);
        o.boolean(m.complete);
        o.key(L.msg[6]);
        o.fixed(m.missing_bytes);
        o.key(L.close_m);
    };

    o.num(k.id);
    o.key(L.call[call_key("connection_id")]);
    o.num(k.connection_id);
    o.key(L.call[call_key("index_on_connection")]);
    o.num(k.index_on_connection);
    o.key(L.call[call_key("method")]);
    o.str(k.method);
    o.key(L.call[call_key("uri")]);
    o.str(k.uri);
    o.key(L.call[call_key("http_version")]);
    o.str(k.http_version);
    if (k.encrypted) {  // TLS without keys: method, URI, status unknown
        o.run(L.call[call_key("encrypted")]);
        o.boolean(true);
    }
    o.key(L.call[call_key("status")]);
    if (k.status) o.fixed(k.status);
    else o.null();
    o.key(L.call[call_key("reason")]);
    o.str(k.reason);
    o.key(L.call[call_key("operation")]);
    str_or_null(k.soap.operation);
    o.key(L.call[call_key("namespace")]);
    str_or_null(k.soap.operation_ns);
    o.key(L.call[call_key("soap_version")]);
    str_or_null(k.soap.version);
    o.key(L.call[call_key("soap_action")]);
    o.str(k.soap_action);
    o.key(L.call[call_key("fault")]);
    const SoapInfo& fs = k.soap_response.fault ? k.soap_response : k.soap;
    if (fs.fault) {
        o.run(L.fault_open);
        o.str(fs.fault_code);
        o.key(L.fault_string);
        o.str(fs.fault_string);
        o.key(L.close_m);
    } else {
        o.null();
    }
    o.key(L.call[call_key("soap_error")]);
    str_or_null(!k.soap.error.empty() ? k.soap.error : k.soap_response.error);
    o.key(L.call[call_key("envelope_bytes")]);
    o.num(k.soap.bytes);
    o.key(L.call[call_key("element_count")]);
    o.element_count(k.soap.element_count);
    o.key(L.call[call_key("user_agent")]);
    o.str(k.user_agent);
    o.key(L.call[call_key("server")]);
    o.str(k.server);
    o.key(L.call[call_key("expect_continue")]);
    o.boolean(k.expect_continue);
    o.key(L.call[call_key("got_continue")]);
    o.boolean(k.got_continue);
    o.key(L.call[call_key("request_first_frame")]);
    o.frame(k.request_first_frame);
    o.key(L.call[call_key("response_last_frame")]);
    if (k.response_last_frame) o.frame(k.response_last_frame);
    else o.null();
    o.key(L.call[call_key("start_ms")]);
    o.time(k.start_ns);
    o.key(L.call[call_key("latency_ms")]);
    ms_or_null(k.complete, k.latency_ms);
    o.key(L.call[call_key("complete")]);
    o.boolean(k.complete);
    o.key(L.call[call_key("opened_connection")]);
    o.boolean(k.opened_connection);
    o.key(L.call[call_key("closed_connection")]);
    o.boolean(k.closed_connection);
    o.key(L.call[call_key("request")]);
    message(k.request);
    o.key(L.call[call_key("response")]);
    message(k.response);
    o.key(L.call[call_key("phases")]);
    if (k.phases.empty()) {
        o.empty();
    } else {
        for (size_t i = 0; i < k.phases.size(); ++i) {
            const Phase& ph = k.phases[i];
            o.run(i ? L.phase_next : L.phase_first);
            o.phase(ph.kind);
            o.key(L.phase[0]);
            o.time(ph.start_ns);
            o.key(L.phase[1]);
            o.ms(ph.duration_ms());
            o.key(L.phase[2]);
            o.frame(ph.start_frame);
            o.key(L.phase[3]);
            o.frame(ph.end_frame);
            o.key(L.close_s);
        }
        o.key(L.array_close_m);
    }
    o.key(L.call[call_key("attribution")]);
    if (k.attribution.empty()) {
        o.empty();
    } else {
        for (size_t i = 0; i < k.attribution.size(); ++i) {
            o.run(i ? L.cause_next : L.cause_first);
            o.str(k.attribution[i].cause);
            o.key(L.cause_ms);
            o.ms(k.attribution[i].ms);
            o.key(L.close_s);
        }
        o.key(L.array_close_m);
    }
    o.key(L.call[call_key("setup_ms")]);
    ms_or_null(k.setup_ms >= 0, k.setup_ms);
    o.key(L.call[call_key("client_ms")]);
    if (k.complete) o.ms(client_ms(k));
    else o.null();
    o.key(L.call[call_key("latency_view")]);
    o.place(k.view);
    o.key(L.call[call_key("client_latency_estimate_ms")]);
    ms_or_null(k.complete && k.client_path_ms >= 0, k.latency_ms + k.client_path_ms);
    o.key(L.close_call);
}

} // namespace

std::vector<uint8_t> tape_value_kinds(const CallTape& t) {
    std::vector<uint8_t> kinds;
    const std::string_view s = t.shape.view();
    for (size_t i = 0; i < s.size();) {
        switch (uint8_t(s[i])) {
        case TapeOut::kStr: {
            uint32_t n = 0;
            if (s.size() - i >= 5) std::memcpy(&n, s.data() + i + 1, 4);
            i += 5 + size_t(n);
            break;
        }
        case TapeOut::kPhase:
        case TapeOut::kPlace: i += 2; break;
        case TapeOut::kFixed: i += 2 + (i + 1 < s.size() ? uint8_t(s[i + 1]) : 0); break;
        case TapeOut::kFrameRef:
        case TapeOut::kTimeRef: {
            const uint8_t ref = i + 1 < s.size() ? uint8_t(s[i + 1]) : 0;
            kinds.push_back(CallSlot{0, 0, s[i] == char(TapeOut::kFrameRef) ? CallSlot::FrameRef : CallSlot::TimeRef, ref}.code());
            i += 2;
            break;
        }
        case TapeOut::kFrame: kinds.push_back(CallSlot::Frame), ++i; break;
        case TapeOut::kKeptTime: kinds.push_back(CallSlot::KeptTime), ++i; break;
        case TapeOut::kTime: kinds.push_back(CallSlot::Time), ++i; break;
        case TapeOut::kCount: kinds.push_back(CallSlot::ElementCount), ++i; break;
        case TapeOut::kUint: kinds.push_back(CallSlot::Uint), ++i; break;
        case TapeOut::kMs: kinds.push_back(CallSlot::Ms), ++i; break;
        default: ++i;  // a run, bool, null, empty array or zero ms value
        }
    }
    return kinds;
}

bool call_json_layout(JsonStream& w, const Call& k, int64_t t0, bool whole, CallJsonMarks* marks) {
    if (w.depth() == 0) return false;  // not inside an array
    const CallLayout* L = layout_for(w.indent(), w.depth());
    if (!L) return false;
    TextOut<false> o{w, w.raw_begin(), t0, whole, marks};
    write_call(o, *L, k, w.raw_element());
    w.raw_end(o.p);
    return true;
}

bool call_json_slots(JsonStream& w, const Call& k, CallJsonMarks& marks, std::vector<CallSlot>& slots) {
    if (w.depth() == 0) return false;
    const CallLayout* L = layout_for(w.indent(), w.depth());
    if (!L) return false;
    TextOut<true> o{w, w.raw_begin(), 0, false, &marks, &slots};
    write_call(o, *L, k, w.raw_element());
    w.raw_end(o.p);
    return true;
}

// Flattened: with the writer inlined whole, its pointers stay in registers
// (a char store through one could otherwise alias the writer's members).
[[gnu::flatten]] bool call_json_tape(int indent, size_t depth, const Call& k, CallTape& t) {
    const CallLayout* L = depth ? layout_for(indent, depth) : nullptr;
    if (!L) return false;
    TapeOut o(t, k);
    write_call(o, *L, k, true);
    o.finish();
    return true;
}

} // namespace stallscope
