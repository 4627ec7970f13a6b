#include "dissectors/http/http_message.h"

namespace stallscope {

namespace {
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}
} // namespace

const std::string* HttpMessageHead::header(std::string_view name) const {
    for (const auto& h : headers)
        if (iequals(h.name, name)) return &h.value;
    return nullptr;
}

} // namespace stallscope
