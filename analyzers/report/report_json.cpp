#include "analyzers/report/report.h"

#include "analyzers/accounting/call_ledger.h"
#include "analyzers/accounting/capture_point_summary.h"
#include "analyzers/result/capture_point.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/xml_sample.h"
#include "analyzers/report/json_calls.h"
#include "analyzers/report/json_call_record.h"
#include "analyzers/report/json_call_layout.h"
#include "analyzers/report/json_connection_layout.h"
#include "analyzers/report/json_details.h"
#include "analyzers/report/json_finding_layout.h"
#include "analyzers/report/report_json_general.h"

#include <cmath>
#include <ctime>
#include <sstream>

namespace stallscope {

double round_ms(double ms) { return std::round(ms * 1000.0) / 1000.0; }
double ns_to_ms(int64_t ns) { return double(ns) / 1e6; }

// A hostile result may hold any time: never overflow the difference.
double ms_between(int64_t ns, int64_t t0) {
    int64_t d = 0;
    if (__builtin_sub_overflow(ns, t0, &d)) return (double(ns) - double(t0)) / 1e6;
    return ns_to_ms(d);
}
double ms_since(int64_t ns, int64_t t0) { return round_ms(ms_between(ns, t0)); }

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

// Every object below is written member by member in the documented order
// (docs/json-format.md); the stream lays it out as nlohmann's dump(indent).
using Json = JsonStream;

// Routers before the capture point, null when the side's TTL is unknown.
void hops_or_null(Json& w, const char* key, int hops) {
    w.key(key);
    if (hops >= 0) w.value(int64_t(hops));
    else w.value(nullptr);
}

void opt_ms(Json& w, const std::optional<double>& v) {
    if (v) w.value_ms(*v);
    else w.value(nullptr);
}

void message_json(Json& w, const MessageInfo& m) {
    w.begin_object();
    w.member("first_frame", m.first_frame).member("last_frame", m.last_frame);
    w.member("header_bytes", m.header_bytes).member("body_bytes", m.body_bytes);
    w.member("segments", m.write_sizes.size()).member("write_sizes", m.write_sizes);
    w.member("complete", m.complete).member("missing_bytes", m.missing_bytes);
    w.end_object();
}

void group_json(Json& w, const SummaryGroup& g) {
    // No complete call: there is no median (null), though a sum over none is 0.
    auto lat = [&](const char* key, double v) {
        w.key(key);
        if (g.latency.calls) w.value_ms(v);
        else w.value(nullptr);
    };
    auto share = [&](double ms) { return g.latency.total_ms > 0 ? std::round(ms / g.latency.total_ms * 10000) / 10000 : 0.0; };
    w.begin_object();
    w.member("calls", g.latency.calls);
    lat("median_ms", g.latency.median_ms);
    lat("p90_ms", g.latency.p90_ms);
    lat("max_ms", g.latency.max_ms);
    lat("mean_ms", g.latency.mean_ms);
    w.member_ms("total_ms", g.latency.total_ms);
    w.key("lost").begin_array();
    for (auto& k : g.losses) {
        w.begin_object();
        w.member("kind", k.kind).member("findings", k.findings).member("calls", k.calls);
        w.member_ms("lost_ms", k.lost_ms).member("share", std::round(k.share * 10000) / 10000);
        w.member("avoidable", k.avoidable);
        w.end_object();
    }
    w.end_array();
    lat("predicted_median_ms", g.predicted_median_ms);
    w.member_ms("predicted_total_ms", g.predicted_total_ms);
    w.member_ms("avoidable_ms", g.avoidable_ms).member("avoidable_share", share(g.avoidable_ms));
    w.member_ms("server_ms", g.server_ms).member("server_share", share(g.server_ms));
    w.member_ms("transfer_ms", g.transfer_ms);
    w.key("attribution").begin_array();
    for (auto& t : g.attribution) {
        w.begin_object();
        w.member("cause", t.cause).member_ms("ms", t.ms).member("share", share(t.ms));
        w.end_object();
    }
    w.end_array();
    w.member_ms("setup_ms", g.setup_ms);
    lat("client_median_ms", g.client_latency.median_ms);
    lat("client_p90_ms", g.client_latency.p90_ms);
    w.key("what_if").begin_array();
    for (auto& f : g.what_if) {
        w.begin_object();
        w.member("kind", f.kind).member("side", f.side);
        w.member_ms("predicted_median_ms", f.predicted_median_ms);
        w.member_ms("predicted_p90_ms", f.predicted_p90_ms).member("calls", f.calls);
        if (f.client_time) w.member("of", "client_ms");
        w.end_object();
    }
    w.end_array();
    if (!g.operation.empty()) w.member("operation", g.operation);
    w.end_object();
}

// Times in the report are relative to the capture's first packet.
struct Rel {
    int64_t t0;
    double operator()(int64_t ns) const { return ms_between(ns, t0); }  // not rounded: written with value_ms
};

// 0 means "none" for frame numbers, offsets, ids and the status.
template <size_t N, class T> void nonzero(Json& w, const char (&key)[N], T v) {
    w.key(key);
    if (v) w.value(v);
    else w.value(nullptr);
}

// An empty string means "none".
template <size_t N> void nonempty(Json& w, const char (&key)[N], const std::string& s) {
    w.key(key);
    if (s.empty()) w.value(nullptr);
    else w.value(s);
}

void capture_json(Json& w, const CaptureInfo& c) {
    w.begin_object();
    w.member("file", c.file).member("format", c.format).member("packets", c.packets).member("bytes", c.bytes);
    w.member("link_types", c.link_types);
    w.key("start_time");
    if (c.packets) w.value(utc_time(c.first_ns));
    else w.value(nullptr);
    w.member_ms("duration_ms", ns_to_ms(c.last_ns - c.first_ns));
    w.member("truncated", c.truncated);
    w.member("non_tcp_packets", c.non_tcp_packets).member("undecodable_packets", c.undecodable_packets);
    if (!c.files.empty()) {
        // A file set: frames are numbered across it; frame_map locates each one.
        w.key("files").begin_array();
        for (auto& f : c.files) w.begin_object().member("file", f.path).member("frames", f.frames).end_object();
        w.end_array();
        w.key("frame_map").begin_array();
        for (auto& r : c.frame_runs) {
            w.begin_object().member("first_frame", r.first).member("file_index", uint64_t(r.file));
            w.member("file_frame", r.file_first).member("frames", r.count).end_object();
        }
        w.end_array();
    }
    w.key("warnings").begin_array();
    for (auto& x : c.warnings) {
        w.begin_object();
        w.member("code", warning_code_name(x.code));
        w.member("message", x.message);
        nonzero(w, "frame", x.frame);
        nonzero(w, "offset", x.offset);
        nonzero(w, "connection", x.connection_id);
        nonzero(w, "call", x.call_id);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

} // namespace

// The general path (report_json_general.h); connection_json_layout writes
// the same bytes from fixed runs where they fit.
void connection_json_general(JsonStream& w, const Connection& k) {
    w.begin_object();
    w.member("id", k.id).member("client", k.client.to_string()).member("server", k.server.to_string());
    w.member("saw_handshake", k.saw_syn);
    w.key("handshake_ms");
    opt_ms(w, k.handshake_ms);
    w.member("syn_retransmissions", k.syn_retransmissions);
    w.member("client_mss", k.client_mss).member("server_mss", k.server_mss);
    w.member("client_wscale", k.client_wscale).member("server_wscale", k.server_wscale);
    w.member("first_frame", k.first_frame).member("last_frame", k.last_frame).member("packets", k.packets);
    w.member("client_bytes", k.client_bytes).member("server_bytes", k.server_bytes);
    w.member("retransmissions", k.retransmissions).member("gap_bytes", k.gap_bytes);
    w.member("fin_client", k.fin_client).member("fin_server", k.fin_server).member("rst", k.rst);
    w.member("http", k.http).member("calls", k.calls);
    const PathPosition pos = path_position(k);
    w.key("capture_point").begin_object();
    w.member("where", place_name(place_of(pos)));
    w.key("client_side_ms");
    if (pos.known) w.value_ms(ns_to_ms(pos.client_ns));
    else w.value(nullptr);
    w.key("server_side_ms");
    if (pos.known) w.value_ms(ns_to_ms(pos.server_ns));
    else w.value(nullptr);
    w.member("from_handshake", pos.from_handshake).member("data_ack_pairs", pos.data_ack_pairs);
    hops_or_null(w, "client_hops", pos.client_hops);
    hops_or_null(w, "server_hops", pos.server_hops);
    w.end_object();
    if (k.tls) {  // only on TLS connections: plaintext reports keep their bytes
        const ConnectionTls& t = *k.tls;
        w.key("tls");
        w.begin_object();
        w.member("version", t.version).member("cipher_suite", t.cipher_suite);
        w.member("sni", t.sni).member("alpn", t.alpn);
        w.member("resumed", t.resumed).member("resumption_offered", t.resumption_offered);
        w.member("decrypted", t.decrypted).member("reason", t.reason);
        w.member("handshake_first_frame", t.handshake_first_frame).member("handshake_last_frame", t.handshake_last_frame);
        w.key("handshake_ms");
        opt_ms(w, t.handshake_last_frame ? std::optional<double>(ns_to_ms(t.handshake_end_ns - t.handshake_start_ns))
                                         : std::nullopt);
        w.member("certificate_bytes", t.certificate_bytes);
        w.member("server_flight_bytes", t.server_flight_bytes).member("server_flight_segments", t.server_flight_segments);
        w.member("session_tickets", t.session_tickets);
        w.member("record_overhead", t.record_overhead).member("sizes_exact", t.sizes_exact);
        w.end_object();
    }
    w.end_object();
}

namespace {

void capture_point_json(Json& w, const CapturePointSummary& s) {
    auto ms_or_null = [&](const char* key, double v) {
        w.key(key);
        if (v >= 0) w.value_ms(v);
        else w.value(nullptr);
    };
    w.begin_object();
    w.member("where", place_name(s.place));
    ms_or_null("client_side_ms", s.client_side_ms);
    ms_or_null("server_side_ms", s.server_side_ms);
    w.member("evidence", s.evidence);
    hops_or_null(w, "client_hops", s.client_hops);
    hops_or_null(w, "server_hops", s.server_hops);
    w.key("connections").begin_object();
    for (CapturePlace p : {CapturePlace::Client, CapturePlace::Path, CapturePlace::Server, CapturePlace::Both,
                           CapturePlace::Unknown})
        w.member(place_name(p), s.by_place[size_t(p)]);
    w.end_object();
    w.member("latency_view", s.view);
    w.end_object();
}

// `whole`: the call is in the whole-XML sample and was read whole
// (analyzers/accounting/xml_sample.h); else element_count is null.
// `marks`: element_count and the times are null, their places noted
// (json_call_record.h); `rel` and `whole` are not used.
// call_json_layout writes the same bytes from runs of fixed text where its
// runs fit (every indent up to 4); what follows is the general path.
void call_json(Json& w, const Call& k, const Rel& rel, bool whole, CallJsonMarks* marks = nullptr) {
    if (call_json_layout(w, k, rel.t0, whole, marks)) return;
    auto time = [&](int64_t ns) {
        if (!marks) return void(w.value_ms(rel(ns)));
        marks->times.push_back({w.written(), ns});
        w.value(nullptr);
    };
    w.begin_object();
    w.member("id", k.id).member("connection_id", k.connection_id);
    w.member("index_on_connection", k.index_on_connection);
    w.member("method", k.method).member("uri", k.uri).member("http_version", k.http_version);
    if (k.encrypted) w.member("encrypted", true);  // TLS without keys: method, URI, status unknown
    nonzero(w, "status", k.status);
    w.member("reason", k.reason);
    nonempty(w, "operation", k.soap.operation);
    nonempty(w, "namespace", k.soap.operation_ns);
    nonempty(w, "soap_version", k.soap.version);
    w.member("soap_action", k.soap_action);
    w.key("fault");
    const SoapInfo& fs = k.soap_response.fault ? k.soap_response : k.soap;
    if (fs.fault) w.begin_object().member("code", fs.fault_code).member("string", fs.fault_string).end_object();
    else w.value(nullptr);
    nonempty(w, "soap_error", !k.soap.error.empty() ? k.soap.error : k.soap_response.error);
    w.member("envelope_bytes", k.soap.bytes).key("element_count");
    if (marks) marks->element_count_at = w.written();
    if (whole && !marks) w.value(k.soap.element_count);
    else w.value(nullptr);
    w.member("user_agent", k.user_agent).member("server", k.server);
    w.member("expect_continue", k.expect_continue).member("got_continue", k.got_continue);
    w.member("request_first_frame", k.request_first_frame);
    nonzero(w, "response_last_frame", k.response_last_frame);
    w.key("start_ms");
    time(k.start_ns);
    w.key("latency_ms");
    if (k.complete) w.value_ms(k.latency_ms);
    else w.value(nullptr);
    w.member("complete", k.complete);
    w.member("opened_connection", k.opened_connection).member("closed_connection", k.closed_connection);
    w.key("request");
    message_json(w, k.request);
    w.key("response");
    message_json(w, k.response);
    w.key("phases").begin_array();
    for (auto& p : k.phases) {
        w.begin_object();
        w.member("phase", phase_name(p.kind)).key("start_ms");
        time(p.start_ns);
        w.member_ms("duration_ms", p.duration_ms());
        w.member("start_frame", p.start_frame).member("end_frame", p.end_frame);
        w.end_object();
    }
    w.end_array();
    w.key("attribution").begin_array();
    for (auto& t : k.attribution) w.begin_object().member("cause", t.cause).member_ms("ms", t.ms).end_object();
    w.end_array();
    w.key("setup_ms");
    if (k.setup_ms >= 0) w.value_ms(k.setup_ms);
    else w.value(nullptr);
    w.key("client_ms");
    if (k.complete) w.value_ms(client_ms(k));
    else w.value(nullptr);
    w.member("latency_view", place_name(k.view));
    w.key("client_latency_estimate_ms");
    if (k.complete && k.client_path_ms >= 0) w.value_ms(k.latency_ms + k.client_path_ms);
    else w.value(nullptr);
    w.end_object();
}

// details is an object: a key given twice keeps its first place and its
// last value (as the json object it once was built into).
void details_json(Json& w, const std::vector<std::pair<std::string, std::string>>& details) {
    w.begin_object();
    for_each_detail(details, [&](const std::string& key, const std::string& v) { w.member(key, v); });
    w.end_object();
}

// A file set's evidence frames as file + frame, for tools that open the
// file itself (Wireshark numbers frames per file). Only for file sets, so
// one file's report is unchanged.
void frame_locations_json(Json& w, const CaptureInfo& c, const std::vector<uint64_t>& frames) {
    if (c.files.empty()) return;
    w.key("frame_locations").begin_array();
    for (uint64_t n : frames) {
        uint32_t file = 0;
        uint64_t file_frame = 0;
        w.begin_object().member("frame", n);
        if (locate_frame(c, n, file, file_frame) && file < c.files.size()) {
            w.member("file_index", uint64_t(file)).member("file", c.files[file].path).member("file_frame", file_frame);
        } else {
            w.key("file_index").value(nullptr);
            w.key("file").value(nullptr);
            w.key("file_frame").value(nullptr);
        }
        w.end_object();
    }
    w.end_array();
}

} // namespace

// The general path (report_json_general.h); finding_json_layout writes the
// same bytes from fixed runs where they fit.
void finding_json_general(JsonStream& w, const Finding& f, int64_t t0, const CaptureInfo& c) {
    const Rel rel{t0};
    w.begin_object();
    w.member("kind", f.kind).member("side", side_name(f.side)).member("connection_id", f.connection_id);
    w.member("calls", f.calls).member("frames", f.frames);
    frame_locations_json(w, c, f.frames);
    w.member_ms("cost_ms", f.cost_ms).member("cost_method", f.cost_method);
    w.member_ms("start_ms", rel(f.start_ns)).member_ms("end_ms", rel(f.end_ns));
    w.member("explanation", f.explanation).member("fix", f.fix);
    nonempty(w, "toolkit", f.toolkit);
    nonempty(w, "toolkit_fix", f.toolkit_fix);
    w.key("details");
    details_json(w, f.details);
    w.member_ms("counted_ms", f.counted_ms);
    w.key("intervals").begin_array();
    for (auto& i : f.intervals)
        w.begin_object().member_ms("start_ms", rel(i.start_ns)).member_ms("end_ms", rel(i.end_ns)).end_object();
    w.end_array();
    w.end_object();
}

namespace {

void call_element(Json& w, const Call& k, int64_t t0, bool measured) { call_json(w, k, Rel{t0}, measured); }

} // namespace

void call_json_marked(JsonStream& w, const Call& c, CallJsonMarks& marks) { call_json(w, c, Rel{0}, false, &marks); }

void write_report_json(const AnalysisResult& r, std::ostream& os, int indent, unsigned threads) {
    Rel rel{r.capture.first_ns};
    Json w(os, indent);
    w.begin_object();
    w.member("stallscope_version", "0.1.0");
    w.key("capture");
    capture_json(w, r.capture);
    w.key("capture_point");
    capture_point_json(w, summarize_capture_point(r));
    w.key("connections").begin_array();
    for_each_connection(r, [&](const Connection& k) {
        if (!connection_json_layout(w, k)) connection_json_general(w, k);
        return true;
    });
    w.end_array();
    w.key("calls").begin_array();
    const XmlSampling xml = xml_sampling_of(r);
    const CallsWritten written = write_calls_json(w, indent, r, threads, call_element);
    const uint64_t calls = written.calls, whole = written.measured;
    w.end_array();
    w.key("whole_xml").begin_object();
    w.member("sampled", !xml.full);
    w.key("first_per_operation");
    if (xml.full) w.value(nullptr);
    else w.value(xml.first);
    w.key("hash_one_in");
    if (xml.full) w.value(nullptr);
    else w.value(xml.every);
    w.member("calls", calls).member("calls_measured", whole);
    w.end_object();
    w.key("findings").begin_array();
    for_each_finding(r, [&](const Finding& f) {
        if (!finding_json_layout(w, f, rel.t0, r.capture)) finding_json_general(w, f, rel.t0, r.capture);
        return true;
    });
    w.end_array();
    w.key("summary").begin_object();
    w.key("overall");
    group_json(w, r.summary.overall);
    w.key("per_operation").begin_array();
    for (auto& g : r.summary.per_operation) group_json(w, g);
    w.end_array();
    w.end_object();
    w.end_object();
    w.raw("\n");
}

std::string report_json(const AnalysisResult& r, int indent) {
    std::ostringstream os;
    write_report_json(r, os, indent);
    return os.str();
}

} // namespace stallscope
