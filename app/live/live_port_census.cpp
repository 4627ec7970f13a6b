#include "app/live/live_port_census.h"

#include "capture/packet_decoder.h"

#include <algorithm>
#include <vector>

namespace stallscope::live {

PortCensus::~PortCensus() { stop(); }

bool PortCensus::start(const std::string& iface) {
    LiveCaptureOptions o;
    o.iface = iface;
    o.filter = "tcp";
    o.snaplen = 128;          // headers only
    o.buffer_bytes = 4 << 20;  // a census may drop under load: it only has to name ports
    std::string error;
    cap_ = LiveCapture::open(o, error);
    if (!cap_) return false;
    thread_ = std::thread([this] {
        cap_->run([this](const Frame& f) {
            DecodeResult d = decode_packet(f.linktype, f.data);
            if (d.status != DecodeStatus::Tcp) return;
            const TcpPacket& t = d.tcp;
            std::lock_guard lock(mu_);
            if ((t.flags & (tcpflag::kSyn | tcpflag::kAck)) == tcpflag::kSyn) ++counts_.connections[t.dst.port];
            ++counts_.segments[t.src.port];
            ++counts_.segments[t.dst.port];
        });
    });
    return true;
}

void PortCensus::stop() {
    if (cap_) cap_->stop();
    if (thread_.joinable()) thread_.join();
}

PortCensus::Counts PortCensus::counts() const {
    std::lock_guard lock(mu_);
    return counts_;
}

std::string PortCensus::describe(const std::string& iface) const {
    const Counts c = counts();
    // The busiest first, at most 8 of them.
    auto top = [](const std::map<uint16_t, uint64_t>& m, const std::string& unit) {
        std::vector<std::pair<uint16_t, uint64_t>> v(m.begin(), m.end());
        std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
        std::string out;
        for (size_t i = 0; i < v.size() && i < 8; ++i)
            out += (i ? ", " : "") + std::to_string(v[i].first) + " (" + std::to_string(v[i].second) + " " + unit +
                   (v[i].second == 1 ? "" : "s") + ")";
        if (v.size() > 8) out += ", and " + std::to_string(v.size() - 8) + " more";
        return out;
    };
    if (!c.connections.empty())
        return "TCP connections on " + iface + " went to port " + top(c.connections, "connection");
    if (!c.segments.empty()) return "no TCP connection was opened on " + iface + "; TCP ports seen: " + top(c.segments, "segment");
    return "no TCP packet at all was seen on " + iface;
}

} // namespace stallscope::live
