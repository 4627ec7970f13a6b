#include "analyzers/report/json_call_record.h"

#include "analyzers/report/append_buf.h"
#include "analyzers/report/json_call_layout.h"
#include "analyzers/report/ordered_batches.h"

#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/xml_sample.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <unordered_map>
#include <ostream>
#include <streambuf>
#include <type_traits>

namespace stallscope {

// A record: tag, indent, what the whole-XML sample looks at (request first
// frame, request content bytes, operation key), whether the call's XML was
// measured and its element_count; the text; then the places to fill, in the
// order they come in the text: each time's place and ns; element_count's
// place and where among the times it comes (its index); the count of times
// and the text's length. Places are offsets in the text. Numbers are little-endian,
// fixed size. The whole record is written by the recorder's stream and
// handed to the spill from its buffer, not copied out first.
namespace {

// Record kinds. A full record: the element's text (the fallback, and the
// reference). A shape's first call: its template (the text cut at its
// values) and its values. Any later call of that shape: the id of the
// shape's first call and its values only, about a tenth of the bytes.
constexpr uint8_t kTag = 0x4A;  // not a binary call record's (model_spill.cpp)
constexpr uint8_t kDefineTag = 0x4B;
constexpr uint8_t kShapeTag = 0x4C;
constexpr size_t kTimeBytes = 4 + 8;  // a time's place and ns
constexpr size_t kTrailerBytes = 4 * 4;  // element_count's place and index, times, length
constexpr size_t kSlotBytes = 4 + 1;  // a template's cut and kind
constexpr size_t kMaxShapeBytes = 16 << 10;  // a call whose shape is bigger (a huge string) is stored as text
constexpr size_t kHeadBytes = 1 + 1 + 8 + 8 + 1 + 4 + 4;  // a head before its operation key (read_head)

template <class T> void put(std::string& out, T v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
template <class T> char* put_at(char* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
}
template <class T> T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Reads a record's head; every read checked, a short record fails.
class Cursor {
public:
    explicit Cursor(std::string_view b) : b_(b) {}
    template <class T> T get() {
        T v{};
        if (b_.size() - at_ < sizeof v) { ok_ = false; return v; }
        std::memcpy(&v, b_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    std::string_view bytes(size_t n) {
        if (b_.size() - at_ < n) { ok_ = false; return {}; }
        at_ += n;
        return b_.substr(at_ - n, n);
    }
    bool ok() const { return ok_; }
    size_t left() const { return b_.size() - at_; }
    std::string_view rest() const { return b_.substr(at_); }
private:
    std::string_view b_;
    size_t at_ = 0;
    bool ok_ = true;
};

// A shape's key in the recorder's table: hashed, compared whole (a hash
// alone never merges two shapes). Two words a step in two lanes (an odd
// multiply keeps any one word's difference), then the rest as at most two
// words (the last overlapping), mixed at the end: every byte counts.
struct ShapeHash {
    size_t operator()(std::string_view s) const {
        uint64_t a = s.size() * 0x9E3779B97F4A7C15ULL, b = 0x6A09E667F3BCC909ULL;
        const char* p = s.data();
        size_t i = 0;
        for (; i + 16 <= s.size(); i += 16) {
            a = (a ^ load<uint64_t>(p + i)) * 0xFF51AFD7ED558CCDULL;
            b = (b ^ load<uint64_t>(p + i + 8)) * 0xC4CEB9FE1A85EC53ULL;
        }
        if (s.size() - i > 8) b = (b ^ load<uint64_t>(p + i)) * 0xC4CEB9FE1A85EC53ULL;
        if (s.size() >= 8) a = (a ^ load<uint64_t>(p + s.size() - 8)) * 0xFF51AFD7ED558CCDULL;
        else
            for (; i < s.size(); ++i) a = (a ^ uint8_t(p[i])) * 0x100000001B3ULL;
        uint64_t h = a ^ (b >> 31 | b << 33);
        h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ULL;
        return size_t(h ^ (h >> 29));
    }
};

// One stream for every call: its buffer and layout state are reused. A
// record is made in the stream's buffer and read there by the caller; the
// next one drops it. A record too big for the buffer goes to `spilled`.
struct Recorder {
    Recorder(int indent, CallShapeLimits limits)
        : os(&buf), js(os, indent), indent(indent), limits(limits), tos(&tbuf), tjs(tos, indent) {
        std::random_device rd;
        nonce = uint64_t(rd()) << 32 | rd();
    }
    ~Recorder() {
        js.discard();
        buf.out = nullptr;
        tjs.discard();
        tbuf.out = nullptr;
    }
    std::string spilled;
    AppendBuf buf;
    std::ostream os;
    JsonStream js;
    int indent;
    CallJsonMarks marks;
    std::string head, tail;
    // The shapes seen, each with its id and the call that defined it.
    struct Shape {
        uint32_t id;
        uint64_t call;
    };
    CallShapeLimits limits;
    uint64_t nonce;  // ties a shape's calls to its definition from this recorder
    std::unordered_map<std::string_view, Shape, ShapeHash> shapes;
    std::deque<std::string> shape_keys;  // the table's keys (a deque never moves them)
    // The shapes found last, the latest first: nearly every call has one of
    // them (a compare or a few instead of the hash and the lookup: a
    // call's shape is a few hundred bytes). A node never moves.
    using Node = std::pair<const std::string_view, Shape>;
    static constexpr size_t kRecent = 4;
    const Node* recent[kRecent] = {};
    const Node* recent_shape(std::string_view shape) {
        for (size_t i = 0; i < kRecent && recent[i]; ++i)
            if (recent[i]->first == shape) return made_recent(recent[i], i);
        auto it = shapes.find(shape);
        return it == shapes.end() ? nullptr : made_recent(&*it, kRecent - 1);
    }
    // n first, the ones before `at` one place later (the one at `at` dropped).
    const Node* made_recent(const Node* n, size_t at) {
        for (; at > 0; --at) recent[at] = recent[at - 1];
        return recent[0] = n;
    }
    size_t shape_bytes = 0;
    CallTape tape;
    // A new shape's text, written apart and cut at its values.
    std::string tscratch;
    AppendBuf tbuf;
    std::ostream tos;
    JsonStream tjs;
    std::vector<CallSlot> slots;
    std::string templ;

    // The operation key the whole-XML sample looks at (operation_key's; the
    // operation itself when there is one, else made in `made`).
    static std::string_view key_of(const Call& c, std::string& made) {
        if (!c.soap.operation.empty()) return c.soap.operation;
        return made = operation_key(c);
    }
    // A record's head at p (kHeadBytes and the key); returns its end.
    char* head_at(char* p, uint8_t tag, const Call& c, std::string_view key) const {
        p = put_at(p, tag);
        p = put_at(p, int8_t(indent));
        p = put_at(p, c.request.first_frame);
        p = put_at(p, c.request.content_bytes);
        p = put_at(p, uint8_t(whole_xml_measured(c)));
        p = put_at(p, c.soap.element_count);
        p = put_at(p, uint32_t(key.size()));
        std::memcpy(p, key.data(), key.size());
        return p + key.size();
    }
    // The record's head in `head`, with `extra` bytes after it for the
    // caller to fill (returned). Sized once: written at a pointer.
    char* put_head(uint8_t tag, const Call& c, size_t extra) {
        std::string made;
        const std::string_view key = key_of(c, made);
        head.resize(kHeadBytes + key.size() + extra);
        return head_at(head.data(), tag, c, key);
    }
    std::string_view done() {
        if (spilled.empty()) return js.unflushed();
        js.flush();
        return spilled;
    }

    std::string_view make(const Call& c) {
        js.discard();  // the previous record, stored by now
        spilled.clear();
        buf.out = &spilled;
        if (limits.shapes && call_json_tape(indent, 2, c, tape) && tape.shape.n <= kMaxShapeBytes) {
            const std::string_view shape = tape.shape.view();
            if (const Node* n = recent_shape(shape)) return of_shape(c, n->second);
            if (shapes.size() < limits.shapes && shape_bytes + 4 * tape.shape.n <= limits.bytes && define(c))
                return done();
        }
        return full(c);
    }

    // Nearly every call: its head and values written straight into the
    // stream's buffer (empty: the last record was dropped), not through `head`.
    std::string_view of_shape(const Call& c, const Shape& s) {
        constexpr size_t kIds = sizeof s.id + sizeof s.call + sizeof nonce;
        const std::string_view values = tape.values.view();
        std::string made;
        const std::string_view key = key_of(c, made);
        const bool direct = kHeadBytes + key.size() + kIds + values.size() <= JsonStream::kRawRoom;
        char* p = direct ? head_at(js.raw_begin(), kShapeTag, c, key) : put_head(kShapeTag, c, kIds);
        p = put_at(p, s.id);
        p = put_at(p, s.call);
        p = put_at(p, nonce);
        if (direct) {
            std::memcpy(p, values.data(), values.size());
            js.raw_end(p + values.size());
        } else {
            js.raw(head);
            js.raw(values);
        }
        return done();
    }

    // The call's element written as text with its values' places, cut
    // there into a template, and recorded with the call's values.
    bool define(const Call& c) {
        tjs.discard();
        tscratch.clear();
        tbuf.out = &tscratch;
        marks.times.clear();
        slots.clear();
        tjs.resume_inside(2, 0);
        const uint64_t base = tjs.written();
        if (!call_json_slots(tjs, c, marks, slots)) return false;
        tjs.flush();
        if (tscratch.size() != tjs.written() - base) return false;
        const std::vector<uint8_t> kinds = tape_value_kinds(tape);  // the tape's values as the template cuts them
        if (kinds.size() != slots.size()) return false;
        templ.clear();
        tail.clear();
        uint64_t from = 0;
        for (size_t i = 0; i < slots.size(); ++i) {
            const CallSlot& s = slots[i];
            if (kinds[i] != s.code()) return false;
            const uint64_t at = s.at - base;
            if (at < from || at + s.len > tscratch.size()) return false;
            templ.append(tscratch, from, at - from);
            put(tail, uint32_t(templ.size()));
            put(tail, s.code());
            from = at + s.len;
        }
        templ.append(tscratch, from);
        const Shape shape{uint32_t(shapes.size()), c.id};
        put_head(kDefineTag, c, 0);
        put(head, shape.id);
        put(head, c.id);
        put(head, nonce);
        put(head, uint32_t(slots.size()));
        put(head, uint32_t(templ.size()));
        js.raw(head);
        js.raw(tail);
        js.raw(templ);
        js.raw(tape.values.view());
        shape_keys.emplace_back(tape.shape.view());
        shapes.emplace(shape_keys.back(), shape);
        shape_bytes += shape_keys.back().size() + templ.size() + tail.size() + 64;
        return true;
    }

    // Today's record: the element's text, its times and element_count noted.
    std::string_view full(const Call& c) {
        put_head(kTag, c, 0);
        js.raw(head);
        marks.times.clear();
        js.resume_inside(2, 0);  // an element of the report's "calls" (document > calls)
        const uint64_t base = js.written();
        call_json_marked(js, c, marks);
        const uint64_t len = js.written() - base;
        tail.clear();
        uint32_t count_index = 0;
        for (const auto& t : marks.times) {
            put(tail, uint32_t(t.at - base));
            put(tail, t.ns);
            count_index += t.at < marks.element_count_at;
        }
        put(tail, uint32_t(marks.element_count_at - base));
        put(tail, count_index);
        put(tail, uint32_t(marks.times.size()));
        put(tail, uint32_t(len));
        js.raw(tail);
        return done();
    }
};

[[noreturn]] void bad_record(const AnalysisResult& r, uint64_t n) {
    throw SpillError("spill file in " + r.spill->dir() + ": call record " + std::to_string(n) +
                     " is not a JSON call element");
}

// A shape's template as the report reads it back.
struct Template {
    static constexpr size_t kPad = 64;  // zeros after the text: its pieces are copied 64 bytes at a time
    uint32_t id = 0;
    uint64_t nonce = 0;
    uint32_t len = 0;
    std::string text;
    struct Op {
        uint32_t piece;  // bytes of text before the value
        uint8_t kind;    // CallSlot::Kind
        uint8_t ref;     // FrameRef, TimeRef: the kept value's place in render_at's kept texts
    };
    std::vector<Op> ops;  // in order; the rest of the text after the last
};

// What every record starts with: with what the whole-XML sample looks at
// (the operation key in the record's bytes, not copied).
struct Head {
    uint8_t tag = 0;
    bool measured = false;
    uint32_t element_count = 0;
    uint64_t request_frame = 0, request_bytes = 0;
    std::string_view operation;
};

Head read_head(Cursor& in, int indent) {
    Head h;
    // Its fixed part tested once (a short record fails: tag 0, in.ok() false).
    const char* p = in.bytes(kHeadBytes).data();
    if (!in.ok()) return h;
    const int8_t made_for = int8_t(p[1]);
    h.request_frame = load<uint64_t>(p + 2);
    h.request_bytes = load<uint64_t>(p + 10);
    h.measured = p[18] != 0;
    h.element_count = load<uint32_t>(p + 19);
    h.operation = in.bytes(load<uint32_t>(p + 23));
    h.tag = made_for == indent ? uint8_t(p[0]) : 0;
    return h;
}

// A define record's template (after its head and shape id), checked: false when damaged.
bool read_template(Cursor& in, Template& t, uint64_t& call) {
    call = in.get<uint64_t>();
    t.nonce = in.get<uint64_t>();
    const uint32_t slots = in.get<uint32_t>(), len = in.get<uint32_t>();
    if (!in.ok() || in.left() < uint64_t(slots) * kSlotBytes + len) return false;
    const std::string_view cuts = in.bytes(size_t(slots) * kSlotBytes);
    t.len = len;
    t.text.assign(in.bytes(len));
    t.text.append(Template::kPad, '\0');
    t.ops.resize(slots);
    uint32_t last = 0;
    unsigned frames = 0, times = 0;  // kept so far: what a reference may name
    for (uint32_t i = 0; i < slots; ++i) {
        const uint32_t cut = load<uint32_t>(cuts.data() + i * kSlotBytes);
        const uint8_t code = uint8_t(cuts[i * kSlotBytes + 4]), kind = code & 0xF, ref = code >> 4;
        if (cut < last || cut > len || kind == CallSlot::Text || kind > CallSlot::TimeRef) return false;
        frames += kind == CallSlot::Frame;
        times += kind == CallSlot::KeptTime;
        if (frames > CallSlot::kMaxKept || times > CallSlot::kMaxKept) return false;
        if (ref && kind != CallSlot::FrameRef && kind != CallSlot::TimeRef) return false;
        if (ref >= (kind == CallSlot::FrameRef ? frames : kind == CallSlot::TimeRef ? times : 1)) return false;
        // One array of kept texts in render_at: the frames', then the times'.
        t.ops[i] = {cut - last, kind, uint8_t(kind == CallSlot::TimeRef ? CallSlot::kMaxKept + ref : ref)};
        last = cut;
    }
    return in.ok();
}

// Masks of an integer's low 1 to 8 bytes (a raw value's count indexes it).
constexpr uint64_t kLowBytes[9] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFULL, 0xFFFFFFFFFFFFULL,
                                   0xFFFFFFFFFFFFFFULL, ~0ULL};

// n bytes of a template's text at p. Fast (room for the whole element asked
// once): up to 128 bytes as one fixed block of 32 or 64 or two of 64 (the
// text is padded, the room covers the tail). Inlined: a value's loop is its hot path.
template <bool kFast> [[gnu::always_inline]] inline char* template_piece(JsonStream& w, char* p, const char* src, size_t n) {
    if constexpr (!kFast) return w.raw_bytes(p, src, n);
    if (n <= Template::kPad / 2) {  // most: a key and its indent
        std::memcpy(p, src, Template::kPad / 2);
    } else if (n <= Template::kPad) {
        std::memcpy(p, src, Template::kPad);
    } else if (n <= 2 * Template::kPad) {
        std::memcpy(p, src, Template::kPad);
        std::memcpy(p + Template::kPad, src + Template::kPad, Template::kPad);
    } else {
        std::memcpy(p, src, n);
    }
    return p + n;
}

// A kept frame's or time's text (CallSlot::Frame, KeptTime), copied again for
// each reference to it: up to kDoubleChars bytes (any number), copied as one
// or two fixed 32-byte blocks. `from` and the reference's `p` have that much
// room (the fast path's, or raw_room's after a piece).
struct KeptText {
    static constexpr size_t kHalf = kDoubleChars / 2;
    char text[kDoubleChars];
    size_t len;
    void keep(const char* from, const char* to) {
        len = size_t(to - from);
        std::memcpy(text, from, kHalf);
        if (len > kHalf) std::memcpy(text + kHalf, from + kHalf, kHalf);
    }
    char* copy(char* p) const {
        std::memcpy(p, text, kHalf);
        if (len > kHalf) std::memcpy(p + kHalf, text + kHalf, kHalf);
        return p + len;
    }
};

// The same on the fast path, where the element's text does not move while it
// is written (its room asked once): the kept text's place in it, not a copy
// (issue 26, round eight: no copy for the ~11 frames and times a call keeps).
// A reference may come a few bytes after the text it copies, so the blocks
// are moved (read whole, then written), as memmove does.
struct KeptPlace {
    static constexpr size_t kHalf = kDoubleChars / 2;
    static_assert(kHalf == 32, "move() copies two 16-byte blocks");
    const char* text;
    size_t len;
    void keep(const char* from, const char* to) {
        text = from;
        len = size_t(to - from);
    }
    // Read whole before written, in two 16-byte registers (an array here is
    // copied through the stack; a memmove is a call).
    static void move(char* to, const char* from) {
        typedef char Block __attribute__((vector_size(16)));
        Block a, b;
        std::memcpy(&a, from, 16);
        std::memcpy(&b, from + 16, 16);
        std::memcpy(to, &a, 16);
        std::memcpy(to + 16, &b, 16);
    }
    char* copy(char* p) const {
        move(p, text);
        if (len > kHalf) move(p + kHalf, text + kHalf);
        return p + len;
    }
};

// A call of a shape: its template's pieces with its values between them,
// at p; returns the end, or null when the values do not fit the template.
// A raw value (an integer, a rounded ms value) is loaded as 8 bytes and
// masked to its count. The tape's pad (kValuePad bytes) is tested to be
// zeros once; then a number needs no test of its own: one read at or past
// vend (at most 8 past it: a time is read only below vend, and a value
// below it ends at most 1 + 8 bytes on) meets a zero count, which is no
// number, and a value that ends past vend is caught by the last test.
// A reference takes no value: it copies the text of the frame or time it
// names (read_template checked that it comes after it).
// The pointer is a local (not the caller's): a char store cannot alias it.
template <bool kFast>
char* render_at(JsonStream& w, char* p, const Template& t, std::string_view values, bool whole, uint32_t element_count,
                int64_t t0) {
    if (values.size() < CallTape::kValuePad) return nullptr;
    const char* v = values.data();
    const char* const vend = v + values.size() - CallTape::kValuePad;
    static_assert(CallTape::kValuePad == 16, "one value's read past vend stays inside the pad");
    if (load<uint64_t>(vend) | load<uint64_t>(vend + 8)) return nullptr;
    const char* src = t.text.data();
    std::conditional_t<kFast, KeptPlace, KeptText> kept[2 * CallSlot::kMaxKept];  // the frames', then the times' (Template::Op::ref)
    unsigned kept_frames = 0, kept_times = CallSlot::kMaxKept;
    for (const Template::Op& each : t.ops) {
        const Template::Op op = each;  // a local: the text's char stores cannot alias it (no reloads)
        p = template_piece<kFast>(w, p, src, op.piece);
        src += op.piece;
        if (op.kind >= CallSlot::FrameRef) {  // the most on a call: its phases' frames and times
            p = kept[op.ref].copy(p);
            continue;
        }
        if (uint8_t(op.kind - CallSlot::Uint) > CallSlot::Frame - CallSlot::Uint) {  // not a number: one test
            if (op.kind == CallSlot::ElementCount) {
                if (whole) {
                    p = JsonStream::raw_number(p, element_count);
                } else {
                    std::memcpy(p, "null", 4);
                    p += 4;
                }
                continue;
            }
            if (v >= vend) return nullptr;
            const int64_t ns = load<int64_t>(v);
            v += 8;
            char* const from = p;
            const double ms = ms_between(ns, t0);
            uint64_t code = 0;
            p = ms_rounded_code(ms, code) ? write_ms_code_table(p, code) : JsonStream::raw_ms(p, ms);
            if (op.kind == CallSlot::KeptTime) kept[kept_times++].keep(from, p);
            continue;
        }
        char* const from = p;  // a number: Uint, Ms, Frame (no test of v: above)
        const size_t n = uint8_t(*v);
        if (n - 1 < 8) {  // raw: its bytes, then formatted
            const uint64_t x = load<uint64_t>(v + 1) & kLowBytes[n];
            v += 1 + n;
            if (op.kind != CallSlot::Ms) p = write_uint_table(p, x);
            else if (x >> 33) return nullptr;
            else p = write_ms_code_table(p, x);
        } else {
            const size_t len = n & 0x7F;  // its text
            if (!(n & 0x80) || len > kDoubleChars || size_t(vend - v) - 1 < len) return nullptr;
            std::memcpy(p, v + 1, len);
            p += len;
            v += 1 + len;
        }
        if (op.kind == CallSlot::Frame) kept[kept_frames++].keep(from, p);
    }
    if (v != vend) return nullptr;
    return template_piece<kFast>(w, p, src, size_t(t.text.data() + t.len - src));
}

bool render(JsonStream& w, const Template& t, std::string_view values, bool whole, uint32_t element_count, int64_t t0) {
    char* p = w.raw_begin();
    if (!w.raw_element()) *p++ = ',';
    const size_t need = t.len + t.ops.size() * kDoubleChars + 2 * Template::kPad;
    char* end;
    if (need <= JsonStream::kRawBlock) end = render_at<true>(w, w.raw_room(p, need), t, values, whole, element_count, t0);
    else end = render_at<false>(w, p, t, values, whole, element_count, t0);
    if (!end) return false;  // the stream is thrown away with the error
    w.raw_end(end);
    return true;
}

} // namespace

std::function<std::string_view(const Call&)> json_call_recorder(int indent, CallShapeLimits limits) {
    auto rec = std::make_shared<Recorder>(indent, limits);
    return [rec](const Call& c) { return rec->make(c); };
}

namespace {

// A record as the reading thread settles it, in order: what is needed to
// write it on any thread, given the record past its head (`rest`).
struct Settled {
    const Template* t = nullptr;  // a shape's template; none: a full text record
    bool whole = false;           // element_count is shown
    uint32_t element_count = 0;
    uint64_t n = 0;               // its place among the calls (1 = first), for errors
};

// The text copied in pieces at the writer's pointer, each time and
// element_count written over its null: the places come in order with the
// record, nothing is searched. A shape's call: its template's pieces with
// its values between them.
void write_settled(JsonStream& w, const AnalysisResult& r, const Settled& s, std::string_view rest, int64_t t0) {
    const uint64_t n = s.n;
    if (s.t) {
        if (!render(w, *s.t, rest, s.whole, s.element_count, t0)) bad_record(r, n);
        return;
    }
    if (rest.size() < kTrailerBytes) bad_record(r, n);
    const char* end = rest.data() + rest.size();
    const uint32_t count_at = load<uint32_t>(end - 16), count_index = load<uint32_t>(end - 12),
                   times = load<uint32_t>(end - 8), len = load<uint32_t>(end - 4);
    if (rest.size() != uint64_t(len) + uint64_t(times) * kTimeBytes + kTrailerBytes || count_index > times)
        bad_record(r, n);
    const char* text = end - kTrailerBytes - size_t(times) * kTimeBytes - len;
    const char* place = text + len;  // the times' places and ns
    char* p = w.raw_begin();
    if (!w.raw_element()) *p++ = ',';
    uint32_t done = 0;  // text written so far
    // Up to the null at `at`, which the caller then writes over.
    auto upto = [&](uint32_t at) {
        if (at < done || at > len || len - at < 4 || std::memcmp(text + at, "null", 4) != 0) bad_record(r, n);
        p = w.raw_bytes(p, text + done, at - done);
        done = at + 4;
    };
    for (uint32_t i = 0;; ++i) {
        if (i == count_index) {
            upto(count_at);
            if (s.whole) p = JsonStream::raw_number(p, s.element_count);
            else {
                std::memcpy(p, "null", 4);
                p += 4;
            }
        }
        if (i == times) break;
        const char* t = place + size_t(i) * kTimeBytes;
        upto(load<uint32_t>(t));
        p = JsonStream::raw_ms(p, ms_between(load<int64_t>(t + 4), t0));
    }
    w.raw_end(w.raw_bytes(p, text + done, len - done));
}

// Records per batch on several threads: enough that a hand-over costs
// little beside writing them (about 3 KB of text a call), few enough that
// the batches in flight stay small.
constexpr size_t kBatchRecords = 256;
std::atomic<size_t> batch_records_for_test{0};

// Settled records with their bytes copied (a record's view lasts only while it is read).
struct RecordBatch {
    std::string bytes;
    struct Item {
        Settled s;
        size_t at, len;  // its rest in `bytes`
    };
    std::vector<Item> items;
    void clear() {
        bytes.clear();
        items.clear();
    }
};

} // namespace

void json_record_detail::set_batch_records_for_test(size_t records) { batch_records_for_test.store(records); }

CallsWritten write_call_records(JsonStream& w, int indent, const AnalysisResult& r, unsigned threads) {
    XmlCallSelector sample(xml_sampling_of(r));
    CallsWritten out;
    const int64_t t0 = r.capture.first_ns;
    // By the call that defined each; a template stays where it is (node-based
    // map) while workers read it, until this returns.
    std::unordered_map<uint64_t, Template> templates;
    std::string fetched;
    // The template defined by call `id`, read from its record when not seen yet.
    auto template_of = [&](uint64_t id, uint64_t n) -> const Template& {
        auto it = templates.find(id);
        if (it != templates.end()) return it->second;
        if (!r.spill->copy_call_record(id, fetched)) bad_record(r, n);
        Cursor in(fetched);
        Template t;
        uint64_t call = 0;
        if (read_head(in, indent).tag != kDefineTag) bad_record(r, n);
        t.id = in.get<uint32_t>();
        if (!read_template(in, t, call) || call != id) bad_record(r, n);
        return templates.emplace(id, std::move(t)).first->second;
    };
    // template_of(call) remembered by the shape's id, which is small (the
    // recorder's count of shapes): an index instead of a hash lookup a call.
    // The call is compared, so a hit is what template_of would return.
    struct ByShape {
        uint64_t call = 0;
        const Template* t = nullptr;
    };
    std::vector<ByShape> by_shape;
    auto template_by_shape = [&](uint32_t shape, uint64_t call, uint64_t n) {
        if (shape < by_shape.size() && by_shape[shape].t && by_shape[shape].call == call) return by_shape[shape].t;
        const Template* t = &template_of(call, n);
        if (shape <= CallShapeLimits{}.shapes) {  // a damaged id is not a size
            if (shape >= by_shape.size()) by_shape.resize(size_t(shape) + 1);
            by_shape[shape] = {call, t};
        }
        return t;
    };
    // What needs the records' order: the sample, the templates, the counts.
    // `rest` is left at the record past its head (and a shape's ids).
    // Inlined in both loops (0.5 M fewer instructions on the 200k-packet bench file).
    auto settle = [&](std::string_view record, std::string_view& rest) __attribute__((always_inline)) {
        Cursor in(record);
        Settled s;
        s.n = out.calls + 1;
        const Head h = read_head(in, indent);
        if (!in.ok()) bad_record(r, s.n);
        s.whole = sample.selected(h.request_frame, h.request_bytes, h.operation) && h.measured;
        s.element_count = h.element_count;
        if (h.tag == kDefineTag || h.tag == kShapeTag) {
            const uint32_t shape = in.get<uint32_t>();
            if (h.tag == kDefineTag) {
                Template own;
                own.id = shape;
                uint64_t call = 0;
                if (!read_template(in, own, call)) bad_record(r, s.n);
                auto it = templates.find(call);
                if (it == templates.end()) it = templates.emplace(call, std::move(own)).first;
                s.t = &it->second;
            } else {
                const uint64_t call = in.get<uint64_t>(), nonce = in.get<uint64_t>();
                if (!in.ok()) bad_record(r, s.n);
                s.t = template_by_shape(shape, call, s.n);
                if (s.t->nonce != nonce) bad_record(r, s.n);
            }
            if (s.t->id != shape) bad_record(r, s.n);
        } else if (h.tag != kTag) {
            bad_record(r, s.n);
        }
        ++out.calls;
        out.measured += s.whole;
        rest = in.rest();
        return s;
    };
    if (threads <= 1) {
        r.spill->each_call_record([&](std::string_view record) {
            std::string_view rest;
            const Settled s = settle(record, rest);
            write_settled(w, r, s, rest, t0);
            return true;
        });
        return out;
    }
    const size_t per_batch = batch_records_for_test.load() ? batch_records_for_test.load() : kBatchRecords;
    OrderedBatches<RecordBatch> batches(w, threads, [&r, t0](RecordBatch& b, JsonStream& js) {
        for (const RecordBatch::Item& i : b.items) write_settled(js, r, i.s, std::string_view(b.bytes).substr(i.at, i.len), t0);
    });
    auto submit = [&] {
        if (const size_t n = batches.filling().items.size()) batches.submit(uint32_t(n));
    };
    try {
        r.spill->each_call_record([&](std::string_view record) {
            std::string_view rest;
            const Settled s = settle(record, rest);
            RecordBatch& b = batches.filling();
            b.items.push_back({s, b.bytes.size(), rest.size()});
            b.bytes.append(rest);
            if (b.items.size() == per_batch) submit();
            return true;
        });
    } catch (...) {
        // The calls before a bad record first: an error among them is the one reported, as on one thread.
        submit();
        batches.finish();
        throw;
    }
    submit();
    batches.finish();
    return out;
}

} // namespace stallscope
