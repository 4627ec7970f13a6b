#include "analyzers/calls/message_content.h"

#include "dissectors/http/ascii_case.h"
#include "dissectors/http/content_decoder.h"
#include "dissectors/soap/soap_decoder.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stallscope {

namespace {

// Bodies smaller than this are never compressed (see measure_content).
constexpr size_t kMinCompressedBody = 512;

// SOAP 1.2 carries the action as a media-type parameter.
std::string action_param(const std::string& content_type) {
    const std::string lower = ascii_lowered(content_type);
    auto p = lower.find("action=");
    if (p == std::string::npos) return {};
    std::string v = content_type.substr(p + 7);
    if (!v.empty() && v[0] == '"') { v.erase(0, 1); auto q = v.find('"'); if (q != std::string::npos) v.resize(q); }
    else { auto q = v.find(';'); if (q != std::string::npos) v.resize(q); }
    return v;
}

// Whether a media type names XML or SOAP ("xml" or "soap" in any case): one
// pass, where two std::search passes cost ~140 instructions a response.
bool names_xml_or_soap(std::string_view type) {
    auto at = [&](size_t i, std::string_view rest) {
        if (type.size() - i < rest.size()) return false;
        for (size_t k = 0; k < rest.size(); ++k)
            if (ascii_lower(type[i + k]) != rest[k]) return false;
        return true;
    };
    for (size_t i = 0; i < type.size(); ++i) {
        const char c = char(type[i] | 0x20);  // 'x'/'X' and 's'/'S' (and nothing else that matters) map here
        if (c == 'x' && at(i + 1, "ml")) return true;
        if (c == 's' && at(i + 1, "oap")) return true;
    }
    return false;
}

std::string_view unquote(std::string_view v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
}

} // namespace

HeadFields::HeadFields(const HttpMessageHead& head)
    : user_agent(head.field(HttpField::UserAgent)), content_type(head.field(HttpField::ContentType)),
      soap_action(head.field(HttpField::SoapAction)), content_encoding(head.field(HttpField::ContentEncoding)),
      server(head.field(HttpField::Server)), upgrade(head.field(HttpField::Upgrade)) {}

void fill_request_fields(Call& c, const HttpMessageHead& head, const HeadFields& f) {
    c.method = head.method;
    c.uri = head.uri;
    c.http_version = head.version;
    if (f.user_agent) c.user_agent = *f.user_agent;
    if (f.content_type) c.content_type = *f.content_type;
    if (f.soap_action) c.soap_action.assign(unquote(*f.soap_action));
    if (c.soap_action.empty()) c.soap_action = action_param(c.content_type);
    if (f.content_encoding) c.content_encoding = *f.content_encoding;
    c.expect_continue = head.expect_continue;
    c.request_chunked = head.chunked;
    c.connection_close = head.connection_close;
    c.request_close = head.connection_close;
}

void fill_response_fields(Call& c, const HttpMessageHead& head, const HeadFields& f) {
    c.status = head.status;
    c.reason = head.reason;
    if (f.server) c.server = *f.server;
    c.response_chunked = head.chunked;
    if (head.connection_close) c.connection_close = true;
    if (f.content_encoding && c.content_encoding.empty()) c.content_encoding = *f.content_encoding;
}

// Size facts for the message_size detector: decoded bytes (of what was
// kept, see max_soap_body_bytes), the share that is markup, and what
// deflate would make of it (see DeflateSampler; a compressed body larger
// than 16 KiB is measured on 16 KiB of it and scaled, deflate_sample, so a
// big body costs a bounded amount of CPU; without a sampler every body is
// compressed whole).
void measure_content(std::string_view content, MessageInfo& m, DeflateSampler* sampler, const std::string& key,
                     bool count_markup, uint64_t known_markup) {
    m.content_bytes = content.size();
    m.whole_xml = count_markup;
    if (count_markup) m.markup_bytes = known_markup != kMarkupUnknown ? known_markup : count_markup_bytes(content);
    // Small messages are counted as incompressible: compressing each costs
    // a zlib state per message (most SOAP messages are this small), and one
    // can save under 512 B, half of the 1 KiB per call message_size needs.
    if (content.size() < kMinCompressedBody) { m.deflate_estimate = content.size(); return; }
    if (sampler) {
        sampler->measure(key, content, m);
        return;
    }
    DeflateSampler every_message(0, 0, true);
    every_message.measure(key, content, m);
}

uint64_t count_markup_bytes(std::string_view content) {
    // Bytes from each '<' (outside a tag) to the next '>', both counted; an
    // unclosed tag runs to the end. With SSE2, 16 bytes a step: the '<' and
    // '>' of a block as two bit masks, walked in order (two memchr calls per
    // tag cost ~90 instructions on the short tags and texts of an array).
    uint64_t markup = 0;
    const char* s = content.data();
    const size_t n = content.size();
    size_t i = 0, open = 0;
    bool in_tag = false;
#if defined(__SSE2__)
    const __m128i lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>');
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        unsigned opens = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(x, lt)));
        unsigned closes = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(x, gt)));
        for (;;) {
            const unsigned want = in_tag ? closes : opens;
            if (!want) break;
            const unsigned k = unsigned(__builtin_ctz(want));
            if (in_tag) markup += i + k + 1 - open;
            else open = i + k;
            in_tag = !in_tag;
            const unsigned past = ~((2u << k) - 1);  // the bits after k
            opens &= past;
            closes &= past;
        }
    }
#endif
    for (; i < n; ++i) {
        if (!in_tag && s[i] == '<') {
            open = i;
            in_tag = true;
        } else if (in_tag && s[i] == '>') {
            markup += i + 1 - open;
            in_tag = false;
        }
    }
    if (in_tag) markup += n - open;
    return markup;
}

void MessageBody::set_head(const HeadFields& f) {
    if (f.content_encoding) encoding_ = *f.content_encoding;
    const std::string_view* type = f.content_type;
    xml_expected_ = f.soap_action || (type && names_xml_or_soap(*type));
}

void MessageBody::append(std::span<const uint8_t> data, size_t cap) {
    if (data.empty()) return;
    if (bytes_.empty() && borrowed_.empty() && !capped_ && data.size() <= cap) {
        borrowed_ = {reinterpret_cast<const char*>(data.data()), data.size()};
        return;
    }
    own();
    size_t room = cap > bytes_.size() ? cap - bytes_.size() : 0;
    if (data.size() > room) capped_ = true;
    bytes_.append(reinterpret_cast<const char*>(data.data()), std::min(room, data.size()));
}

void MessageBody::own() {
    bytes_.append(borrowed_);
    borrowed_ = {};
}

void MessageBody::finish(const AnalysisOptions& opt, MessageInfo& msg, SoapInfo& out,
                         FunctionRef<std::string()> what, FunctionRef<void(WarningCode, const std::string&)> warn,
                         DeflateSampler* sampler, FunctionRef<std::string()> sample_key,
                         FunctionRef<bool(uint64_t)> read_whole) {
    const std::string_view body = borrowed_.empty() ? std::string_view(bytes_) : borrowed_;
    if (body.empty()) return;
    std::string decoded;
    std::string_view xml = body;
    // The markup count, when the plain SOAP pass read the envelope whole and
    // counted it on the way (else measure_content counts it).
    uint64_t markup = kMarkupUnknown;
    if (!encoding_.empty() && !ascii_icontains(encoding_, "identity")) {
        std::string err;
        if (!decode_content(encoding_, {reinterpret_cast<const uint8_t*>(body.data()), body.size()},
                            opt.max_decompressed_bytes, decoded, err)) {
            out.fail(SoapError::ContentEncoding, "content-encoding " + encoding_ + ": " + err);
            if (decoded.size() >= opt.max_decompressed_bytes)  // the cap, not corrupt data
                warn(WarningCode::DecompressedSizeCap, "decompressed-size cap (" + std::to_string(opt.max_decompressed_bytes) + " bytes) hit: " +
                     encoding_ + " " + what() + " not decoded (" + err + ")");
            release();
            return;
        }
        xml = decoded;
    }
    // UTF-8, UTF-16 or UTF-32, with a byte-order mark or not (Windows clients send UTF-16).
    if (!starts_like_xml(xml)) {
        if (xml_expected_) out.fail(SoapError::NotXml, not_xml_reason(xml) + ": envelope not decoded");
    } else {
        if (capped_) {
            out.fail(SoapError::BodyCapped, "body larger than " + std::to_string(opt.max_soap_body_bytes) + " bytes: not decoded");
            warn(WarningCode::SoapBodyCap, "SOAP body cap (" + std::to_string(opt.max_soap_body_bytes) + " bytes) hit: " + what() +
                 " is larger than that; its envelope was not decoded");
        } else {
            // Into the call's own SoapInfo: its strings keep their memory from call to call.
            decode_soap_into(xml, out, {}, read_whole ? SoapRead::Head : SoapRead::Whole, &markup);
        }
    }
    // After the head: whether this call is in the whole-XML sample depends
    // on its operation, which the envelope names.
    const bool whole = !read_whole || read_whole(xml.size());
    if (whole && out.head_only) decode_soap_into(xml, out, {}, SoapRead::Whole, &markup);
    // After the decode: the sample is per operation, which the envelope names.
    // The key (a string per message) only for a body the sampler may compress.
    const bool sampled = sampler && sample_key && xml.size() >= kMinCompressedBody;
    measure_content(xml, msg, sampler, sampled ? sample_key() : std::string(), whole, markup);
    release();
}

void MessageBody::release() {
    borrowed_ = {};
    if (bytes_.capacity() > kKeepBytes) bytes_ = std::string();
    else bytes_.clear();
}

void MessageBody::clear() {
    // Field by field: a new body's values, the strings keeping their memory.
    borrowed_ = {};
    capped_ = false;
    encoding_.clear();
    xml_expected_ = false;
    release();
}

} // namespace stallscope
