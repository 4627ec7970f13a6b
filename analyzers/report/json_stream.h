#pragma once
// JSON written as it is made: objects, arrays, keys and values go straight
// into a buffer that is handed to an ostream in big chunks, byte for byte as
// nlohmann's dump(indent, ' ', false, error_handler_t::replace) writes the
// same document (indent < 0: compact). A report of a million calls never
// builds a tree. The caller keeps the structure well formed (a key before
// each member of an object, ends matching begins).
#include <cstddef>
#include <cstdint>
#include <array>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analyzers/report/json_number.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stallscope {

class JsonStream {
public:
    explicit JsonStream(std::ostream& os, int indent = 2);
    ~JsonStream();  // flushes what is left
    JsonStream(const JsonStream&) = delete;
    JsonStream& operator=(const JsonStream&) = delete;

    JsonStream& begin_object() { return open('{'); }
    JsonStream& end_object() { return close('}'); }
    JsonStream& begin_array() { return open('['); }
    JsonStream& end_array() { return close(']'); }
    // Keys and values are written hundreds of millions of times in a big
    // report: the usual case (plain ASCII, room in the buffer) is inline.
    JsonStream& key(std::string_view k) {
        if (k.size() <= kShortKey && plain(k)) return plain_key(k);
        return key_slow(k);
    }
    // A key written in the code ("id"): plain ASCII by our own convention
    // (json_stream_tests checks every key a report writes), its length known
    // when compiled, so nothing is scanned. A char array that is not a
    // literal must go through the string_view overload.
    // Always inline: the key is then copied as constants of a known size,
    // with no call (about a hundred keys a call, issue 26).
    template <size_t N> [[gnu::always_inline]] JsonStream& key(const char (&k)[N]) {
        static_assert(N > 0 && N - 1 <= kShortKey);
        constexpr size_t n = N - 1;
        const size_t pad = indent_ < 0 ? 0 : 1 + open_.size() * size_t(indent_);  // "\n" and the indent
        if (pad > kPadCopy) return key_slow(std::string_view(k, n));
        char* p = room(1 + kPadCopy + n + 4);  // , pad "k":_
        if (open_.back()++) *p++ = ',';
        std::memcpy(p, newline_.data(), kPadCopy);  // a fixed size copies fastest: the tail is overwritten
        p += pad;
        *p = '"';
        std::memcpy(p + 1, k, n);
        p += n + 1;
        p[0] = '"';
        p[1] = ':';
        p[2] = ' ';
        used_ = size_t(p + 2 + (indent_ >= 0) - buf_.get());
        after_key_ = true;
        return *this;
    }

    JsonStream& value(std::string_view s) {
        before_value();
        if (s.size() <= kShortString && plain(s)) {
            char* p = room(s.size() + 2);
            *p++ = '"';
            std::memcpy(p, s.data(), s.size());
            p[s.size()] = '"';
            used_ = size_t(p + s.size() + 1 - buf_.get());
        } else {
            string(s);
        }
        return *this;
    }
    JsonStream& value(const std::string& s) { return value(std::string_view(s)); }
    JsonStream& value(const char* s) { return value(std::string_view(s)); }
    JsonStream& value(bool b);
    JsonStream& value(std::nullptr_t);
    // NaN and infinities are null, as nlohmann writes them.
    JsonStream& value(double d) {
        before_value();
        return number(d);
    }
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    JsonStream& value(T v) {
        before_value();
        return number(v);
    }
    // A number alone, no separator before it: for splicing a value into
    // text written elsewhere (json_call_record.h).
    JsonStream& number(double d) {
        char* p = room(kDoubleChars);
        if (char* end = write_ms_double(p, d)) used_ = size_t(end - buf_.get());
        else any_double(d);
        return *this;
    }
    // A time or size in ms rounded to three decimals: value(round_ms(ms))
    // (report.h), the same bytes, cheaper (json_number.h).
    JsonStream& value_ms(double ms) {
        before_value();
        return number_ms(ms);
    }
    JsonStream& number_ms(double ms) {
        char* p = room(kDoubleChars);
        if (char* end = write_ms_rounded(p, ms)) used_ = size_t(end - buf_.get());
        else number(rounded_ms(ms));
        return *this;
    }
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    JsonStream& number(T v) {
        char* p = room(24);
        if (v >= 0 && v < 10) {  // counts, flags and "none": most integers of a call
            *p = char('0' + v);
            ++used_;
            return *this;
        }
        if constexpr (std::is_signed_v<T>) p = write_int(p, int64_t(v));
        else p = write_uint(p, uint64_t(v));
        used_ = size_t(p - buf_.get());
        return *this;
    }
    template <class T> JsonStream& value(const std::optional<T>& v) { return v ? value(*v) : value(nullptr); }
    template <class T> JsonStream& value(const std::vector<T>& items) {
        begin_array();
        for (const T& v : items) value(v);
        return end_array();
    }

    // key(k).value(v)
    template <class T> JsonStream& member(std::string_view k, const T& v) { return key(k).value(v); }
    template <size_t N, class T> JsonStream& member(const char (&k)[N], const T& v) { return key(k).value(v); }
    template <size_t N> JsonStream& member_ms(const char (&k)[N], double ms) { return key(k).value_ms(ms); }

    // Bytes outside the document (the report's final newline).
    // An empty view may have no data at all: memcpy from null is undefined even for 0 bytes.
    void raw(std::string_view s) {
        if (!s.empty()) put(s.data(), s.size());
    }

    // Pieces of one array written by other streams (analyzers/report/json_calls.h):
    // a stream that starts as if `depth` containers were open, the innermost
    // already holding `elements_before` elements (call on a new stream);
    // and, in the stream that owns the array, `count` elements written
    // elsewhere appended as they are.
    size_t depth() const { return open_.size(); }
    void resume_inside(size_t depth, uint32_t elements_before) {
        open_.assign(depth, 1);
        if (depth) open_.back() = elements_before;
    }
    void raw_elements(std::string_view text, uint32_t count) {
        if (!text.empty()) put(text.data(), text.size());
        open_.back() += count;
    }
    // Raw writing, for an element whose layout is fixed (json_call_layout.h):
    // the caller holds a pointer into the buffer and hands it back.
    // raw_room keeps at least n bytes (n <= kRawRoom) after p, flushing
    // what is before p if need be; raw_string writes a string value at p.
    static constexpr size_t kRawRoom = 1024;
    static constexpr size_t kRawBlock = 1 << 15;  // the most raw_room may be asked for
    int indent() const { return indent_; }
    // The next element of the open array is written raw: true if it is the first.
    bool raw_element() { return open_.back()++ == 0; }
    char* raw_begin() { return room(kRawRoom); }
    char* raw_room(char* p, size_t n) {
        if (size_t(buf_.get() + kBufferSize - p) >= n) return p;
        used_ = size_t(p - buf_.get());
        flush();
        return buf_.get();
    }
    void raw_end(char* p) { used_ = size_t(p - buf_.get()); }
    // n bytes copied at p as they are (text made by another stream); room
    // for kRawRoom more after them.
    char* raw_bytes(char* p, const char* s, size_t n) {
        if (n <= kBufferSize - kRawRoom) {
            p = raw_room(p, n + kRawRoom);
            if (n) std::memcpy(p, s, n);
            return p + n;
        }
        raw_end(p);
        put(s, n);
        return raw_room(buf_.get() + used_, kRawRoom);
    }
    // The bytes not handed to the stream yet, and dropping them (a stream
    // whose buffer is read in place: json_call_record.cpp).
    std::string_view unflushed() const { return {buf_.get(), used_}; }
    void discard() { used_ = 0; }
    uint64_t raw_written(const char* p) const { return flushed_ + uint64_t(p - buf_.get()); }
    char* raw_string(char* p, std::string_view s) {
        if (s.size() <= kShortString && plain(s)) {
            p = raw_room(p, s.size() + 2 + kRawRoom);
            *p++ = '"';
            copy(p, s.data(), s.size());
            p[s.size()] = '"';
            return p + s.size() + 1;
        }
        raw_end(p);
        string(s);
        return raw_room(buf_.get() + used_, kRawRoom);
    }
    // n bytes from s to p: up to 16 as two overlapping fixed-size copies
    // (inline, no call: most of a report's strings are short), else memcpy.
    // Never reads past s + n; an empty view's data may be null.
    static void copy(char* p, const char* s, size_t n) {
        if (n >= 8) {
            if (n > 16) return void(std::memcpy(p, s, n));
            std::memcpy(p, s, 8);
            std::memcpy(p + n - 8, s + n - 8, 8);
        } else if (n >= 4) {
            std::memcpy(p, s, 4);
            std::memcpy(p + n - 4, s + n - 4, 4);
        } else if (n) {
            p[0] = s[0];
            p[n / 2] = s[n / 2];
            p[n - 1] = s[n - 1];
        }
    }
    // An integer or a time in ms at p as value() and value_ms() write them
    // (at most kDoubleChars bytes).
    template <class T> static char* raw_number(char* p, T v) {
        if (v >= 0 && v < 10) {
            *p = char('0' + v);
            return p + 1;
        }
        if constexpr (std::is_signed_v<T>) return write_int(p, int64_t(v));
        else return write_uint(p, uint64_t(v));
    }
    static char* raw_ms(char* p, double ms);

    // Bytes written so far, handed to the stream or not.
    uint64_t written() const { return flushed_ + used_; }
    // Hands the buffer to the stream (also done when it fills and at the end).
    void flush();

private:
    // A key known to need no escape.
    JsonStream& plain_key(std::string_view k) {
        const size_t pad = indent_ < 0 ? 0 : 1 + open_.size() * size_t(indent_);  // "\n" and the indent
        if (pad <= kPadCopy) {
            char* p = room(1 + kPadCopy + k.size() + 4);  // , pad "k":_
            if (open_.back()++) *p++ = ',';
            std::memcpy(p, newline_.data(), kPadCopy);  // a fixed size copies fastest: the tail is overwritten
            p += pad;
            *p++ = '"';
            std::memcpy(p, k.data(), k.size());
            p += k.size();
            *p++ = '"';
            *p++ = ':';
            *p = ' ';
            used_ = size_t(p + (indent_ >= 0) - buf_.get());
            after_key_ = true;
            return *this;
        }
        return key_slow(k);
    }
    // What a byte needs in a JSON string: 0 nothing, 1 an escape, 2 the UTF-8 check.
    static const std::array<uint8_t, 256> kByteClass;
    // Written as it is between quotes.
    // Eight bytes at a time: a byte >= 0x80, < 0x20, '"' or '\\' sets its high
    // bit in `bad` (the exact "has zero byte" / "has less than" word tests).
    // The tail is one more word over the last 8 bytes (or two overlapping
    // 4-byte halves for 4 to 7 bytes): a byte looked at twice changes nothing.
    static bool plain(std::string_view s) {
        const char* p = s.data();
        size_t n = s.size();
#if defined(__SSE2__)
        // 16 bytes at a time, the tail one more block over the last 16 (a
        // finding's explanation and fix are a few hundred bytes).
        if (n >= 16) {
            __m128i bad = _mm_setzero_si128();
            for (; n > 16; p += 16, n -= 16) bad = _mm_or_si128(bad, block_bad(p));
            bad = _mm_or_si128(bad, block_bad(p + n - 16));
            return _mm_movemask_epi8(bad) == 0;
        }
#endif
        uint64_t bad = 0;  // no early exit: short strings, fewer branches
        if (n >= 8) {
            for (; n > 8; p += 8, n -= 8) bad |= word_bad(load<uint64_t>(p));
            bad |= word_bad(load<uint64_t>(p + n - 8));
        } else if (n >= 4) {
            bad = word_bad(load<uint32_t>(p) | uint64_t(load<uint32_t>(p + n - 4)) << 32);
        } else {
            for (; n; ++p, --n) bad |= kByteClass[uint8_t(*p)];
        }
        return !bad;
    }
#if defined(__SSE2__)
    // 0xff in each byte of the 16 at p that is < 0x20, >= 0x80 (both below
    // 0x20 as signed bytes), '"' or '\\'.
    static __m128i block_bad(const char* p) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
        const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
        return _mm_or_si128(low, _mm_or_si128(quote, slash));
    }
#endif
    template <class T> static T load(const char* p) {
        T w;
        std::memcpy(&w, p, sizeof w);
        return w;
    }
    // High bit of each byte of w that is >= 0x80, < 0x20, '"' or '\\' (and
    // maybe of bytes above such a one: the word as a whole is exact).
    static uint64_t word_bad(uint64_t w) {
        constexpr uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
        const uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
        return (w | ((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((slash - ones) & ~slash)) & high;
    }
    // Room for n more bytes (n <= kBufferSize), flushing first if need be.
    char* room(size_t n) {
        if (kBufferSize - used_ < n) flush();
        return buf_.get() + used_;
    }
    // Brackets and separators: a few per member of a call, inline.
    JsonStream& open(char bracket) {
        before_value();
        put(bracket);
        open_.push_back(0);
        return *this;
    }
    // An empty container closes on its own line: {} and [].
    JsonStream& close(char bracket) {
        const uint32_t n = open_.back();
        open_.pop_back();
        if (n) line(false, open_.size());
        put(bracket);
        return *this;
    }
    void before_value() {
        if (after_key_) after_key_ = false;
        else before_element();
    }
    // Not after a key: the next element of the open array (or the document itself).
    void before_element() {
        if (open_.empty()) return;
        line(open_.back()++ != 0, open_.size());
    }
    // A comma if asked, then "\n" and the indent of `depth` (nothing when
    // compact): one fixed-size copy, its tail overwritten later, as in plain_key.
    void line(bool comma, size_t depth) {
        const size_t pad = indent_ < 0 ? 0 : 1 + depth * size_t(indent_);
        if (pad > kPadCopy) {
            if (comma) put(',');
            return newline(depth);
        }
        char* p = room(1 + kPadCopy);
        *p = ',';
        p += comma;
        std::memcpy(p, newline_.data(), kPadCopy);
        used_ = size_t(p + pad - buf_.get());
    }
    JsonStream& key_slow(std::string_view k);
    void any_double(double d);
    static double rounded_ms(double ms);  // round_ms (report.h)
    void newline(size_t depth);
    void string(std::string_view s);
    void put(char c) {
        if (used_ == kBufferSize) flush();
        buf_[used_++] = c;
    }
    void put(const char* p, size_t n) {
        if (n > kBufferSize - used_) return put_slow(p, n);
        std::memcpy(buf_.get() + used_, p, n);
        used_ += n;
    }
    void put_slow(const char* p, size_t n);

    static constexpr size_t kShortKey = 64;      // keys up to this long take the inline path
    static constexpr size_t kShortString = 4096;  // strings too
    static constexpr size_t kPadCopy = 64;       // newline_ is at least this long
    static constexpr size_t kBufferSize = 1 << 16;
    std::ostream& os_;
    int indent_;
    std::unique_ptr<char[]> buf_;
    size_t used_ = 0;
    uint64_t flushed_ = 0;         // bytes handed to os_
    std::string newline_;          // "\n" and spaces enough for the deepest line so far (>= kPadCopy)
    std::vector<uint32_t> open_;  // members/elements so far of each open container
    bool after_key_ = false;
};

} // namespace stallscope
