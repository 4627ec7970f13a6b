#include "dissectors/http/http_message.h"

#include "dissectors/http/ascii_case.h"

namespace stallscope {

const std::string* HttpMessageHead::header(std::string_view name) const {
    for (const auto& h : headers)
        if (ascii_iequals(h.name, name)) return &h.value;
    return nullptr;
}

} // namespace stallscope
