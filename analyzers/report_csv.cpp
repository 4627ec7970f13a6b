#include "analyzers/report.h"

#include "analyzers/call_findings.h"
#include "analyzers/result_spill.h"
#include "analyzers/call_ledger.h"
#include "analyzers/summary.h"

#include <algorithm>
#include <sstream>

namespace stallscope {

namespace {

// RFC 4180 quoting; capture text may contain anything.
std::string q(const std::string& s) {
    bool need = s.find_first_of(",\"\r\n") != std::string::npos;
    std::string out = need ? "\"" : "";
    for (char ch : s) { if (ch == '"') out += '"'; out += ch; }
    if (need) out += '"';
    // Do not let a spreadsheet run a formula from a capture.
    if (!out.empty() && (out[0] == '=' || out[0] == '+' || out[0] == '-' || out[0] == '@')) out = "'" + out;
    return out;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

double phase_ms(const Call& c, PhaseKind k) {
    double t = 0;
    for (auto& p : c.phases) if (p.kind == k) t += p.duration_ms();
    return t;
}

} // namespace

void write_report_csv(const AnalysisResult& r, std::ostream& os) {
    os << "id,connection_id,method,uri,status,operation,namespace,fault_code,request_first_frame,response_last_frame,"
          "latency_ms,connect_ms,request_headers_ms,continue_wait_ms,request_body_ms,server_time_ms,"
          "response_headers_ms,response_body_ms,close_ms,findings,lost_ms,predicted_ms,setup_ms,client_ms,attribution\n";
    CallFindings found(r);
    for_each_call(r, [&](const Call& c) {
        double lost = stall_ms(c);  // the call ledger's stall part of the latency
        std::string parts;
        for (const TimeShare& t : c.attribution) parts += (parts.empty() ? "" : ";") + t.cause + "=" + num(t.ms);
        const SoapInfo& fs = c.soap_response.fault ? c.soap_response : c.soap;
        os << std::to_string(c.id) + "," + std::to_string(c.connection_id) + "," + q(c.method) + "," + q(c.uri) + "," +
                  (c.status ? std::to_string(c.status) : "") + "," + q(c.soap.operation) + "," + q(c.soap.operation_ns) +
                  "," + q(fs.fault ? fs.fault_code : "") + "," + std::to_string(c.request_first_frame) + "," +
                  (c.response_last_frame ? std::to_string(c.response_last_frame) : "") + "," +
                  (c.complete ? num(c.latency_ms) : "") + "," + num(phase_ms(c, PhaseKind::Connect)) + "," +
                  num(phase_ms(c, PhaseKind::RequestHeaders)) + "," + num(phase_ms(c, PhaseKind::ContinueWait)) + "," +
                  num(phase_ms(c, PhaseKind::RequestBody)) + "," + num(phase_ms(c, PhaseKind::ServerTime)) + "," +
                  num(phase_ms(c, PhaseKind::ResponseHeaders)) + "," + num(phase_ms(c, PhaseKind::ResponseBody)) + "," +
                  num(phase_ms(c, PhaseKind::Close)) + "," + found.kinds(c.id, ";", true) + "," + num(lost) + "," +
                  (c.complete ? num(std::max(0.0, c.latency_ms - lost)) : "") + "," +
                  (c.setup_ms >= 0 ? num(c.setup_ms) : "") + "," + (c.complete ? num(client_ms(c)) : "") + "," +
                  q(parts) + "\n";
        return true;
    });
}

std::string report_csv(const AnalysisResult& r) {
    std::ostringstream os;
    write_report_csv(r, os);
    return os.str();
}

std::string report_csv_summary(const AnalysisResult& r) {
    std::string out = "operation,calls,median_ms,p90_ms,max_ms,kind,findings,calls_affected,lost_ms,share,predicted_median_ms\n";
    auto rows = [&](const std::string& name, const SummaryGroup& g) {
        // No complete call: latencies are unknown (empty), not 0.
        auto lat = [&](double v) { return g.latency.calls ? num(v) : std::string(); };
        std::string head = q(name) + "," + std::to_string(g.latency.calls) + "," + lat(g.latency.median_ms) + "," +
                           lat(g.latency.p90_ms) + "," + lat(g.latency.max_ms) + ",";
        if (g.losses.empty()) out += head + ",0,0,0.000,0.0000," + lat(g.predicted_median_ms) + "\n";
        for (auto& k : g.losses) {
            char share[32];
            std::snprintf(share, sizeof share, "%.4f", k.share);
            out += head + k.kind + "," + std::to_string(k.findings) + "," + std::to_string(k.calls) + "," +
                   num(k.lost_ms) + "," + share + "," + lat(g.predicted_median_ms) + "\n";
        }
    };
    rows("(all)", r.summary.overall);
    for (auto& g : r.summary.per_operation) rows(g.operation, g);
    return out;
}

} // namespace stallscope
