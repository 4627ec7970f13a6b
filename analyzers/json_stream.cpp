#include "analyzers/json_stream.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

namespace stallscope {

namespace {

// What a byte needs in a JSON string: 0 nothing, 1 an escape, 2 the UTF-8 check.
constexpr std::array<uint8_t, 256> kByteClass = [] {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[size_t(c)] = 1;
    t['"'] = t['\\'] = 1;
    for (int c = 0x80; c < 0x100; ++c) t[size_t(c)] = 2;
    return t;
}();

// Written as it is between quotes.
bool plain(std::string_view s) {
    for (char c : s)
        if (kByteClass[uint8_t(c)]) return false;
    return true;
}

} // namespace

JsonStream::JsonStream(std::ostream& os, int indent)
    : os_(os), indent_(indent), buf_(new char[kBufferSize]), newline_(64, ' ') {
    newline_[0] = '\n';
    open_.reserve(16);
}

JsonStream::~JsonStream() {
    try {
        flush();
    } catch (...) {  // a failed write shows in the stream's state
    }
}

void JsonStream::flush() {
    if (used_) os_.write(buf_.get(), std::streamsize(used_));
    used_ = 0;
}

void JsonStream::put_slow(const char* p, size_t n) {
    flush();
    if (n >= kBufferSize) os_.write(p, std::streamsize(n));  // too big to be worth copying
    else put(p, n);
}

void JsonStream::newline(size_t depth) {
    if (indent_ < 0) return;
    size_t n = 1 + depth * size_t(indent_);
    if (n > newline_.size()) newline_.resize(2 * n, ' ');
    put(newline_.data(), n);
}

// A member's value follows its key; anything else is the next element of
// the open array (or the document itself).
void JsonStream::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (open_.empty()) return;
    if (open_.back()++) put(',');
    newline(open_.size());
}

// Keys are written once per member of every call: the usual key (plain
// ASCII, fits in the buffer) is laid out in one go.
JsonStream& JsonStream::key(std::string_view k) {
    size_t pad = indent_ < 0 ? 0 : 1 + open_.size() * size_t(indent_);  // "\n" and the indent
    if (pad > newline_.size()) newline_.resize(2 * pad, ' ');
    const size_t most = 1 + pad + 1 + k.size() + 3;                       // , pad "k":_
    if (most <= kBufferSize - used_ && plain(k)) {
        char* p = buf_.get() + used_;
        if (open_.back()++) *p++ = ',';
        std::memcpy(p, newline_.data(), pad);
        p += pad;
        *p++ = '"';
        std::memcpy(p, k.data(), k.size());
        p += k.size();
        *p++ = '"';
        *p++ = ':';
        if (indent_ >= 0) *p++ = ' ';
        used_ = size_t(p - buf_.get());
        after_key_ = true;
        return *this;
    }
    if (open_.back()++) put(',');
    newline(open_.size());
    string(k);
    if (indent_ >= 0) put(": ", 2);
    else put(':');
    after_key_ = true;
    return *this;
}

JsonStream& JsonStream::open(char bracket) {
    before_value();
    put(bracket);
    open_.push_back(0);
    return *this;
}

// An empty container closes on its own line: {} and [].
JsonStream& JsonStream::close(char bracket) {
    uint32_t n = open_.back();
    open_.pop_back();
    if (n) newline(open_.size());
    put(bracket);
    return *this;
}

JsonStream& JsonStream::value(std::string_view s) {
    before_value();
    string(s);
    return *this;
}

JsonStream& JsonStream::value(bool b) {
    before_value();
    if (b) put("true", 4);
    else put("false", 5);
    return *this;
}

JsonStream& JsonStream::value(std::nullptr_t) {
    before_value();
    put("null", 4);
    return *this;
}

JsonStream& JsonStream::value(double d) {
    before_value();
    if (!std::isfinite(d)) {
        put("null", 4);
        return *this;
    }
    // nlohmann's own formatter (grisu2, ".0" after integral values), so
    // every number reads as it did when a json tree was dumped.
    char num[64];
    char* end = nlohmann::detail::to_chars(num, num + sizeof num, d);
    put(num, size_t(end - num));
    return *this;
}

template <class I> JsonStream& JsonStream::integer(I v) {
    before_value();
    char num[24];
    auto r = std::to_chars(num, num + sizeof num, v);
    put(num, size_t(r.ptr - num));
    return *this;
}
template JsonStream& JsonStream::integer(int64_t);
template JsonStream& JsonStream::integer(uint64_t);

// ASCII is escaped here exactly as nlohmann escapes it (\" \\ \b \t \n \f
// \r, other control characters as \u00xx). A string with any byte >= 0x80
// goes to nlohmann's serializer whole: its UTF-8 check and replacement of
// invalid sequences (U+FFFD) are subtle, and such strings are rare.
void JsonStream::string(std::string_view s) {
    size_t first = 0;  // the first byte that is not copied as it is
    while (first < s.size() && !kByteClass[uint8_t(s[first])]) ++first;
    if (first == s.size()) {
        put('"');
        put(s.data(), s.size());
        put('"');
        return;
    }
    for (size_t i = first; i < s.size(); ++i)
        if (kByteClass[uint8_t(s[i])] == 2) {
            nlohmann::json j = std::string(s);
            std::string out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            put(out.data(), out.size());
            return;
        }
    put('"');
    size_t plain = 0;  // start of the run of bytes copied as they are
    for (size_t i = first; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (!kByteClass[c]) continue;
        put(s.data() + plain, i - plain);
        plain = i + 1;
        char esc[2] = {'\\', 0};
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        default: {
            static const char hex[] = "0123456789abcdef";
            const char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
            put(u, 6);
            continue;
        }
        }
        put(esc, 2);
    }
    put(s.data() + plain, s.size() - plain);
    put('"');
}

} // namespace stallscope
