#pragma once
// Writing a JSON element of fixed shape from runs of fixed text (issue 26),
// for any element, as json_call_layout.h does for a call: everything between
// two values (a comma, the newline and indent, the next key, a bracket)
// depends only on the stream's indent and the element's depth, so it is made
// once per thread and copied as one fixed-size block, and the values are
// written at a pointer the writer holds, without the stream's per-member
// bookkeeping. The bytes are the stream's own (the tests compare each
// writer with the general member-by-member path).
#include "analyzers/report/json_stream.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// Fixed text copied as kCap bytes (its tail overwritten by what follows).
struct FixedRun {
    static constexpr size_t kCap = 64;
    char bytes[kCap] = {};
    uint8_t size = 0;
};

// Makes the runs of one indent; fits() is false once a run was too long
// (the element is then written by the general path).
class FixedRunMaker {
public:
    explicit FixedRunMaker(int indent) : indent_(indent) {}
    // "\n" and the indent of `depth` (nothing when compact).
    std::string nl(size_t depth) const {
        return indent_ < 0 ? std::string() : "\n" + std::string(depth * size_t(indent_), ' ');
    }
    // "k": (with a space unless compact). Keys of our own: plain ASCII.
    std::string key(std::string_view k) const { return "\"" + std::string(k) + (indent_ < 0 ? "\":" : "\": "); }
    FixedRun run(const std::string& s) {
        FixedRun r;
        if (s.size() > FixedRun::kCap) fits_ = false;
        else {
            std::memcpy(r.bytes, s.data(), s.size());
            r.size = uint8_t(s.size());
        }
        return r;
    }
    // The runs before each member of an object whose members are at
    // `depth`: the first opens it, the others follow a value.
    template <size_t N> void members(FixedRun (&out)[N], const char* const (&keys)[N], size_t depth) {
        for (size_t i = 0; i < N; ++i) out[i] = run((i ? "," : "{") + nl(depth) + key(keys[i]));
    }
    // The run that closes an object or array whose members are at `depth`.
    FixedRun close(char bracket, size_t depth) { return run(nl(depth - 1) + bracket); }
    bool fits() const { return fits_; }

private:
    int indent_;
    bool fits_ = true;
};

// Index of a key in a layout's key list, found when compiled.
template <size_t N> consteval size_t key_index(const char* const (&keys)[N], std::string_view k) {
    for (size_t i = 0; i < N; ++i)
        if (std::string_view(keys[i]) == k) return i;
    throw "not a key of this layout";
}

// One layout per thread, made again when the indent or depth changes;
// null when its runs do not fit. Layout(indent, depth) with members
// `indent`, `depth` and `fits`.
template <class Layout> const Layout* fixed_layout(int indent, size_t depth) {
    thread_local std::unique_ptr<Layout> cached;
    if (!cached || cached->indent != indent || cached->depth != depth) cached = std::make_unique<Layout>(indent, depth);
    return cached->fits ? cached.get() : nullptr;
}

// The writer's pointer into the stream's buffer. After each run there is
// room for any value but a string (raw_string makes its own).
struct FixedOut {
    JsonStream& w;
    char* p;

    explicit FixedOut(JsonStream& s) : w(s), p(s.raw_begin()) {}
    void end() { w.raw_end(p); }

    void run(const FixedRun& r) {
        p = w.raw_room(p, 2 * FixedRun::kCap + kDoubleChars);
        std::memcpy(p, r.bytes, FixedRun::kCap);  // a fixed size copies fastest: the tail is overwritten
        p += r.size;
    }
    void lit(std::string_view s) {  // a few bytes (null, [], {}): room left by the run before
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    }
    template <class T> void num(T v) { p = JsonStream::raw_number(p, v); }
    void ms(double v) { p = JsonStream::raw_ms(p, v); }
    void null() { lit("null"); }
    void boolean(bool b) { lit(b ? std::string_view("true") : std::string_view("false")); }
    void str(std::string_view s) { p = w.raw_string(p, s); }
    void str_or_null(const std::string& s) {
        if (s.empty()) null();
        else str(s);
    }
    void ms_or_null(bool known, double v) {
        if (known) ms(v);
        else null();
    }
    // An array of integers: `open` ("[" and the first line), `next` (",",
    // a line), `close` (the closing line and "]"); [] when empty.
    template <class T>
    void numbers(const std::vector<T>& v, const FixedRun& open, const FixedRun& next, const FixedRun& close) {
        if (v.empty()) return lit("[]");
        run(open);
        num(v[0]);
        for (size_t i = 1; i < v.size(); ++i) {
            run(next);
            num(v[i]);
        }
        run(close);
    }
};

} // namespace stallscope
