#pragma once
// Live capture from a network interface with libpcap.
//
// Why our own poll loop instead of pcap_loop/pcap_next_ex: on Linux the
// libpcap read timeout does not make a blocked read return while the
// interface is quiet, so a capture could never be stopped on an idle link.
// The handle is non-blocking and run() polls its fd together with an eventfd
// that stop() writes to: stop() returns the loop at once from any thread
// (and is async-signal-safe), and run() also wakes every tick_ms so callers
// can flush files and refresh views while nothing arrives.
#include "capture/frame.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

struct LiveCaptureOptions {
    std::string iface = "lo";
    std::string filter;              // BPF expression; empty = everything
    int snaplen = 262144;            // loopback GSO frames reach 64 KB
    // Kernel ring size: the slack while the capture thread is not scheduled
    // (a loaded machine) or busy analysing. Measurements: docs/live-capture.md.
    int buffer_bytes = 64 << 20;
    // Immediate mode (TPACKET_V2) gives each packet a fixed slot of the
    // interface's maximum frame size: 64 KB + on loopback, so 32 MB is only
    // 256 slots and a full-rate scenario dropped half its packets. Off (the
    // default), the kernel packs packets into blocks (TPACKET_V3) and hands
    // a block over when full or after timeout_ms: packets arrive up to
    // timeout_ms late, which a live view does not notice.
    bool immediate = false;
    int timeout_ms = 50;
    bool promiscuous = false;
};

struct LiveStats {
    bool valid = false;              // pcap_stats worked
    uint64_t received = 0;           // ps_recv (packets that matched the filter)
    uint64_t dropped = 0;            // ps_drop: ring buffer full
    uint64_t if_dropped = 0;         // ps_ifdrop: dropped by the interface/driver
};

class LiveCapture {
public:
    enum class OpenError { None, Permission, NoSuchDevice, BadFilter, NotUp, Other };
    enum class RunEnd { Stopped, Error };

    // Activates the capture (packets are buffered by the kernel from now on).
    // nullptr on failure; error is a full sentence, kind says which failure.
    static std::unique_ptr<LiveCapture> open(const LiveCaptureOptions& options, std::string& error,
                                             OpenError* kind = nullptr);
    // Names of the interfaces libpcap can capture on ("lo", "eth0", "any"...).
    static std::vector<std::string> interface_names();
    ~LiveCapture();
    LiveCapture(const LiveCapture&) = delete;
    LiveCapture& operator=(const LiveCapture&) = delete;

    int linktype() const { return linktype_; }       // LINKTYPE_* of the interface
    uint32_t snaplen() const { return snaplen_; }
    const LiveCaptureOptions& options() const { return opt_; }
    bool nanosecond_timestamps() const { return nano_; }

    // Delivers every packet to on_frame (bytes valid during the call only;
    // Frame::number counts from 1) and calls on_tick at least every tick_ms.
    // Returns Stopped after stop(), Error when the interface fails (gone,
    // down); error() then says what happened. Packets delivered before an
    // error stay valid. Call from one thread at a time.
    RunEnd run(const std::function<void(const Frame&)>& on_frame, const std::function<void()>& on_tick = {},
               int tick_ms = 100);
    // Makes run() return promptly (now, or as soon as it is entered), after
    // collecting the packets the kernel still holds (at most ~timeout_ms).
    // Safe from any thread and from signal handlers.
    void stop();
    bool stop_requested() const { return stop_.load(); }

    // Kernel counters since open (valid=false when libpcap cannot tell).
    LiveStats stats();
    const std::string& error() const { return error_; }
    uint64_t frames() const { return frames_; }

private:
    LiveCapture() = default;

    LiveCaptureOptions opt_;
    void* handle_ = nullptr;  // pcap_t*; <pcap.h> stays in the .cpp
    int wake_fd_ = -1;        // eventfd written by stop()
    int linktype_ = 0;
    uint32_t snaplen_ = 0;
    bool nano_ = false;
    std::atomic<bool> stop_{false};
    uint64_t frames_ = 0;
    std::string error_;
};

} // namespace stallscope
