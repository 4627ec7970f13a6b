#include "analyzers/pipeline/call_digest.h"

#include "analyzers/accounting/summary.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "capture/packet_decoder.h"

#include <algorithm>
#include <type_traits>

namespace stallscope {

namespace {

// Each field of a digest beside the call's it stands for, `f(call_field,
// digest_field)`: one list for both directions (C: Call or const Call).
template <class M, class D, class F>
void each_message_field(M& m, D& d, F&& f) {
    f(m.first_frame, d.first_frame);
    f(m.header_bytes, d.header_bytes);
    f(m.body_bytes, d.body_bytes);
    f(m.content_bytes, d.content_bytes);
    f(m.markup_bytes, d.markup_bytes);
    f(m.deflate_estimate, d.deflate_estimate);
    f(m.deflate_pick, d.deflate_pick);
    f(m.whole_xml, d.whole_xml);
}

template <class C, class D, class F>
void each_field(C& c, D& d, F&& f) {
    f(c.id, d.id);
    f(c.connection_id, d.connection_id);
    f(c.index_on_connection, d.index_on_connection);
    f(c.complete, d.complete);
    f(c.opened_connection, d.opened_connection);
    f(c.encrypted, d.encrypted);
    f(c.request_chunked, d.request_chunked);
    f(c.response_chunked, d.response_chunked);
    f(c.latency_ms, d.latency_ms);
    f(c.setup_ms, d.setup_ms);
    f(c.client_path_ms, d.client_path_ms);
    each_message_field(c.request, d.request, f);
    each_message_field(c.response, d.response, f);
    f(c.soap.element_count, d.request_elements);
    f(c.soap_response.element_count, d.response_elements);
    f(c.soap.operation, d.operation);
    // The request line names the operation only without a SOAP one
    // (operation_key); otherwise nothing reads it of a call not kept.
    // (c: the source, or the record already given the two fields above.)
    if (c.soap.operation.empty() && !c.encrypted) {
        f(c.method, d.method);
        f(c.uri, d.uri);
    }
    f(c.content_encoding, d.content_encoding);
    f(c.attribution, d.attribution);
    f(c.savings, d.savings);
    if (c.index_on_connection == 0 && c.opened_connection) {
        f(c.http_version, d.http_version);
        f(c.user_agent, d.user_agent);
        f(c.server, d.server);
        f(c.request_first_frame, d.request_first_frame);
        f(c.request_close, d.request_close);
        f(c.connection_close, d.connection_close);
    }
}

bool opened(const Call& c) { return c.index_on_connection == 0 && c.opened_connection; }

} // namespace

// Assigned, not moved: the worker's call keeps its memory (its record is
// filled again for its next call), and so does the digest.
void digest_call(const Call& c, CallDigest& d) {
    each_field(c, d, [](const auto& from, auto& to) {
        if constexpr (std::is_same_v<std::decay_t<decltype(to)>, std::string>) {
            if (to.empty() && from.empty()) return;  // most headers: nothing to copy
        }
        to = from;
    });
    if (!opened(c)) return;
    const auto close = std::find_if(c.segments.begin(), c.segments.end(),
                                    [](const SegmentInfo& s) { return s.flags & (tcpflag::kFin | tcpflag::kRst); });
    d.closed = close != c.segments.end();
    if (d.closed) d.first_close = *close;
}

// The vectors traded, not copied (a copy of the attribution's three strings
// was about 170 instructions a call): the digest goes back to its worker
// with the memory of the one before, assigned to again there.
void undigest(CallDigest& d, Call& c) {
    each_field(c, d, [](auto& to, auto& from) {
        using T = std::decay_t<decltype(to)>;
        if constexpr (std::is_same_v<T, std::vector<TimeShare>> || std::is_same_v<T, std::vector<FixSaving>>) {
            to.swap(from);
        } else {
            if constexpr (std::is_same_v<T, std::string>) {
                if (to.empty() && from.empty()) return;
            }
            to = from;
        }
    });
    if (!opened(c)) return;
    c.segments.clear();
    if (d.closed) c.segments.push_back(d.first_close);
}

DigestPolicy::DigestPolicy(const AnalysisOptions& opt)
    : keep_calls_(opt.keep_calls), on_(opt.keep_calls != UINT64_MAX && !opt.counters) {}

bool DigestPolicy::may_digest(const Call& c, uint64_t n) {
    if (!on_) return false;
    bool lowest = false;
    if (c.complete) {
        // operation_key(c) is soap.operation when there is one: no key built then.
        auto at = c.soap.operation.empty() ? lowest_complete_.find(operation_key(c))
                                           : lowest_complete_.find(std::string_view(c.soap.operation));
        if (at == lowest_complete_.end()) lowest_complete_.emplace(operation_key(c), n), lowest = true;
        else if (n < at->second) at->second = n, lowest = true;
    }
    if (lowest || n <= keep_calls_) return false;
    return !opened(c) || std::none_of(c.segments.begin(), c.segments.end(), [](const SegmentInfo& s) {
        return s.carries & carries::kTlsHandshake;
    });
}

} // namespace stallscope
