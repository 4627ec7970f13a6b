#pragma once
// JSON written as it is made: objects, arrays, keys and values go straight
// into a buffer that is handed to an ostream in big chunks, byte for byte as
// nlohmann's dump(indent, ' ', false, error_handler_t::replace) writes the
// same document (indent < 0: compact). A report of a million calls never
// builds a tree. The caller keeps the structure well formed (a key before
// each member of an object, ends matching begins).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

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
    JsonStream& key(std::string_view k);

    JsonStream& value(std::string_view s);
    JsonStream& value(const std::string& s) { return value(std::string_view(s)); }
    JsonStream& value(const char* s) { return value(std::string_view(s)); }
    JsonStream& value(bool b);
    JsonStream& value(std::nullptr_t);
    JsonStream& value(double d);  // NaN and infinities are null, as nlohmann writes them
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    JsonStream& value(T v) {
        if constexpr (std::is_signed_v<T>) return integer(int64_t(v));
        else return integer(uint64_t(v));
    }
    template <class T> JsonStream& value(const std::optional<T>& v) { return v ? value(*v) : value(nullptr); }
    template <class T> JsonStream& value(const std::vector<T>& items) {
        begin_array();
        for (const T& v : items) value(v);
        return end_array();
    }

    // key(k).value(v)
    template <class T> JsonStream& member(std::string_view k, const T& v) { return key(k).value(v); }

    // Bytes outside the document (the report's final newline).
    void raw(std::string_view s) { put(s.data(), s.size()); }
    // Hands the buffer to the stream (also done when it fills and at the end).
    void flush();

private:
    JsonStream& open(char bracket);
    JsonStream& close(char bracket);
    void before_value();
    void newline(size_t depth);
    void string(std::string_view s);
    template <class I> JsonStream& integer(I v);  // int64_t and uint64_t
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

    static constexpr size_t kBufferSize = 1 << 16;
    std::ostream& os_;
    int indent_;
    std::unique_ptr<char[]> buf_;
    size_t used_ = 0;
    std::string newline_;          // "\n" and spaces enough for the deepest line so far
    std::vector<uint32_t> open_;  // members/elements so far of each open container
    bool after_key_ = false;
};

} // namespace stallscope
