// LiveCapture on loopback (needs root / CAP_NET_RAW; skipped otherwise).
#include "capture/pcap/live_capture.h"
#include "capture/tests/live_test_support.h"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace stallscope;

namespace {

// A UDP port on 127.0.0.1 nobody else uses while the socket is open.
struct UdpSink {
    int fd = -1;
    int port = 0;
    UdpSink() {
        fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    ~UdpSink() { ::close(fd); }
    void send_to_self(const std::string& text) const {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(uint16_t(port));
        ::sendto(fd, text.data(), text.size(), 0, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
};

std::unique_ptr<LiveCapture> open_lo(const std::string& filter) {
    LiveCaptureOptions o;
    o.iface = "lo";
    o.filter = filter;
    std::string err;
    auto cap = LiveCapture::open(o, err);
    INFO(err);
    REQUIRE(cap);
    return cap;
}

int64_t wall_ns() {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace

TEST_CASE("live capture: stop() from another thread ends a loop blocked on a quiet interface", "[live][root]") {
    test::skip_unless_can_capture();
    // A filter nothing on loopback matches: the loop has nothing to wake it.
    auto cap = open_lo("udp port 9 and udp port 7");
    std::atomic<int> ticks{0};
    auto done = std::async(std::launch::async, [&] {
        return cap->run([](const Frame&) {}, [&] { ++ticks; }, 50);
    });
    // Wait (bounded) until the loop is really inside run(): it ticks.
    for (int i = 0; i < 500 && ticks.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(ticks.load() >= 2);
    cap->stop();
    // A loop that ignored stop() would never finish; 20 s only bounds the test.
    REQUIRE(done.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(done.get() == LiveCapture::RunEnd::Stopped);
    CHECK(cap->frames() == 0);
}

TEST_CASE("live capture: stop() before run() makes run() return at once", "[live][root]") {
    test::skip_unless_can_capture();
    auto cap = open_lo("udp port 9 and udp port 7");
    cap->stop();
    int frames = 0;
    CHECK(cap->run([&](const Frame&) { ++frames; }) == LiveCapture::RunEnd::Stopped);
    CHECK(frames == 0);
}

TEST_CASE("live capture: loopback packets arrive with their bytes and nanosecond wall-clock times", "[live][root]") {
    test::skip_unless_can_capture();
    UdpSink sink;
    auto cap = open_lo("udp port " + std::to_string(sink.port));
    CHECK(cap->linktype() == 1);  // lo is Ethernet-framed (DLT_EN10MB)
    CHECK(cap->snaplen() == 262144u);
    std::mutex mu;
    std::vector<std::string> payloads;
    std::vector<int64_t> stamps;
    std::vector<uint64_t> numbers;
    const int64_t before = wall_ns();
    auto done = std::async(std::launch::async, [&] {
        return cap->run([&](const Frame& f) {
            std::lock_guard<std::mutex> l(mu);
            numbers.push_back(f.number);
            stamps.push_back(f.ts_ns);
            // Ethernet (14) + IPv4 without options (20) + UDP (8), then the payload.
            if (f.data.size() >= 14 + 20 + 8)
                payloads.emplace_back(reinterpret_cast<const char*>(f.data.data()) + 42, f.data.size() - 42);
        });
    });
    for (int i = 0; i < 3; ++i) sink.send_to_self("hello-" + std::to_string(i));
    for (int i = 0; i < 500; ++i) {
        {
            std::lock_guard<std::mutex> l(mu);
            if (payloads.size() >= 3) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cap->stop();
    REQUIRE(done.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    REQUIRE(done.get() == LiveCapture::RunEnd::Stopped);
    const int64_t after = wall_ns();
    std::lock_guard<std::mutex> l(mu);
    REQUIRE(payloads.size() == 3);
    for (int i = 0; i < 3; ++i) {
        CHECK(payloads[size_t(i)] == "hello-" + std::to_string(i));
        CHECK(numbers[size_t(i)] == uint64_t(i + 1));
        CHECK(stamps[size_t(i)] >= before - 1000000);  // kernel clock vs ours: allow 1 ms
        CHECK(stamps[size_t(i)] <= after + 1000000);
    }
    CHECK(stamps[0] <= stamps[1]);
    CHECK(stamps[1] <= stamps[2]);
    LiveStats st = cap->stats();
    CHECK(st.valid);
    CHECK(st.received >= 3);
    CHECK(st.dropped == 0);
}

TEST_CASE("live capture: a missing interface and a bad filter are reported as such", "[live][root]") {
    test::skip_unless_can_capture();
    std::string err;
    LiveCapture::OpenError kind = LiveCapture::OpenError::None;
    LiveCaptureOptions o;
    o.iface = "nosuchif0";
    CHECK_FALSE(LiveCapture::open(o, err, &kind));
    CHECK(kind == LiveCapture::OpenError::NoSuchDevice);
    CHECK(err.find("no such interface 'nosuchif0'") != std::string::npos);
    CHECK(err.find("lo") != std::string::npos);  // lists the interfaces there are

    o.iface = "lo";
    o.filter = "tcp port";
    err.clear();
    CHECK_FALSE(LiveCapture::open(o, err, &kind));
    CHECK(kind == LiveCapture::OpenError::BadFilter);
    CHECK(err.find("bad capture filter 'tcp port'") != std::string::npos);
    CHECK(err.find("syntax error") != std::string::npos);
}
