#include "dissectors/http/http_message.h"

#include "dissectors/http/ascii_case.h"

#include <cstring>
#include <functional>
#include <type_traits>

namespace stallscope {

namespace {

// A known field name, compared a word at a time: the name's bytes OR'ed with
// `mask` (0x20 at the letters, so either case matches, 0 elsewhere) must equal
// `lower`. Asked for every field line, so no per-byte case folding.
template <size_t N>
struct KnownName {
    char lower[N];
    char mask[N];
    HttpField kind;
};

template <size_t M>
constexpr KnownName<M - 1> known(const char (&name)[M], HttpField kind) {
    KnownName<M - 1> k{};
    for (size_t i = 0; i + 1 < M; ++i) {
        char c = name[i];
        bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        k.lower[i] = letter ? char(c | 0x20) : c;
        k.mask[i] = letter ? char(0x20) : char(0);
    }
    k.kind = kind;
    return k;
}

template <class W>
W load(const char* p) {
    W w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

template <class W>
bool same_word(const char* name, const char* lower, const char* mask) {
    return (load<W>(name) | load<W>(mask)) == load<W>(lower);
}

// `name` is N bytes long (N >= 4): words at 0, 8... and one ending at N.
template <size_t N>
bool is(const char* name, const KnownName<N>& k) {
    using W = std::conditional_t<(N >= 8), uint64_t, uint32_t>;
    constexpr size_t w = sizeof(W);
    for (size_t at = 0; at + w <= N; at += w)
        if (!same_word<W>(name + at, k.lower + at, k.mask + at)) return false;
    if constexpr (N % w != 0) return same_word<W>(name + N - w, k.lower + N - w, k.mask + N - w);
    return true;
}

constexpr auto kExpect = known("Expect", HttpField::Expect);
constexpr auto kServer = known("Server", HttpField::Server);
constexpr auto kUpgrade = known("Upgrade", HttpField::Upgrade);
constexpr auto kConnection = known("Connection", HttpField::Connection);
constexpr auto kUserAgent = known("User-Agent", HttpField::UserAgent);
constexpr auto kSoapAction = known("SOAPAction", HttpField::SoapAction);
constexpr auto kContentType = known("Content-Type", HttpField::ContentType);
constexpr auto kContentLength = known("Content-Length", HttpField::ContentLength);
constexpr auto kContentEncoding = known("Content-Encoding", HttpField::ContentEncoding);
constexpr auto kTransferEncoding = known("Transfer-Encoding", HttpField::TransferEncoding);

template <size_t N, class... K>
HttpField first_of(const char* name, const K&... k) {
    HttpField f = HttpField::Other;
    ((f == HttpField::Other && is<N>(name, k) ? (f = k.kind, true) : false), ...);
    return f;
}

} // namespace

HttpField http_field_of(std::string_view name) {
    const char* p = name.data();
    switch (name.size()) {  // most names are none of these: one length test each
    case 6: return first_of<6>(p, kExpect, kServer);
    case 7: return first_of<7>(p, kUpgrade);
    case 10: return first_of<10>(p, kConnection, kUserAgent, kSoapAction);
    case 12: return first_of<12>(p, kContentType);
    case 14: return first_of<14>(p, kContentLength);
    case 16: return first_of<16>(p, kContentEncoding);
    case 17: return first_of<17>(p, kTransferEncoding);
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
        // An empty view at the end of the bytes is theirs too.
        std::less<const char*> before;
        if (before(v.data(), old_begin) || before(old_end, v.data())) return;
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

const std::string_view* HttpMessageHead::scan_field(HttpField kind) const {
    for (const auto& h : headers)
        if (http_field_of(h.name) == kind) return &h.value;
    return nullptr;
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
