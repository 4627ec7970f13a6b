#include "dissectors/http/http_message.h"

#include "dissectors/http/ascii_case.h"

#include <functional>

namespace stallscope {

HttpField http_field_of(std::string_view name) {
    auto is = [&](std::string_view known, HttpField f) { return ascii_iequals(name, known) ? f : HttpField::Other; };
    switch (name.size()) {  // most names are none of these: one length test each
    case 6:
        if (HttpField f = is("Expect", HttpField::Expect); f != HttpField::Other) return f;
        return is("Server", HttpField::Server);
    case 7: return is("Upgrade", HttpField::Upgrade);
    case 10:
        if (HttpField f = is("Connection", HttpField::Connection); f != HttpField::Other) return f;
        if (HttpField f = is("User-Agent", HttpField::UserAgent); f != HttpField::Other) return f;
        return is("SOAPAction", HttpField::SoapAction);
    case 12: return is("Content-Type", HttpField::ContentType);
    case 14: return is("Content-Length", HttpField::ContentLength);
    case 16: return is("Content-Encoding", HttpField::ContentEncoding);
    case 17: return is("Transfer-Encoding", HttpField::TransferEncoding);
    default: return HttpField::Other;
    }
}

HttpMessageHead::HttpMessageHead(const HttpMessageHead& o)
    : is_request(o.is_request), method(o.method), uri(o.uri), version(o.version), status(o.status), reason(o.reason),
      headers(o.headers), header_bytes(o.header_bytes), content_length(o.content_length), chunked(o.chunked),
      connection_close(o.connection_close), expect_continue(o.expect_continue), field_bytes(o.field_bytes),
      first_field(o.first_field), fields_indexed(o.fields_indexed) {
    view_own_bytes(o.field_bytes.data(), o.field_bytes.size());
}

HttpMessageHead::HttpMessageHead(HttpMessageHead&& o) noexcept { *this = std::move(o); }

HttpMessageHead& HttpMessageHead::operator=(const HttpMessageHead& o) {
    if (this != &o) *this = HttpMessageHead(o);
    return *this;
}

HttpMessageHead& HttpMessageHead::operator=(HttpMessageHead&& o) noexcept {
    if (this == &o) return *this;
    const char* old_bytes = o.field_bytes.data();  // before the move empties it
    const size_t old_size = o.field_bytes.size();
    is_request = o.is_request;
    method = std::move(o.method);
    uri = std::move(o.uri);
    version = std::move(o.version);
    status = o.status;
    reason = std::move(o.reason);
    headers = std::move(o.headers);
    header_bytes = o.header_bytes;
    content_length = o.content_length;
    chunked = o.chunked;
    connection_close = o.connection_close;
    expect_continue = o.expect_continue;
    field_bytes = std::move(o.field_bytes);
    first_field = o.first_field;
    fields_indexed = o.fields_indexed;
    view_own_bytes(old_bytes, old_size);
    return *this;
}

// `headers` came from a head whose field_bytes were at old_begin: the views
// into them now view ours (a copy, or a short string's bytes moved out of
// its inline buffer; a long string's buffer changes owner and stays put).
void HttpMessageHead::view_own_bytes(const char* old_begin, size_t old_size) {
    const char* old_end = old_begin + old_size;
    if (old_begin == field_bytes.data()) return;  // a moved buffer: the views are right
    auto rebase = [&](std::string_view& v) {
        // std::less: a total order even for pointers into different objects.
        std::less<const char*> before;
        if (v.empty() || before(v.data(), old_begin) || !before(v.data(), old_end)) return;
        v = {field_bytes.data() + (v.data() - old_begin), v.size()};
    };
    for (HttpHeader& h : headers) {
        rebase(h.name);
        rebase(h.value);
    }
}

const std::string_view* HttpMessageHead::header(std::string_view name) const {
    for (const auto& h : headers)
        if (ascii_iequals(h.name, name)) return &h.value;
    return nullptr;
}

const std::string_view* HttpMessageHead::field(HttpField kind) const {
    if (!fields_indexed) {
        for (const auto& h : headers)
            if (http_field_of(h.name) == kind) return &h.value;
        return nullptr;
    }
    uint16_t i = first_field[size_t(kind)];
    return i ? &headers[i - 1].value : nullptr;
}

void HttpMessageHead::index_fields() {
    first_field = {};
    for (size_t i = 0; i < headers.size() && i < 0xffff; ++i) {
        uint16_t& slot = first_field[size_t(http_field_of(headers[i].name))];
        if (!slot) slot = uint16_t(i + 1);
    }
    fields_indexed = true;
}

} // namespace stallscope
