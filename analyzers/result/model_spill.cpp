#include "analyzers/result/model_spill.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace stallscope {

namespace {

// One visit function per struct serves both directions (Writer and Reader
// have the same methods), so field order can never drift between them.
//
// Encoding: unsigned integers are LEB128 varints, signed ones zigzag varints,
// doubles 8 raw little-endian bytes, strings and vectors a varint count then
// the items. Timestamps and frame numbers are stored relative to a base
// already visited (the call's start, the previous frame...) because absolute
// nanoseconds would take 9 bytes each; see rel().

constexpr uint8_t kCallTag = 0xC2;        // high nibble: record type, low: version
constexpr uint8_t kConnectionTag = 0xD1;
constexpr uint8_t kFindingTag = 0xE2;

uint64_t zigzag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
int64_t unzigzag(uint64_t u) { return int64_t(u >> 1) ^ -int64_t(u & 1); }

// The delta of x from base, as a zigzag varint value that keeps the common
// "not seen" sentinel (0 or -1) at 1 byte instead of a huge negative delta.
// f(x) = zigzag(x - base) is a bijection on 64 bits; k = f(sentinel) is moved
// to 0 and the values below k move up by one, so it stays a bijection and
// the round trip is exact for every input (wrapping arithmetic throughout).
uint64_t rel_encode(uint64_t x, uint64_t base, uint64_t sentinel) {
    const uint64_t k = zigzag(int64_t(sentinel - base));
    const uint64_t f = zigzag(int64_t(x - base));
    if (f == k) return 0;
    return f < k ? f + 1 : f;
}
uint64_t rel_decode(uint64_t v, uint64_t base, uint64_t sentinel) {
    if (v == 0) return sentinel;
    const uint64_t k = zigzag(int64_t(sentinel - base));
    const uint64_t f = v <= k ? v - 1 : v;
    return base + uint64_t(unzigzag(f));
}

// Writes through a pointer into `out`, grown ahead of need: a record is
// about a hundred fields, and a std::string append per field (capacity
// check, memcpy call, terminator) was most of the encoder's time.
class Writer {
public:
    static constexpr bool kReading = false;
    explicit Writer(std::string& out) : out_(out), n_(out.size()) {
        // Into the memory `out` already has: a buffer emptied for each record
        // (clear() keeps its capacity) grew again from nothing every time.
        // At most 4 KiB of it (zero-filled here), not all a huge record left.
        out_.resize(std::min(out_.capacity(), n_ + 4096));
        buf_ = out_.data();
        cap_ = out_.size();
    }
    // prose() and frames() write these encoded fields, in turn, instead of
    // the value's (spill_encode_brief).
    Writer(std::string& out, const FindingText& raw) : Writer(out) { raw_ = &raw; }
    // Cuts `out` to what was written; call once at the end.
    void finish() { out_.resize(n_); }

    void raw8(uint8_t& b) { *room(1) = char(b); ++n_; }
    [[gnu::always_inline]] void varint(uint64_t v) {
        char* p = room(10);
        if (v < 0x80) {  // most fields: small counts, deltas, flags
            *p = char(v);
            ++n_;
            return;
        }
        int n = 0;
        while (v >= 0x80) { p[n++] = char(uint8_t(v) | 0x80); v >>= 7; }
        p[n++] = char(v);
        n_ += size_t(n);
    }
    template <class T> void uint(T& x) { static_assert(std::is_unsigned_v<T>); varint(x); }
    template <class T> void sint(T& x) { static_assert(std::is_signed_v<T>); varint(zigzag(x)); }
    void boolean(bool& b) { *room(1) = b ? 1 : 0; ++n_; }
    template <class E> void enumeration(E& e, E) { varint(uint64_t(e)); }
    void f64(double& d) {
        uint64_t bits = std::bit_cast<uint64_t>(d);
        char* p = room(8);
        if constexpr (std::endian::native == std::endian::little) std::memcpy(p, &bits, 8);
        else for (int i = 0; i < 8; ++i) p[i] = char(uint8_t(bits >> (8 * i)));
        n_ += 8;
    }
    void str(std::string& s) {
        varint(s.size());
        if (!s.empty()) std::memcpy(room(s.size()), s.data(), s.size());
        n_ += s.size();
    }
    template <class T> void rel(T& x, T base, T sentinel) {
        varint(rel_encode(uint64_t(x), uint64_t(base), uint64_t(sentinel)));
    }
    void prose(std::string& s) {
        if (raw_) return copy_raw();
        str(s);
    }
    void frames(std::vector<uint64_t>& v);
    void details(std::vector<std::pair<std::string, std::string>>& v);
    size_t count(size_t n) { varint(n); return n; }
    void fail() {}

private:
    void copy_raw() {
        const std::string_view b = raw_->field[raw_used_++];
        if (!b.empty()) std::memcpy(room(b.size()), b.data(), b.size());
        n_ += b.size();
    }
    // At least k writable bytes at out_.data() + n_.
    [[gnu::always_inline]] char* room(size_t k) {
        if (cap_ - n_ < k) [[unlikely]] grow(k);
        return buf_ + n_;
    }
    [[gnu::noinline]] void grow(size_t k) {
        out_.resize(std::max(n_ + k, 2 * out_.size() + 256));
        buf_ = out_.data();
        cap_ = out_.size();
    }
    std::string& out_;
    size_t n_;  // bytes written; out_ is longer until finish()
    // out_'s data and size, kept here so that room() reads no std::string a field.
    char* buf_;
    size_t cap_;
    const FindingText* raw_ = nullptr;
    size_t raw_used_ = 0;
};

// Bounds-checked cursor. Failure is sticky: once a read fails every later
// read yields zero and count() yields 0, so the visit functions need no
// error checks of their own and their loops end at once.
class Reader {
public:
    static constexpr bool kReading = true;
    // `brief`: prose() and frames() skip their bytes and leave the value
    // empty (spill_decode_brief).
    // `skipped` (brief only): where the skipped fields' bytes lie in `b`.
    // `lean` (brief only): details() steps over the details too.
    explicit Reader(std::string_view b, bool brief = false, FindingText* skipped = nullptr, bool lean = false)
        : p_(reinterpret_cast<const uint8_t*>(b.data())), end_(p_ + b.size()), brief_(brief), lean_(lean),
          skipped_(skipped) {}

    bool ok() const { return ok_; }
    bool at_end() const { return p_ == end_; }
    size_t left() const { return size_t(end_ - p_); }
    void fail() { ok_ = false; p_ = end_; }

    void raw8(uint8_t& b) { b = byte(); }
    [[gnu::always_inline]] uint64_t varint() {
        if (p_ != end_ && *p_ < 0x80) return *p_++;  // one byte: most fields
        return varint_long();
    }
    uint64_t varint_long() {
        if (left() >= 10) return varint_unchecked();
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p_ == end_) { fail(); return 0; }
            uint8_t b = *p_++;
            // The 10th byte may only hold the 64th bit.
            if (shift == 63 && b > 1) { fail(); return 0; }
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        fail();
        return 0;
    }
    // varint_long's rules with 10 bytes known to be there: no end test a byte.
    uint64_t varint_unchecked() {
        const uint8_t* p = p_;
        uint64_t v = 0;
        // Unrolled: constant shifts, no loop counter (most such varints are
        // 2 to 4 bytes: times and sizes).
#pragma GCC unroll 9
        for (int shift = 0; shift < 63; shift += 7) {
            const uint8_t b = *p++;
            v |= uint64_t(b & 0x7f) << shift;
            if (b < 0x80) { p_ = p; return v; }
        }
        const uint8_t b = *p++;  // the 10th byte may only hold the 64th bit
        if (b > 1) { fail(); return 0; }
        p_ = p;
        return v | uint64_t(b) << 63;
    }
    template <class T> void uint(T& x) {
        static_assert(std::is_unsigned_v<T>);
        uint64_t v = varint();
        if (v > std::numeric_limits<T>::max()) { fail(); v = 0; }
        x = T(v);
    }
    template <class T> void sint(T& x) {
        static_assert(std::is_signed_v<T>);
        int64_t v = unzigzag(varint());
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) { fail(); v = 0; }
        x = T(v);
    }
    void boolean(bool& b) {
        uint8_t v = byte();
        if (v > 1) fail();
        b = v == 1;
    }
    template <class E> void enumeration(E& e, E max) {
        uint64_t v = varint();
        if (v > uint64_t(max)) { fail(); v = 0; }
        e = E(v);
    }
    void f64(double& d) {
        if (left() < 8) { fail(); d = 0; return; }
        uint64_t bits = 0;
        if constexpr (std::endian::native == std::endian::little) std::memcpy(&bits, p_, 8);
        else for (int i = 0; i < 8; ++i) bits |= uint64_t(p_[i]) << (8 * i);
        p_ += 8;
        d = std::bit_cast<double>(bits);
    }
    void str(std::string& s) {
        uint64_t n = varint();
        if (n > left()) { fail(); n = 0; }   // checked before allocating
        // Into a reused string of the same length (most: "POST", the
        // agent, the namespace... repeat call after call) a plain copy;
        // assign() was a third of the decoder's time.
        // Into a cleared one (a pooled call's, emptied with its memory
        // kept) an append: assign() checks for overlap and replaces, about
        // 80 instructions; the input never lies in s.
        if (n == s.size()) {
            if (n) std::memcpy(s.data(), p_, size_t(n));
        } else if (s.empty()) {
            s.append(reinterpret_cast<const char*>(p_), size_t(n));
        } else {
            s.assign(reinterpret_cast<const char*>(p_), size_t(n));
        }
        p_ += n;
    }
    // A finding's text, which readers of many findings seldom need.
    void prose(std::string& s) {
        if (!brief_) return str(s);
        const uint8_t* from = p_;
        uint64_t n = varint();
        if (n > left()) { fail(); n = 0; }
        s.clear();
        p_ += n;
        note_skipped(from);
    }
    void frames(std::vector<uint64_t>& v);
    void details(std::vector<std::pair<std::string, std::string>>& v);
    void skip_details(std::vector<std::pair<std::string, std::string>>& v);
    template <class T> void rel(T& x, T base, T sentinel) {
        x = T(rel_decode(varint(), uint64_t(base), uint64_t(sentinel)));
    }
    // Every item takes at least one byte, so a count above the bytes left
    // is malformed; this bounds every resize by the input size.
    size_t count(size_t) {
        uint64_t n = varint();
        if (n > left()) { fail(); n = 0; }
        return size_t(n);
    }

private:
    void note_skipped(const uint8_t* from) {
        if (skipped_ && skipped_->count < FindingText::kFields)
            skipped_->field[skipped_->count++] = std::string_view(reinterpret_cast<const char*>(from), size_t(p_ - from));
    }
    uint8_t byte() {
        if (p_ == end_) { fail(); return 0; }
        return *p_++;
    }
    const uint8_t* p_;
    const uint8_t* end_;
    bool ok_ = true;
    bool brief_ = false;
    bool lean_ = false;
    FindingText* skipped_ = nullptr;
};

template <class Io, class T, class Fn> void vec(Io& io, std::vector<T>& v, Fn&& item) {
    size_t n = io.count(v.size());
    if constexpr (Io::kReading) v.resize(n);
    for (auto& e : v) item(e);
}

template <class Io, class T, class Fn> void opt(Io& io, std::optional<T>& o, Fn&& value) {
    bool has = o.has_value();
    io.boolean(has);
    if constexpr (Io::kReading) {
        if (has) o.emplace(); else o.reset();
    }
    if (has) value(*o);
}

// Ascending-ish frame lists: each item relative to the one before.
template <class Io> void frame_list(Io& io, std::vector<uint64_t>& v) {
    uint64_t prev = 0;
    vec(io, v, [&](uint64_t& f) { io.rel(f, prev, uint64_t(0)); prev = f; });
}

void Writer::frames(std::vector<uint64_t>& v) {
    if (raw_) return copy_raw();
    frame_list(*this, v);
}

// Brief: the count, then as many varints stepped over (each ends at a byte
// below 0x80), checked as frame_list checks them.
void Reader::frames(std::vector<uint64_t>& v) {
    if (!brief_) return frame_list(*this, v);
    const uint8_t* from = p_;
    const size_t n = count(0);
    v.clear();
    for (size_t i = 0; i < n; ++i) varint();
    note_skipped(from);
}

template <class Io> void detail_list(Io& io, std::vector<std::pair<std::string, std::string>>& v) {
    vec(io, v, [&](std::pair<std::string, std::string>& d) {
        io.str(d.first);
        io.str(d.second);
    });
}

// Inlined as the list was before it had a lean way: a call of its own cost
// the whole decode about 130 instructions a finding.
[[gnu::always_inline]] inline void Writer::details(std::vector<std::pair<std::string, std::string>>& v) {
    detail_list(*this, v);
}

[[gnu::always_inline]] inline void Reader::details(std::vector<std::pair<std::string, std::string>>& v) {
    if (lean_) [[unlikely]] return skip_details(v);
    detail_list(*this, v);
}

// Lean: the count, then each key and value stepped over as far as their
// lengths (checked as str() checks them), nothing copied.
void Reader::skip_details(std::vector<std::pair<std::string, std::string>>& v) {
    const size_t n = count(0);
    v.clear();
    for (size_t i = 0; i < 2 * n; ++i) {
        const uint64_t len = varint();
        if (len > left()) { fail(); return; }
        p_ += len;
    }
}

template <class Io> void visit(Io& io, SoapInfo& s) {
    io.boolean(s.is_soap);
    io.str(s.version);
    io.str(s.operation);
    io.str(s.operation_ns);
    io.boolean(s.fault);
    io.str(s.fault_code);
    io.str(s.fault_string);
    io.uint(s.element_count);
    io.uint(s.max_depth);
    io.uint(s.bytes);
    io.str(s.error);
    io.boolean(s.head_only);
    auto code = uint8_t(s.error_code);
    io.uint(code);
    s.error_code = SoapError(code);
}

template <class Io> void visit(Io& io, MessageInfo& m, uint64_t frame_base, int64_t ts_base) {
    // All against the call's bases, not chained: any of these may be unset.
    io.rel(m.first_frame, frame_base, uint64_t(0));
    io.rel(m.headers_end_frame, frame_base, uint64_t(0));
    io.rel(m.body_first_frame, frame_base, uint64_t(0));
    io.rel(m.last_frame, frame_base, uint64_t(0));
    io.rel(m.first_ns, ts_base, int64_t(0));
    io.rel(m.headers_end_ns, ts_base, int64_t(0));
    io.rel(m.body_first_ns, ts_base, int64_t(0));
    io.rel(m.last_ns, ts_base, int64_t(0));
    io.uint(m.header_bytes);
    io.uint(m.body_bytes);
    vec(io, m.write_sizes, [&](uint32_t& w) { io.uint(w); });
    frame_list(io, m.frames);
    io.boolean(m.complete);
    io.uint(m.missing_bytes);
    io.uint(m.content_bytes);
    io.uint(m.markup_bytes);
    io.uint(m.deflate_estimate);
    io.boolean(m.deflate_pick);
    io.boolean(m.whole_xml);
}

template <class Io> void visit(Io& io, Call& c) {
    // Bases for the relative fields come first.
    io.sint(c.start_ns);
    io.uint(c.request_first_frame);
    io.rel(c.end_ns, c.start_ns, int64_t(0));
    io.rel(c.response_last_frame, c.request_first_frame, uint64_t(0));

    io.uint(c.id);
    io.uint(c.connection_id);
    io.uint(c.index_on_connection);
    io.str(c.method);
    io.str(c.uri);
    io.str(c.http_version);
    io.sint(c.status);
    io.str(c.reason);
    io.str(c.user_agent);
    io.str(c.server);
    io.str(c.content_type);
    io.str(c.soap_action);
    io.str(c.content_encoding);
    io.boolean(c.expect_continue);
    io.boolean(c.got_continue);
    io.rel(c.continue_frame, c.request_first_frame, uint64_t(0));
    io.rel(c.continue_ns, c.start_ns, int64_t(0));
    io.boolean(c.request_chunked);
    io.boolean(c.response_chunked);
    io.boolean(c.connection_close);
    io.boolean(c.request_close);

    visit(io, c.request, c.request_first_frame, c.start_ns);
    visit(io, c.response, c.request_first_frame, c.start_ns);
    visit(io, c.soap);
    visit(io, c.soap_response);

    io.f64(c.latency_ms);
    io.boolean(c.complete);
    io.boolean(c.opened_connection);
    io.boolean(c.closed_connection);
    io.boolean(c.encrypted);

    vec(io, c.phases, [&](Phase& p) {
        io.enumeration(p.kind, PhaseKind::TlsHandshake);
        io.rel(p.start_ns, c.start_ns, int64_t(0));
        io.rel(p.end_ns, p.start_ns, int64_t(0));
        io.rel(p.start_frame, c.request_first_frame, uint64_t(0));
        io.rel(p.end_frame, p.start_frame, uint64_t(0));
    });

    uint64_t prev_frame = c.request_first_frame;
    int64_t prev_ns = c.start_ns;
    vec(io, c.segments, [&](SegmentInfo& s) {
        io.rel(s.frame, prev_frame, uint64_t(0));
        io.rel(s.ts_ns, prev_ns, int64_t(0));
        io.enumeration(s.from, Side::Server);
        io.raw8(s.flags);
        io.uint(s.seq);
        io.uint(s.ack);
        io.uint(s.len);
        io.uint(s.window);
        io.uint(s.carries);
        io.boolean(s.retransmission);
        io.boolean(s.out_of_order);
        io.raw8(s.probe);
        io.rel(s.acked_ns, s.ts_ns, int64_t(-1));
        io.rel(s.acked_frame, s.frame, uint64_t(0));
        io.boolean(s.acked_by_pure_ack);
        prev_frame = s.frame;
        prev_ns = s.ts_ns;
    });

    vec(io, c.attribution, [&](TimeShare& t) {
        io.str(t.cause);
        io.f64(t.ms);
    });
    io.f64(c.setup_ms);
    vec(io, c.savings, [&](FixSaving& s) {
        io.str(s.kind);
        io.enumeration(s.side, Side::Server);
        io.f64(s.ms);
    });
    io.enumeration(c.view, CapturePlace::Both);
    io.f64(c.client_path_ms);
}

// Only the significant bytes: IPv4 uses 4 of the 16, unset uses none.
template <class Io> void visit(Io& io, Endpoint& e) {
    io.raw8(e.addr.family);
    size_t n = e.addr.bytes.size();
    while (n > 0 && e.addr.bytes[n - 1] == 0) --n;
    io.uint(n);
    if (n > e.addr.bytes.size()) { io.fail(); n = 0; }
    for (size_t i = 0; i < n; ++i) io.raw8(e.addr.bytes[i]);
    if constexpr (Io::kReading)  // a reused target: no byte of the endpoint before
        for (size_t i = n; i < e.addr.bytes.size(); ++i) e.addr.bytes[i] = 0;
    io.uint(e.port);
}

template <class Io> void visit(Io& io, Connection& c) {
    io.sint(c.first_ns);
    io.uint(c.first_frame);
    io.rel(c.last_ns, c.first_ns, int64_t(0));
    io.rel(c.last_frame, c.first_frame, uint64_t(0));

    io.uint(c.id);
    visit(io, c.client);
    visit(io, c.server);
    io.boolean(c.saw_syn);
    io.rel(c.syn_ns, c.first_ns, int64_t(0));
    io.rel(c.synack_ns, c.first_ns, int64_t(0));
    io.rel(c.ack_ns, c.first_ns, int64_t(0));
    io.rel(c.syn_frame, c.first_frame, uint64_t(0));
    io.rel(c.synack_frame, c.first_frame, uint64_t(0));
    io.rel(c.ack_frame, c.first_frame, uint64_t(0));
    io.uint(c.syn_retransmissions);
    opt(io, c.handshake_ms, [&](double& d) { io.f64(d); });
    opt(io, c.client_mss, [&](uint16_t& x) { io.uint(x); });
    opt(io, c.server_mss, [&](uint16_t& x) { io.uint(x); });
    opt(io, c.client_wscale, [&](uint8_t& x) { io.uint(x); });
    opt(io, c.server_wscale, [&](uint8_t& x) { io.uint(x); });
    io.uint(c.packets);
    io.uint(c.client_bytes);
    io.uint(c.server_bytes);
    io.uint(c.retransmissions);
    io.uint(c.gap_bytes);
    io.sint(c.client_path_ns);
    io.sint(c.server_path_ns);
    io.uint(c.path_samples);
    io.uint(c.client_ttl);
    io.uint(c.server_ttl);
    io.boolean(c.fin_client);
    io.boolean(c.fin_server);
    io.boolean(c.rst);
    io.uint(c.calls);
    io.boolean(c.http);
    opt(io, c.tls, [&](ConnectionTls& t) {
        io.str(t.version);
        io.str(t.cipher_suite);
        io.str(t.sni);
        io.str(t.alpn);
        io.boolean(t.resumed);
        io.boolean(t.resumption_offered);
        io.boolean(t.decrypted);
        io.str(t.reason);
        io.rel(t.handshake_first_frame, c.first_frame, uint64_t(0));
        io.rel(t.handshake_last_frame, c.first_frame, uint64_t(0));
        io.rel(t.handshake_start_ns, c.first_ns, int64_t(0));
        io.rel(t.handshake_end_ns, c.first_ns, int64_t(0));
        io.uint(t.certificate_bytes);
        io.uint(t.server_flight_bytes);
        io.uint(t.server_flight_segments);
        io.uint(t.session_tickets);
        io.uint(t.record_overhead);
        io.boolean(t.sizes_exact);
    });
}

template <class Io> void visit(Io& io, Finding& f) {
    io.str(f.kind);
    io.enumeration(f.side, Side::Server);
    io.uint(f.connection_id);
    frame_list(io, f.calls);
    io.frames(f.frames);
    io.f64(f.cost_ms);
    io.prose(f.cost_method);
    io.prose(f.explanation);
    io.prose(f.fix);
    io.prose(f.toolkit);
    io.prose(f.toolkit_fix);
    io.sint(f.start_ns);
    io.rel(f.end_ns, f.start_ns, int64_t(0));
    io.details(f.details);
    vec(io, f.intervals, [&](Finding::Interval& i) {
        io.rel(i.start_ns, f.start_ns, int64_t(0));
        io.rel(i.end_ns, i.start_ns, int64_t(0));
    });
    io.f64(f.counted_ms);
}

template <class T> void encode(uint8_t tag, const T& v, std::string& out) {
    Writer w(out);
    w.raw8(tag);
    // The writer only reads through this reference.
    visit(w, const_cast<T&>(v));
    w.finish();
}

template <class T> bool decode(uint8_t tag, std::string_view bytes, T& v) {
    Reader r(bytes);
    uint8_t got = 0;
    r.raw8(got);
    if (!r.ok() || got != tag) return false;
    T tmp;
    visit(r, tmp);
    if (!r.ok() || !r.at_end()) return false;
    v = std::move(tmp);
    return true;
}

// Straight into v: every field is visited and assigned (vectors resized,
// then every item), so v's strings and vectors are reused.
template <class T> bool decode_into(uint8_t tag, std::string_view bytes, T& v, bool brief = false,
                                    FindingText* skipped = nullptr, bool lean = false) {
    Reader r(bytes, brief, skipped, lean);
    uint8_t got = 0;
    r.raw8(got);
    if (!r.ok() || got != tag) return false;
    visit(r, v);
    return r.ok() && r.at_end();
}

} // namespace

void spill_encode(const Call& v, std::string& out) { encode(kCallTag, v, out); }
void spill_encode(const Connection& v, std::string& out) { encode(kConnectionTag, v, out); }
void spill_encode(const Finding& v, std::string& out) { encode(kFindingTag, v, out); }

bool spill_decode(std::string_view bytes, Call& v) { return decode(kCallTag, bytes, v); }
bool spill_decode(std::string_view bytes, Connection& v) { return decode(kConnectionTag, bytes, v); }
bool spill_decode(std::string_view bytes, Finding& v) { return decode(kFindingTag, bytes, v); }

bool spill_decode_into(std::string_view bytes, Call& v) { return decode_into(kCallTag, bytes, v); }
bool spill_decode_into(std::string_view bytes, Connection& v) { return decode_into(kConnectionTag, bytes, v); }
bool spill_decode_into(std::string_view bytes, Finding& v) { return decode_into(kFindingTag, bytes, v); }
bool spill_decode_brief(std::string_view bytes, Finding& v) { return decode_into(kFindingTag, bytes, v, true); }

bool spill_decode_brief(std::string_view bytes, Finding& v, FindingText& skipped) {
    skipped.count = 0;
    return decode_into(kFindingTag, bytes, v, true, &skipped) && skipped.count == FindingText::kFields;
}

bool spill_decode_lean(std::string_view bytes, Finding& v) {
    return decode_into(kFindingTag, bytes, v, true, nullptr, true);
}

void spill_set_counted_ms(std::string& record, double counted_ms) {
    // visit(Finding) writes counted_ms last, as 8 raw bytes.
    if (record.size() < 9 || uint8_t(record[0]) != kFindingTag)
        throw std::logic_error("spill_set_counted_ms: not a finding's record");
    const uint64_t bits = std::bit_cast<uint64_t>(counted_ms);
    char* p = record.data() + record.size() - 8;
    for (int i = 0; i < 8; ++i) p[i] = char(uint8_t(bits >> (8 * i)));  // little-endian, as Writer::f64
}

void spill_encode_brief(const Finding& v, const FindingText& text, std::string& out) {
    if (text.count != FindingText::kFields) throw std::logic_error("spill_encode_brief: not a brief decode's text");
    // The record's own text and frames are written, not v's: a change there
    // would be lost, so it is an error, not a silent drop.
    if (!v.explanation.empty() || !v.fix.empty() || !v.toolkit.empty() || !v.toolkit_fix.empty() || !v.frames.empty())
        throw std::logic_error("spill_encode_brief: a brief finding's text or frames were set; they would not be stored");
    Writer w(out, text);
    uint8_t tag = kFindingTag;
    w.raw8(tag);
    visit(w, const_cast<Finding&>(v));
    w.finish();
}

} // namespace stallscope
