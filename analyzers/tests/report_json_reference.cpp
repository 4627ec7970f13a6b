// The JSON report as it was written before JsonStream: an nlohmann
// ordered_json tree per connection, call and finding, dumped and re-indented
// into place. Kept only here, as the reference the streamed report must
// match byte for byte.
#include "analyzers/tests/report_json_reference.h"

#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/xml_sample.h"
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/accounting/capture_point_summary.h"
#include "analyzers/result/capture_point.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace stallscope::test {

using json = nlohmann::ordered_json;

namespace {

json opt_ms(const std::optional<double>& v) { return v ? json(round_ms(*v)) : json(nullptr); }
template <class T> json opt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

json message_json(const MessageInfo& m) {
    return {{"first_frame", m.first_frame},   {"last_frame", m.last_frame}, {"header_bytes", m.header_bytes},
            {"body_bytes", m.body_bytes},     {"segments", m.write_sizes.size()},
            {"write_sizes", m.write_sizes},   {"complete", m.complete},
            {"missing_bytes", m.missing_bytes}};
}

json group_json(const SummaryGroup& g) {
    json losses = json::array();
    for (auto& k : g.losses)
        losses.push_back({{"kind", k.kind}, {"findings", k.findings}, {"calls", k.calls},
                          {"lost_ms", round_ms(k.lost_ms)}, {"share", std::round(k.share * 10000) / 10000},
                          {"avoidable", k.avoidable}});
    // No complete call: there is no median (null), though a sum over none is 0.
    auto lat = [&](double v) { return g.latency.calls ? json(round_ms(v)) : json(nullptr); };
    auto share = [&](double ms) { return g.latency.total_ms > 0 ? std::round(ms / g.latency.total_ms * 10000) / 10000 : 0.0; };
    json attribution = json::array();
    for (auto& t : g.attribution)
        attribution.push_back({{"cause", t.cause}, {"ms", round_ms(t.ms)}, {"share", share(t.ms)}});
    json what_if = json::array();
    for (auto& w : g.what_if) {
        json e = {{"kind", w.kind}, {"side", w.side}, {"predicted_median_ms", round_ms(w.predicted_median_ms)},
                  {"predicted_p90_ms", round_ms(w.predicted_p90_ms)}, {"calls", w.calls}};
        if (w.client_time) e["of"] = "client_ms";
        what_if.push_back(e);
    }
    json j = {{"calls", g.latency.calls},
              {"median_ms", lat(g.latency.median_ms)},
              {"p90_ms", lat(g.latency.p90_ms)},
              {"max_ms", lat(g.latency.max_ms)},
              {"mean_ms", lat(g.latency.mean_ms)},
              {"total_ms", round_ms(g.latency.total_ms)},
              {"lost", losses},
              {"predicted_median_ms", lat(g.predicted_median_ms)},
              {"predicted_total_ms", round_ms(g.predicted_total_ms)},
              {"avoidable_ms", round_ms(g.avoidable_ms)},
              {"avoidable_share", share(g.avoidable_ms)},
              {"server_ms", round_ms(g.server_ms)},
              {"server_share", share(g.server_ms)},
              {"transfer_ms", round_ms(g.transfer_ms)},
              {"attribution", attribution},
              {"setup_ms", round_ms(g.setup_ms)},
              {"client_median_ms", lat(g.client_latency.median_ms)},
              {"client_p90_ms", lat(g.client_latency.p90_ms)},
              {"what_if", what_if}};
    if (!g.operation.empty()) j["operation"] = g.operation;
    return j;
}

// Times in the report are relative to the capture's first packet.
struct Rel {
    int64_t t0;
    // A hostile result may hold any time: never overflow the difference.
    double operator()(int64_t ns) const {
        int64_t d = 0;
        if (__builtin_sub_overflow(ns, t0, &d)) return round_ms((double(ns) - double(t0)) / 1e6);
        return round_ms(ns_to_ms(d));
    }
};

json capture_json(const CaptureInfo& c) {
    json warnings = json::array();
    for (auto& w : c.warnings) {
        json jw = {{"code", warning_code_name(w.code)}, {"message", w.message}};
        jw["frame"] = w.frame ? json(w.frame) : json(nullptr);
        jw["offset"] = w.offset ? json(w.offset) : json(nullptr);
        jw["connection"] = w.connection_id ? json(w.connection_id) : json(nullptr);
        jw["call"] = w.call_id ? json(w.call_id) : json(nullptr);
        warnings.push_back(jw);
    }
    return {{"file", c.file},
            {"format", c.format},
            {"packets", c.packets},
            {"bytes", c.bytes},
            {"link_types", c.link_types},
            {"start_time", c.packets ? json(utc_time(c.first_ns)) : json(nullptr)},
            {"duration_ms", round_ms(ns_to_ms(c.last_ns - c.first_ns))},
            {"truncated", c.truncated},
            {"non_tcp_packets", c.non_tcp_packets},
            {"undecodable_packets", c.undecodable_packets},
            {"warnings", warnings}};
}

json connection_json_plain(const Connection& k);

json tls_json(const ConnectionTls& t) {
    return {{"version", t.version},
            {"cipher_suite", t.cipher_suite},
            {"sni", t.sni},
            {"alpn", t.alpn},
            {"resumed", t.resumed},
            {"resumption_offered", t.resumption_offered},
            {"decrypted", t.decrypted},
            {"reason", t.reason},
            {"handshake_first_frame", t.handshake_first_frame},
            {"handshake_last_frame", t.handshake_last_frame},
            {"handshake_ms", t.handshake_last_frame
                                 ? json(round_ms(double(t.handshake_end_ns - t.handshake_start_ns) / 1e6))
                                 : json(nullptr)},
            {"certificate_bytes", t.certificate_bytes},
            {"server_flight_bytes", t.server_flight_bytes},
            {"server_flight_segments", t.server_flight_segments},
            {"session_tickets", t.session_tickets},
            {"record_overhead", t.record_overhead},
            {"sizes_exact", t.sizes_exact}};
}

json capture_point_of(const Connection& k) {
    const PathPosition pos = path_position(k);
    return {{"where", place_name(place_of(pos))},
            {"client_side_ms", pos.known ? json(round_ms(ns_to_ms(pos.client_ns))) : json(nullptr)},
            {"server_side_ms", pos.known ? json(round_ms(ns_to_ms(pos.server_ns))) : json(nullptr)},
            {"from_handshake", pos.from_handshake},
            {"data_ack_pairs", pos.data_ack_pairs},
            {"client_hops", pos.client_hops >= 0 ? json(pos.client_hops) : json(nullptr)},
            {"server_hops", pos.server_hops >= 0 ? json(pos.server_hops) : json(nullptr)}};
}

json connection_json(const Connection& k) {
    json j = connection_json_plain(k);
    if (k.tls) j["tls"] = tls_json(*k.tls);
    return j;
}

json connection_json_plain(const Connection& k) {
    return {{"id", k.id},
            {"client", k.client.to_string()},
            {"server", k.server.to_string()},
            {"saw_handshake", k.saw_syn},
            {"handshake_ms", opt_ms(k.handshake_ms)},
            {"syn_retransmissions", k.syn_retransmissions},
            {"client_mss", opt(k.client_mss)},
            {"server_mss", opt(k.server_mss)},
            {"client_wscale", opt(k.client_wscale)},
            {"server_wscale", opt(k.server_wscale)},
            {"first_frame", k.first_frame},
            {"last_frame", k.last_frame},
            {"packets", k.packets},
            {"client_bytes", k.client_bytes},
            {"server_bytes", k.server_bytes},
            {"retransmissions", k.retransmissions},
            {"gap_bytes", k.gap_bytes},
            {"fin_client", k.fin_client},
            {"fin_server", k.fin_server},
            {"rst", k.rst},
            {"http", k.http},
            {"calls", k.calls},
            {"capture_point", capture_point_of(k)}};
}

json capture_point_summary_json(const CapturePointSummary& s) {
    auto ms_or_null = [](double v) { return v >= 0 ? json(round_ms(v)) : json(nullptr); };
    json by = json::object();
    for (CapturePlace p : {CapturePlace::Client, CapturePlace::Path, CapturePlace::Server, CapturePlace::Both,
                           CapturePlace::Unknown})
        by[place_name(p)] = s.by_place[size_t(p)];
    return {{"where", place_name(s.place)},
            {"client_side_ms", ms_or_null(s.client_side_ms)},
            {"server_side_ms", ms_or_null(s.server_side_ms)},
            {"evidence", s.evidence},
            {"client_hops", s.client_hops >= 0 ? json(s.client_hops) : json(nullptr)},
            {"server_hops", s.server_hops >= 0 ? json(s.server_hops) : json(nullptr)},
            {"connections", by},
            {"latency_view", s.view}};
}

json call_json_plain(const Call& k, const Rel& rel, bool whole);

// "encrypted" goes right after "http_version", only on encrypted calls.
json call_json(const Call& k, const Rel& rel, bool whole) {
    json j = call_json_plain(k, rel, whole);
    if (!k.encrypted) return j;
    json out = json::object();
    for (auto& [key, value] : j.items()) {
        out[key] = value;
        if (key == "http_version") out["encrypted"] = true;
    }
    return out;
}

json call_json_plain(const Call& k, const Rel& rel, bool whole) {
    json phases = json::array();
    for (auto& p : k.phases)
        phases.push_back({{"phase", phase_name(p.kind)}, {"start_ms", rel(p.start_ns)},
                          {"duration_ms", round_ms(p.duration_ms())}, {"start_frame", p.start_frame},
                          {"end_frame", p.end_frame}});
    json attribution = json::array();
    for (auto& t : k.attribution) attribution.push_back({{"cause", t.cause}, {"ms", round_ms(t.ms)}});
    json fault = nullptr;
    const SoapInfo& fs = k.soap_response.fault ? k.soap_response : k.soap;
    if (fs.fault) fault = {{"code", fs.fault_code}, {"string", fs.fault_string}};
    json soap_error = nullptr;
    if (!k.soap.error.empty()) soap_error = k.soap.error;
    else if (!k.soap_response.error.empty()) soap_error = k.soap_response.error;
    return {{"id", k.id},
            {"connection_id", k.connection_id},
            {"index_on_connection", k.index_on_connection},
            {"method", k.method},
            {"uri", k.uri},
            {"http_version", k.http_version},
            {"status", k.status ? json(k.status) : json(nullptr)},
            {"reason", k.reason},
            {"operation", k.soap.operation.empty() ? json(nullptr) : json(k.soap.operation)},
            {"namespace", k.soap.operation_ns.empty() ? json(nullptr) : json(k.soap.operation_ns)},
            {"soap_version", k.soap.version.empty() ? json(nullptr) : json(k.soap.version)},
            {"soap_action", k.soap_action},
            {"fault", fault},
            {"soap_error", soap_error},
            {"envelope_bytes", k.soap.bytes},
            {"element_count", whole ? json(k.soap.element_count) : json(nullptr)},
            {"user_agent", k.user_agent},
            {"server", k.server},
            {"expect_continue", k.expect_continue},
            {"got_continue", k.got_continue},
            {"request_first_frame", k.request_first_frame},
            {"response_last_frame", k.response_last_frame ? json(k.response_last_frame) : json(nullptr)},
            {"start_ms", rel(k.start_ns)},
            {"latency_ms", k.complete ? json(round_ms(k.latency_ms)) : json(nullptr)},
            {"complete", k.complete},
            {"opened_connection", k.opened_connection},
            {"closed_connection", k.closed_connection},
            {"request", message_json(k.request)},
            {"response", message_json(k.response)},
            {"phases", phases},
            {"attribution", attribution},
            {"setup_ms", k.setup_ms >= 0 ? json(round_ms(k.setup_ms)) : json(nullptr)},
            {"client_ms", k.complete ? json(round_ms(client_ms(k))) : json(nullptr)},
            {"latency_view", place_name(k.view)},
            {"client_latency_estimate_ms",
             k.complete && k.client_path_ms >= 0 ? json(round_ms(k.latency_ms + k.client_path_ms)) : json(nullptr)}};
}

json finding_json(const Finding& f, const Rel& rel) {
    json details = json::object();
    for (auto& [key, v] : f.details) details[key] = v;
    json intervals = json::array();
    for (auto& i : f.intervals) intervals.push_back({{"start_ms", rel(i.start_ns)}, {"end_ms", rel(i.end_ns)}});
    return {{"kind", f.kind},
            {"side", side_name(f.side)},
            {"connection_id", f.connection_id},
            {"calls", f.calls},
            {"frames", f.frames},
            {"cost_ms", round_ms(f.cost_ms)},
            {"cost_method", f.cost_method},
            {"start_ms", rel(f.start_ns)},
            {"end_ms", rel(f.end_ns)},
            {"explanation", f.explanation},
            {"fix", f.fix},
            {"toolkit", f.toolkit.empty() ? json(nullptr) : json(f.toolkit)},
            {"toolkit_fix", f.toolkit_fix.empty() ? json(nullptr) : json(f.toolkit_fix)},
            {"details", details},
            {"counted_ms", round_ms(f.counted_ms)},
            {"intervals", intervals}};
}

// Writes one top-level object member by member, byte for byte as
// nlohmann's dump(indent) would write the whole document, so arrays of
// calls and findings never have to be built in memory.
class JsonDocWriter {
public:
    JsonDocWriter(std::ostream& os, int indent) : os_(os), indent_(indent) { os_ << '{'; }
    void member(const char* key, const json& value) {
        open(key);
        put(value, 1);
    }
    // An array member whose elements come from `each`, which calls the
    // function it is given once per element.
    template <class Each> void array(const char* key, Each each) {
        open(key);
        bool any = false;
        each([&](const json& v) {
            os_ << (any ? "," : "[");
            newline(2);
            put(v, 2);
            any = true;
        });
        if (!any) { os_ << "[]"; return; }
        newline(1);
        os_ << ']';
    }
    void close() {
        if (members_) newline(0);
        os_ << "}\n";
    }

private:
    void open(const char* key) {
        if (members_++) os_ << ',';
        newline(1);
        os_ << json(key).dump() << (indent_ >= 0 ? ": " : ":");
    }
    void newline(int depth) {
        if (indent_ >= 0) os_ << '\n' << std::string(size_t(depth * indent_), ' ');
    }
    // A value dumped alone, its lines shifted right to `depth`. Strings are
    // escaped in the dump, so every newline in it is layout.
    void put(const json& v, int depth) {
        // Hostile captures may carry invalid UTF-8 in URIs and headers: replace, never throw.
        std::string s = v.dump(indent_, ' ', false, json::error_handler_t::replace);
        if (indent_ <= 0) { os_ << s; return; }
        std::string pad = "\n" + std::string(size_t(depth * indent_), ' ');
        size_t from = 0;
        for (size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1)
            os_.write(s.data() + from, std::streamsize(nl - from)) << pad;
        os_.write(s.data() + from, std::streamsize(s.size() - from));
    }

    std::ostream& os_;
    int indent_;
    size_t members_ = 0;
};

} // namespace

void reference_write_report_json(const AnalysisResult& r, std::ostream& os, int indent) {
    Rel rel{r.capture.first_ns};
    JsonDocWriter doc(os, indent);
    doc.member("stallscope_version", "0.1.0");
    doc.member("capture", capture_json(r.capture));
    doc.member("capture_point", capture_point_summary_json(summarize_capture_point(r)));
    doc.array("connections", [&](auto emit) {
        for_each_connection(r, [&](const Connection& k) { emit(connection_json(k)); return true; });
    });
    const XmlSampling xml = xml_sampling_of(r);
    XmlCallSelector sample(xml);
    uint64_t calls = 0, whole = 0;
    doc.array("calls", [&](auto emit) {
        for_each_call(r, [&](const Call& k) {
            const bool measured = sample.selected(k) && whole_xml_measured(k);
            ++calls;
            whole += measured;
            emit(call_json(k, rel, measured));
            return true;
        });
    });
    doc.member("whole_xml", {{"sampled", !xml.full},
                             {"first_per_operation", xml.full ? json(nullptr) : json(xml.first)},
                             {"hash_one_in", xml.full ? json(nullptr) : json(xml.every)},
                             {"calls", calls},
                             {"calls_measured", whole}});
    doc.array("findings", [&](auto emit) {
        for_each_finding(r, [&](const Finding& f) { emit(finding_json(f, rel)); return true; });
    });
    json per_op = json::array();
    for (auto& g : r.summary.per_operation) per_op.push_back(group_json(g));
    doc.member("summary", {{"overall", group_json(r.summary.overall)}, {"per_operation", per_op}});
    doc.close();
}

std::string reference_report_json(const AnalysisResult& r, int indent) {
    std::ostringstream os;
    reference_write_report_json(r, os, indent);
    return os.str();
}

} // namespace stallscope::test
