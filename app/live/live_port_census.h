#pragma once
// Which TCP ports were used on an interface while a filtered capture ran.
// A filter that names the wrong port captures nothing, and "captured 0
// packets" does not say what to fix; a second capture on the same
// interface, TCP only and 128 bytes per packet, notes the destination port
// of every connection opened (SYN without ACK) and the ports of any other
// TCP segment, so the answer can name the ports that were really used.
#include "capture/pcap/live_capture.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace stallscope::live {

class PortCensus {
public:
    ~PortCensus();  // stop()
    // False when the interface cannot be opened a second time (then there is
    // simply no census; the main capture reports its own errors).
    bool start(const std::string& iface);
    void stop();

    struct Counts {
        std::map<uint16_t, uint64_t> connections;  // destination port -> SYNs seen
        std::map<uint16_t, uint64_t> segments;     // port (each side) -> TCP segments seen
    };
    Counts counts() const;
    // "TCP connections on lo went to port 8080 (3)" or what else was seen.
    std::string describe(const std::string& iface) const;

private:
    std::unique_ptr<LiveCapture> cap_;
    std::thread thread_;
    mutable std::mutex mu_;
    Counts counts_;  // bounded: at most one entry per port number
};

} // namespace stallscope::live
