#include "analyzers/report/report.h"

#include "analyzers/accounting/call_findings.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/accounting/summary.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <sstream>

namespace stallscope {

namespace {

// RFC 4180 quoting; capture text may contain anything. Appended to `out`.
void q(std::string& out, std::string_view s) {
    bool need = s.find_first_of(",\"\r\n") != std::string_view::npos;
    // Do not let a spreadsheet run a formula from a capture.
    if (!need && !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) out += '\'';
    if (!need) {
        out += s;
        return;
    }
    out += '"';
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
}

std::string q(const std::string& s) {
    std::string out;
    q(out, s);
    return out;
}

// "%.3f" without printf: to_chars with a precision formats as printf does.
void num(std::string& out, double v) {
    char buf[400];  // the longest double in fixed notation, with 3 decimals
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    out.append(buf, r.ptr);
}

std::string num(double v) {
    std::string out;
    num(out, v);
    return out;
}

void integer(std::string& out, uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

double phase_ms(const Call& c, PhaseKind k) {
    double t = 0;
    for (auto& p : c.phases) if (p.kind == k) t += p.duration_ms();
    return t;
}

} // namespace

void write_report_csv(const AnalysisResult& r, std::ostream& os) {
    std::string out =
        "id,connection_id,method,uri,status,operation,namespace,fault_code,request_first_frame,response_last_frame,"
        "latency_ms,connect_ms,request_headers_ms,continue_wait_ms,request_body_ms,server_time_ms,"
        "response_headers_ms,response_body_ms,close_ms,findings,lost_ms,predicted_ms,setup_ms,client_ms,attribution\n";
    // Rows are appended to one buffer, handed to the stream in big chunks.
    constexpr size_t kChunk = 1 << 16;
    std::string parts;
    CallFindings found(r);
    for_each_call(r, [&](const Call& c) {
        double lost = stall_ms(c);  // the call ledger's stall part of the latency
        parts.clear();
        for (const TimeShare& t : c.attribution) {
            if (!parts.empty()) parts += ';';
            parts += t.cause;
            parts += '=';
            num(parts, t.ms);
        }
        const SoapInfo& fs = c.soap_response.fault ? c.soap_response : c.soap;
        integer(out, c.id);
        out += ',';
        integer(out, c.connection_id);
        out += ',';
        q(out, c.method);
        out += ',';
        q(out, c.uri);
        out += ',';
        if (c.status) out += std::to_string(c.status);
        out += ',';
        q(out, c.soap.operation);
        out += ',';
        q(out, c.soap.operation_ns);
        out += ',';
        q(out, fs.fault ? std::string_view(fs.fault_code) : std::string_view());
        out += ',';
        integer(out, c.request_first_frame);
        out += ',';
        if (c.response_last_frame) integer(out, c.response_last_frame);
        out += ',';
        if (c.complete) num(out, c.latency_ms);
        for (PhaseKind k : {PhaseKind::Connect, PhaseKind::RequestHeaders, PhaseKind::ContinueWait,
                            PhaseKind::RequestBody, PhaseKind::ServerTime, PhaseKind::ResponseHeaders,
                            PhaseKind::ResponseBody, PhaseKind::Close}) {
            out += ',';
            num(out, phase_ms(c, k));
        }
        out += ',';
        out += found.kinds(c.id, ";", true);
        out += ',';
        num(out, lost);
        out += ',';
        if (c.complete) num(out, std::max(0.0, c.latency_ms - lost));
        out += ',';
        if (c.setup_ms >= 0) num(out, c.setup_ms);
        out += ',';
        if (c.complete) num(out, client_ms(c));
        out += ',';
        q(out, parts);
        out += '\n';
        if (out.size() >= kChunk) {
            os.write(out.data(), std::streamsize(out.size()));
            out.clear();
        }
        return true;
    });
    os.write(out.data(), std::streamsize(out.size()));
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
