#include "analyzers/report.h"

#include "analyzers/summary.h"

#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

namespace stallscope {

// ordered_json keeps fields in the documented order.
using json = nlohmann::ordered_json;

double round_ms(double ms) { return std::round(ms * 1000.0) / 1000.0; }
double ns_to_ms(int64_t ns) { return double(ns) / 1e6; }

std::string utc_time(int64_t ts_ns) {
    time_t secs = time_t(ts_ns / 1'000'000'000);
    long frac = long(ts_ns % 1'000'000'000);
    if (frac < 0) { frac += 1'000'000'000; --secs; }
    struct tm tm {};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
    return buf;
}

namespace {

json opt_ms(const std::optional<double>& v) { return v ? json(round_ms(*v)) : json(nullptr); }
template <class T> json opt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

json message_json(const MessageInfo& m) {
    return {{"first_frame", m.first_frame},   {"last_frame", m.last_frame}, {"header_bytes", m.header_bytes},
            {"body_bytes", m.body_bytes},     {"segments", m.write_sizes.size()},
            {"write_sizes", m.write_sizes},   {"complete", m.complete}};
}

json group_json(const SummaryGroup& g) {
    json losses = json::array();
    for (auto& k : g.losses)
        losses.push_back({{"kind", k.kind}, {"findings", k.findings}, {"calls", k.calls},
                          {"lost_ms", round_ms(k.lost_ms)}, {"share", std::round(k.share * 10000) / 10000}});
    json j = {{"calls", g.latency.calls},
              {"median_ms", round_ms(g.latency.median_ms)},
              {"p90_ms", round_ms(g.latency.p90_ms)},
              {"max_ms", round_ms(g.latency.max_ms)},
              {"mean_ms", round_ms(g.latency.mean_ms)},
              {"total_ms", round_ms(g.latency.total_ms)},
              {"lost", losses},
              {"predicted_median_ms", round_ms(g.predicted_median_ms)},
              {"predicted_total_ms", round_ms(g.predicted_total_ms)}};
    if (!g.operation.empty()) j["operation"] = g.operation;
    return j;
}

} // namespace

std::string report_json(const AnalysisResult& r, int indent) {
    const CaptureInfo& c = r.capture;
    int64_t t0 = c.first_ns;
    auto rel = [&](int64_t ns) { return round_ms(ns_to_ms(ns - t0)); };

    json warnings = json::array();
    for (auto& w : c.warnings) {
        json jw = {{"message", w.message}};
        jw["frame"] = w.frame ? json(w.frame) : json(nullptr);
        jw["offset"] = w.offset ? json(w.offset) : json(nullptr);
        jw["connection"] = w.connection_id ? json(w.connection_id) : json(nullptr);
        warnings.push_back(jw);
    }
    json doc;
    doc["stallscope_version"] = "0.1.0";
    doc["capture"] = {{"file", c.file},
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

    json conns = json::array();
    for (auto& k : r.connections) {
        conns.push_back({{"id", k.id},
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
                         {"calls", k.calls}});
    }
    doc["connections"] = conns;

    json calls = json::array();
    for (auto& k : r.calls) {
        json phases = json::array();
        for (auto& p : k.phases)
            phases.push_back({{"phase", phase_name(p.kind)}, {"start_ms", rel(p.start_ns)},
                              {"duration_ms", round_ms(p.duration_ms())}, {"start_frame", p.start_frame},
                              {"end_frame", p.end_frame}});
        json fault = nullptr;
        const SoapInfo& fs = k.soap_response.fault ? k.soap_response : k.soap;
        if (fs.fault) fault = {{"code", fs.fault_code}, {"string", fs.fault_string}};
        json soap_error = nullptr;
        if (!k.soap.error.empty()) soap_error = k.soap.error;
        else if (!k.soap_response.error.empty()) soap_error = k.soap_response.error;
        calls.push_back({{"id", k.id},
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
                         {"element_count", k.soap.element_count},
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
                         {"phases", phases}});
    }
    doc["calls"] = calls;

    json findings = json::array();
    for (auto& f : r.findings) {
        json details = json::object();
        for (auto& [key, v] : f.details) details[key] = v;
        findings.push_back({{"kind", f.kind},
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
                            {"details", details}});
    }
    doc["findings"] = findings;

    json per_op = json::array();
    for (auto& g : r.summary.per_operation) per_op.push_back(group_json(g));
    doc["summary"] = {{"overall", group_json(r.summary.overall)}, {"per_operation", per_op}};
    // Hostile captures may carry invalid UTF-8 in URIs and headers: replace, never throw.
    return doc.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace stallscope
