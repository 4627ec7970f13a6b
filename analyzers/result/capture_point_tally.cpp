#include "analyzers/result/capture_point_tally.h"

#include "analyzers/result/capture_point.h"

#include <algorithm>

namespace stallscope {

namespace {
double median_ms(std::vector<int64_t>& v) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    int64_t ns = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    return double(ns) / 1e6;
}

std::string view_of(CapturePlace p) {
    switch (p) {
    case CapturePlace::Client:
        return "the client's: what the client lived, from its first request byte to its last response byte";
    case CapturePlace::Server:
        return "the server's: they leave out the way to the client and back; the client lived about that much "
               "more per call (client_latency_estimate_ms)";
    case CapturePlace::Path:
        return "a point in the path's: they leave out the way from there to the client and back; the client lived "
               "about that much more per call (client_latency_estimate_ms)";
    case CapturePlace::Both:
        return "both ends': the round trip is under 1 ms, so the client's and the server's views are the same";
    case CapturePlace::Unknown: break;
    }
    return "the capture point's, which is unknown: no connection showed both sides' round trips";
}

std::string routers(int n) { return std::to_string(n) + (n == 1 ? " router" : " routers"); }

// "TTLs: the client's packets passed 0 routers before the capture point, the server's 1"
std::string ttl_evidence(int client_hops, int server_hops) {
    return "TTLs: the client's packets passed " + routers(client_hops) + " before the capture point, the server's " +
           std::to_string(server_hops);
}
} // namespace

void CapturePointTally::add(const Connection& c) {
    if (!c.http && !(c.tls && c.calls)) return;  // HTTP, or TLS with calls (read with keys or not)
    PathPosition p = path_position(c);
    CapturePlace place = place_of(p);
    ++s_.by_place[size_t(place)];
    if (p.client_hops >= 0 && p.server_hops >= 0) ++hops_[{p.client_hops, p.server_hops}];
    if (!p.known) {
        s_.by_ttl += place != CapturePlace::Unknown;
        return;
    }
    ++s_.connections;
    s_.from_handshake += p.from_handshake;
    s_.data_ack_pairs += p.data_ack_pairs;
    client_.push_back(p.client_ns);
    server_.push_back(p.server_ns);
}

CapturePointSummary CapturePointTally::done() const {
    CapturePointSummary s = s_;
    std::vector<int64_t> client = client_, server = server_;  // sorted for the medians
    // The place most placed connections agree on (a tie: the nearer to "path").
    uint64_t best = 0;
    for (CapturePlace p : {CapturePlace::Path, CapturePlace::Client, CapturePlace::Server, CapturePlace::Both})
        if (s.by_place[size_t(p)] > best) { best = s.by_place[size_t(p)]; s.place = p; }
    uint64_t most = 0;
    for (const auto& [pair, n] : hops_)
        if (n > most) { most = n; s.client_hops = pair.first; s.server_hops = pair.second; }
    s.client_side_ms = median_ms(client);
    s.server_side_ms = median_ms(server);
    if (s.connections == 0 && s.client_hops < 0)
        s.evidence = "none: no HTTP or HTTPS connection showed a handshake or data/ACK pairs both ways";
    else if (s.connections == 0)
        s.evidence = "only " + ttl_evidence(s.client_hops, s.server_hops) +
                     " (no HTTP or HTTPS connection showed a handshake or data/ACK pairs both ways)";
    else {
        s.evidence = "the handshakes of " + std::to_string(s.from_handshake) + " of " + std::to_string(s.connections) +
                     " connection" + (s.connections == 1 ? "" : "s") + " and " + std::to_string(s.data_ack_pairs) +
                     " data/ACK pair" + (s.data_ack_pairs == 1 ? "" : "s");
        if (s.client_hops >= 0) s.evidence += "; " + ttl_evidence(s.client_hops, s.server_hops);
        if (s.by_ttl) s.evidence += "; " + std::to_string(s.by_ttl) + " more placed by their TTLs alone";
    }
    s.view = view_of(s.place);
    return s;
}

} // namespace stallscope
