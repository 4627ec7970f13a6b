#include "analyzers/result/call_reuse.h"

#include <utility>
#include <vector>

namespace stallscope {

namespace {

// Larger buffers are freed: one huge call must not pin its memory.
constexpr size_t kKeepStringBytes = 4096;
constexpr size_t kKeepVectorItems = 512;

// Always in line (with empty_strings): once swap_calls was in this file GCC
// stopped inlining them into clear_call (+3.5 M instructions a bench run).
template <class T>
[[gnu::always_inline]] inline void empty_keeping(T& x, size_t max_capacity) {
    if (x.capacity() > max_capacity) T().swap(x);
    else x.clear();
}

// Each string emptied in line (a loop over an initializer_list of pointers
// built the list and went through it: about 6 instructions a string more).
template <class... S>
[[gnu::always_inline]] inline void empty_strings(S&... s) {
    (empty_keeping(s, kKeepStringBytes), ...);
}

// Strings of cleared attributions and savings, for reused_string(): a fixed
// stack of slots, each an empty inline string until a buffer is moved in (a
// vector's emplace_back and pop_back cost about 35 and 56 instructions a
// string, about 125,000 of each on the 200,000-packet bench file).
constexpr size_t kSpareStrings = 64;
constexpr size_t kSpareStringBytes = 64;
struct SpareStrings {
    std::string slot[kSpareStrings];
    size_t n = 0;
};
SpareStrings& spare_strings() {
    thread_local SpareStrings spare;
    return spare;
}
// The heap buffers of items' strings (`member`) into the spare ones: one
// look at the thread's pool per call, short (inline) strings left alone.
template <class T>
void keep_strings(std::vector<T>& items, std::string T::*member) {
    if (items.empty()) return;
    SpareStrings& spare = spare_strings();
    const size_t kInline = std::string().capacity();  // 15 in libstdc++
    for (T& x : items) {
        if (spare.n >= kSpareStrings) return;
        std::string& s = x.*member;
        if (s.capacity() > kInline && s.capacity() <= kSpareStringBytes) spare.slot[spare.n++] = std::move(s);
    }
}

// Field by field: assigning a MessageInfo{} (its vectors moved out and back
// in) was about 54 instructions a message. A field added to MessageInfo
// fails swap_calls' size check and the clear_call tests (full_call sets
// every field) until it is reset here too.
void clear_message(MessageInfo& m) {
    m.first_frame = m.headers_end_frame = m.body_first_frame = m.last_frame = 0;
    m.first_ns = m.headers_end_ns = m.body_first_ns = m.last_ns = 0;
    m.header_bytes = m.body_bytes = 0;
    empty_keeping(m.write_sizes, kKeepVectorItems);
    empty_keeping(m.frames, kKeepVectorItems);
    m.complete = false;
    m.missing_bytes = m.content_bytes = m.markup_bytes = m.deflate_estimate = 0;
    m.deflate_pick = false;
    m.whole_xml = true;  // MessageInfo's default
}

// In place: assigning a SoapInfo{} moved six strings about (and freed
// their memory, which the next decode's short names fit in).
void clear_soap(SoapInfo& s) {
    s.is_soap = s.fault = s.head_only = false;
    empty_strings(s.version, s.operation, s.operation_ns, s.fault_code, s.fault_string, s.error);
    s.element_count = s.max_depth = 0;
    s.bytes = 0;
    s.error_code = SoapError::None;
}

} // namespace

// In place rather than `c = Call{}`: moving a whole Call (21 strings, 11
// vectors) about was a few percent of the analysis. model_spill_tests checks
// that the result equals Call{} in every field, so a field added to Call and
// not here fails there.
void clear_call(Call& c) {
    c.id = 0;
    c.connection_id = 0;
    c.index_on_connection = 0;
    empty_strings(c.method, c.uri, c.http_version, c.reason, c.user_agent, c.server, c.content_type, c.soap_action,
                  c.content_encoding);
    c.status = 0;
    c.expect_continue = c.got_continue = false;
    c.continue_frame = 0;
    c.continue_ns = 0;
    c.request_chunked = c.response_chunked = false;
    c.connection_close = c.request_close = false;
    clear_message(c.request);
    clear_message(c.response);
    clear_soap(c.soap);
    clear_soap(c.soap_response);
    c.request_first_frame = c.response_last_frame = 0;
    c.start_ns = c.end_ns = 0;
    c.latency_ms = 0;
    c.complete = c.opened_connection = c.closed_connection = false;
    empty_keeping(c.phases, kKeepVectorItems);
    keep_strings(c.attribution, &TimeShare::cause);
    keep_strings(c.savings, &FixSaving::kind);
    empty_keeping(c.attribution, kKeepVectorItems);
    c.setup_ms = -1;  // Call's default: no setup seen
    empty_keeping(c.savings, kKeepVectorItems);
    empty_keeping(c.segments, kKeepVectorItems);
}

namespace {

using std::swap;

// Two empty strings need no swap (their values are equal); std::string::swap
// is about 45 instructions, and a call has a dozen empty strings or more.
[[gnu::always_inline]] inline void trade(std::string& a, std::string& b) noexcept {
    if (!a.empty() || !b.empty()) a.swap(b);
}
template <class T> [[gnu::always_inline]] inline void trade(std::vector<T>& a, std::vector<T>& b) noexcept { a.swap(b); }

void swap_messages(MessageInfo& a, MessageInfo& b) noexcept {
    swap(a.first_frame, b.first_frame);
    swap(a.headers_end_frame, b.headers_end_frame);
    swap(a.body_first_frame, b.body_first_frame);
    swap(a.last_frame, b.last_frame);
    swap(a.first_ns, b.first_ns);
    swap(a.headers_end_ns, b.headers_end_ns);
    swap(a.body_first_ns, b.body_first_ns);
    swap(a.last_ns, b.last_ns);
    swap(a.header_bytes, b.header_bytes);
    swap(a.body_bytes, b.body_bytes);
    trade(a.write_sizes, b.write_sizes);
    trade(a.frames, b.frames);
    swap(a.complete, b.complete);
    swap(a.missing_bytes, b.missing_bytes);
    swap(a.content_bytes, b.content_bytes);
    swap(a.markup_bytes, b.markup_bytes);
    swap(a.deflate_estimate, b.deflate_estimate);
    swap(a.deflate_pick, b.deflate_pick);
    swap(a.whole_xml, b.whole_xml);
}

void swap_soap(SoapInfo& a, SoapInfo& b) noexcept {
    swap(a.is_soap, b.is_soap);
    trade(a.version, b.version);
    trade(a.operation, b.operation);
    trade(a.operation_ns, b.operation_ns);
    swap(a.fault, b.fault);
    trade(a.fault_code, b.fault_code);
    trade(a.fault_string, b.fault_string);
    swap(a.element_count, b.element_count);
    swap(a.max_depth, b.max_depth);
    swap(a.head_only, b.head_only);
    swap(a.bytes, b.bytes);
    trade(a.error, b.error);
    swap(a.error_code, b.error_code);
}

} // namespace

// Field by field in declaration order; call_reuse tests (model_spill_tests)
// fill every field of both calls and check each lands on the other side, and
// a size check below fails the build when Call grows without this growing.
void swap_calls(Call& a, Call& b) noexcept {
#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG)
    static_assert(sizeof(Call) == 1352 && sizeof(MessageInfo) == 176 && sizeof(SoapInfo) == 240,
                  "Call, MessageInfo or SoapInfo changed: swap the new field in swap_calls, then update the sizes");
#endif
    swap(a.id, b.id);
    swap(a.connection_id, b.connection_id);
    swap(a.index_on_connection, b.index_on_connection);
    trade(a.method, b.method);
    trade(a.uri, b.uri);
    trade(a.http_version, b.http_version);
    swap(a.status, b.status);
    trade(a.reason, b.reason);
    trade(a.user_agent, b.user_agent);
    trade(a.server, b.server);
    trade(a.content_type, b.content_type);
    trade(a.soap_action, b.soap_action);
    trade(a.content_encoding, b.content_encoding);
    swap(a.expect_continue, b.expect_continue);
    swap(a.got_continue, b.got_continue);
    swap(a.continue_frame, b.continue_frame);
    swap(a.continue_ns, b.continue_ns);
    swap(a.request_chunked, b.request_chunked);
    swap(a.response_chunked, b.response_chunked);
    swap(a.connection_close, b.connection_close);
    swap(a.request_close, b.request_close);
    swap_messages(a.request, b.request);
    swap_messages(a.response, b.response);
    swap_soap(a.soap, b.soap);
    swap_soap(a.soap_response, b.soap_response);
    swap(a.request_first_frame, b.request_first_frame);
    swap(a.response_last_frame, b.response_last_frame);
    swap(a.start_ns, b.start_ns);
    swap(a.end_ns, b.end_ns);
    swap(a.latency_ms, b.latency_ms);
    swap(a.complete, b.complete);
    swap(a.opened_connection, b.opened_connection);
    swap(a.closed_connection, b.closed_connection);
    swap(a.encrypted, b.encrypted);
    trade(a.phases, b.phases);
    trade(a.attribution, b.attribution);
    swap(a.setup_ms, b.setup_ms);
    trade(a.savings, b.savings);
    swap(a.view, b.view);
    swap(a.client_path_ms, b.client_path_ms);
    trade(a.segments, b.segments);
}

std::string reused_string() {
    SpareStrings& spare = spare_strings();
    if (spare.n == 0) return {};
    // Moving out leaves the slot an empty inline string for the next one.
    std::string s = std::move(spare.slot[--spare.n]);
    s.clear();
    return s;
}

} // namespace stallscope
