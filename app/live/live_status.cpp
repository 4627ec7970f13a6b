#include "app/live/live_status.h"

#include <cstdio>
#include <map>

namespace stallscope::live {

std::string human_bytes(uint64_t b) {
    char buf[32];
    if (b >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", double(b) / double(1u << 20));
    else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.0f KB", double(b) / 1024.0);
    else std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)b);
    return buf;
}

std::string status_line(const SessionStatus& st, const AnalysisResult& r) {
    uint64_t open = 0;
    for (const Call& c : r.calls)
        if (!c.complete) ++open;
    const LatencyStats& lat = r.summary.overall.latency;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.1f s  %llu pkts", st.elapsed_s, (unsigned long long)st.packets);
    std::string s = buf;
    if (st.packets > st.analysed + 1000) {  // small lags come and go every refresh
        std::snprintf(buf, sizeof buf, " (analysis %llu behind)", (unsigned long long)(st.packets - st.analysed));
        s += buf;
    }
    if (st.kernel.valid && (st.kernel.dropped || st.kernel.if_dropped)) {
        std::snprintf(buf, sizeof buf, "  DROPPED %llu", (unsigned long long)(st.kernel.dropped + st.kernel.if_dropped));
        s += buf;
    }
    std::snprintf(buf, sizeof buf, "  %llu calls", (unsigned long long)(r.calls.size() - open));
    s += buf;
    if (open) s += " (+" + std::to_string(open) + " open)";
    if (lat.calls) {
        std::snprintf(buf, sizeof buf, "  median %.1f ms  p90 %.1f ms", lat.median_ms, lat.p90_ms);
        s += buf;
    }
    std::map<std::string, uint64_t> kinds;
    for (const Finding& f : r.findings) ++kinds[f.kind];
    if (!kinds.empty()) {
        s += "  |";
        for (auto& [k, n] : kinds) s += " " + k + " x" + std::to_string(n);
    }
    s += "  | " + human_bytes(st.file_bytes);
    if (st.failed) s += "  | STOPPED: " + st.error;
    return s;
}

} // namespace stallscope::live
