#pragma once
// An ostream buffer that appends to a string the caller owns: a JsonStream
// writing into a string that keeps its capacity from one use to the next
// (no ostringstream growing from nothing and copied out each time).
#include <streambuf>
#include <string>

namespace stallscope {

class AppendBuf : public std::streambuf {
public:
    std::string* out = nullptr;  // with none, nothing may be written
protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (!out) return 0;
        out->append(s, size_t(n));
        return n;
    }
    int_type overflow(int_type c) override {
        if (!out) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) out->push_back(traits_type::to_char_type(c));
        return traits_type::not_eof(c);
    }
};

} // namespace stallscope
