#include "analyzers/report/json_stream.h"

#include "analyzers/report/report.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

namespace stallscope {

// What a byte needs in a JSON string: 0 nothing, 1 an escape, 2 the UTF-8 check.
const std::array<uint8_t, 256> JsonStream::kByteClass = [] {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[size_t(c)] = 1;
    t['"'] = t['\\'] = 1;
    for (int c = 0x80; c < 0x100; ++c) t[size_t(c)] = 2;
    return t;
}();

JsonStream::JsonStream(std::ostream& os, int indent)
    : os_(os), indent_(indent), buf_(new char[kBufferSize]), newline_(kPadCopy, ' ') {
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
    flushed_ += used_;
    used_ = 0;
}

void JsonStream::put_slow(const char* p, size_t n) {
    flush();
    if (n >= kBufferSize) {  // too big to be worth copying
        os_.write(p, std::streamsize(n));
        flushed_ += n;
    } else {
        put(p, n);
    }
}

void JsonStream::newline(size_t depth) {
    if (indent_ < 0) return;
    size_t n = 1 + depth * size_t(indent_);
    if (n > newline_.size()) newline_.resize(2 * n, ' ');
    put(newline_.data(), n);
}

// A long key, a key that needs escaping, or a very deep one.
JsonStream& JsonStream::key_slow(std::string_view k) {
    if (open_.back()++) put(',');
    newline(open_.size());
    string(k);
    if (indent_ >= 0) put(": ", 2);
    else put(':');
    after_key_ = true;
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

// Not a time in ms: nlohmann's own formatter (grisu2, ".0" after integral
// values), so every number reads as it did when a json tree was dumped.
void JsonStream::any_double(double d) {
    if (!std::isfinite(d)) return put("null", 4);
    char* p = room(kDoubleChars);
    used_ = size_t(write_any_double(p, d) - buf_.get());
}

double JsonStream::rounded_ms(double ms) { return round_ms(ms); }

// number_ms at p: the same steps, the same bytes.
char* JsonStream::raw_ms(char* p, double ms) {
    if (char* end = write_ms_rounded(p, ms)) return end;
    const double d = round_ms(ms);
    if (char* end = write_ms_double(p, d)) return end;
    if (!std::isfinite(d)) {
        std::memcpy(p, "null", 4);
        return p + 4;
    }
    return write_any_double(p, d);
}

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
