#include "analyzers/result/call_reuse.h"

#include <utility>
#include <vector>

namespace stallscope {

namespace {

// Larger buffers are freed: one huge call must not pin its memory.
constexpr size_t kKeepStringBytes = 4096;
constexpr size_t kKeepVectorItems = 512;

template <class T>
void empty_keeping(T& x, size_t max_capacity) {
    if (x.capacity() > max_capacity) T().swap(x);
    else x.clear();
}

// Each string emptied in line (a loop over an initializer_list of pointers
// built the list and went through it: about 6 instructions a string more).
template <class... S>
void empty_strings(S&... s) {
    (empty_keeping(s, kKeepStringBytes), ...);
}

// Strings of cleared attributions and savings, for reused_string().
constexpr size_t kSpareStrings = 64;
constexpr size_t kSpareStringBytes = 64;
std::vector<std::string>& spare_strings() {
    thread_local std::vector<std::string> spare;
    return spare;
}
// The heap buffers of items' strings (`member`) into the spare ones: one
// look at the thread's pool per call, short (inline) strings left alone.
template <class T>
void keep_strings(std::vector<T>& items, std::string T::*member) {
    if (items.empty()) return;
    auto& spare = spare_strings();
    const size_t kInline = std::string().capacity();  // 15 in libstdc++
    for (T& x : items) {
        if (spare.size() >= kSpareStrings) return;
        std::string& s = x.*member;
        if (s.capacity() > kInline && s.capacity() <= kSpareStringBytes) spare.push_back(std::move(s));
    }
}

void clear_message(MessageInfo& m) {
    auto sizes = std::move(m.write_sizes);
    auto frames = std::move(m.frames);
    m = MessageInfo{};  // every scalar, whatever is added later
    empty_keeping(sizes, kKeepVectorItems);
    empty_keeping(frames, kKeepVectorItems);
    m.write_sizes = std::move(sizes);
    m.frames = std::move(frames);
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

std::string reused_string() {
    auto& spare = spare_strings();
    if (spare.empty()) return {};
    std::string s = std::move(spare.back());
    spare.pop_back();
    s.clear();
    return s;
}

} // namespace stallscope
