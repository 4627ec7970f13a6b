// stallscope-delaylink: a user-space wire with a one-way delay between two TUN devices.
//
// These machines' kernel has no netem qdisc, so a real round trip is made here: each end is a TUN
// device created in a network namespace of our choosing; every IP packet read from one end is written
// to the other after DELAY ms plus a uniform jitter in [0, JITTER) ms, never before the packet ahead of
// it in the same direction (the wire keeps order, as one link does). The TUN devices vanish when the
// program exits.
//
//   stallscope-delaylink --a NETNS:DEV --b NETNS:DEV --delay-ms D [--jitter-ms J] [--max-seconds S]
//                        [--seed N] [--mtu M]
//
// NETNS is a name under /run/netns ("-" = the namespace we run in). Prints "ready A B" on stdout once
// both devices exist (the caller then gives them addresses), a summary on stderr at the end. Stops on
// SIGINT/SIGTERM or after --max-seconds (default 600).
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "delaylink: %s\n", what.c_str());
    std::exit(1);
}

struct EndSpec {
    std::string netns;  // "-" = current
    std::string dev;
};

EndSpec parse_end(const char* arg) {
    std::string s(arg);
    auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) fail("expected NETNS:DEV, got '" + s + "'");
    EndSpec e{s.substr(0, colon), s.substr(colon + 1)};
    if (e.dev.size() >= IFNAMSIZ) fail("device name too long: " + e.dev);
    return e;
}

// Enters namespace `name` (by its /run/netns file) so that the next TUN device is created there.
void enter_netns(const std::string& name, int home_fd) {
    if (name == "-") {
        if (setns(home_fd, CLONE_NEWNET) != 0) fail(std::string("setns(home): ") + std::strerror(errno));
        return;
    }
    std::string path = "/run/netns/" + name;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open " + path + ": " + std::strerror(errno));
    if (setns(fd, CLONE_NEWNET) != 0) fail("setns(" + name + "): " + std::strerror(errno));
    close(fd);
}

int open_tun(const EndSpec& e, int home_fd) {
    enter_netns(e.netns, home_fd);
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) fail(std::string("open /dev/net/tun: ") + std::strerror(errno));
    ifreq ifr{};
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;  // bare IP packets; no vnet header, so no GSO super-packets
    std::strncpy(ifr.ifr_name, e.dev.c_str(), IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) fail("TUNSETIFF " + e.dev + ": " + std::strerror(errno));
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) fail("O_NONBLOCK");
    return fd;
}

struct Held {
    int64_t release_ns;
    std::vector<uint8_t> bytes;
};

// One direction of the wire: packets read from `from` wait in `queue` until their release time.
struct Direction {
    int from = -1, to = -1;
    std::deque<Held> queue;
    int64_t last_release = 0;
    uint64_t packets = 0, bytes = 0, dropped = 0, late_writes = 0;
    int64_t max_lateness_ns = 0;
    size_t max_queue = 0;
};

constexpr size_t kMaxQueued = 65536;  // bounded memory: about 100 MB of full-size packets at most

struct Link {
    Direction dir[2];
    int64_t delay_ns = 0, jitter_ns = 0;
    std::mt19937_64 rng;

    void read_all(Direction& d) {
        uint8_t buf[65536];
        for (int i = 0; i < 1024; ++i) {  // bounded: the other direction gets its turn
            ssize_t n = read(d.from, buf, sizeof buf);
            if (n <= 0) {
                if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                    fail(std::string("read: ") + std::strerror(errno));
                return;
            }
            if (d.queue.size() >= kMaxQueued) { ++d.dropped; continue; }
            int64_t jitter = jitter_ns > 0 ? static_cast<int64_t>(rng() % static_cast<uint64_t>(jitter_ns)) : 0;
            int64_t release = now_ns() + delay_ns + jitter;
            if (release < d.last_release) release = d.last_release;  // never overtake the packet ahead
            d.last_release = release;
            d.queue.push_back(Held{release, std::vector<uint8_t>(buf, buf + n)});
            if (d.queue.size() > d.max_queue) d.max_queue = d.queue.size();
        }
    }

    void release_due(Direction& d, int64_t now) {
        while (!d.queue.empty() && d.queue.front().release_ns <= now) {
            const Held& h = d.queue.front();
            int64_t late = now - h.release_ns;
            if (late > d.max_lateness_ns) d.max_lateness_ns = late;
            if (late > 1000000) ++d.late_writes;
            // A TUN write hands the packet to the kernel's input path; it does not block.
            if (write(d.to, h.bytes.data(), h.bytes.size()) < 0 && errno != EIO)
                std::fprintf(stderr, "delaylink: write: %s\n", std::strerror(errno));
            ++d.packets;
            d.bytes += h.bytes.size();
            d.queue.pop_front();
        }
    }

    int64_t next_release() const {
        int64_t next = INT64_MAX;
        for (const auto& d : dir)
            if (!d.queue.empty() && d.queue.front().release_ns < next) next = d.queue.front().release_ns;
        return next;
    }
};

double parse_double(const char* s, const char* what) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || v < 0 || v > 10000) fail(std::string("bad ") + what + ": " + s);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    EndSpec a, b;
    double delay_ms = -1, jitter_ms = 0, max_seconds = 600;
    uint64_t seed = 1;
    for (int i = 1; i < argc; ++i) {
        std::string o = argv[i];
        if (i + 1 >= argc) fail("option " + o + " needs a value (see the comment at the top of delay_link_main.cpp)");
        const char* v = argv[++i];
        if (o == "--a") a = parse_end(v);
        else if (o == "--b") b = parse_end(v);
        else if (o == "--delay-ms") delay_ms = parse_double(v, "--delay-ms");
        else if (o == "--jitter-ms") jitter_ms = parse_double(v, "--jitter-ms");
        else if (o == "--max-seconds") max_seconds = parse_double(v, "--max-seconds");
        else if (o == "--seed") seed = std::strtoull(v, nullptr, 10);
        else fail("unknown option " + o);
    }
    if (a.dev.empty() || b.dev.empty() || delay_ms < 0)
        fail("usage: stallscope-delaylink --a NETNS:DEV --b NETNS:DEV --delay-ms D [--jitter-ms J] [--max-seconds S] [--seed N]");

    struct sigaction sa{};
    sa.sa_handler = on_signal;  // no SA_RESTART: ppoll returns EINTR and the loop sees g_stop
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake within a microsecond of the release time, not 50
    // On a loaded machine a normal process wakes milliseconds late, which would add to the delay.
    // The link does almost no work, so a real-time priority costs the others nothing.
    sched_param sp{};
    sp.sched_priority = 10;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        std::fprintf(stderr, "delaylink: no real-time priority (%s); releases may be late under load\n", std::strerror(errno));

    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0) fail("cannot open /proc/self/ns/net");
    int fa = open_tun(a, home);
    int fb = open_tun(b, home);
    enter_netns("-", home);

    Link link;
    link.delay_ns = static_cast<int64_t>(delay_ms * 1e6);
    link.jitter_ns = static_cast<int64_t>(jitter_ms * 1e6);
    link.rng.seed(seed);
    link.dir[0].from = fa; link.dir[0].to = fb;
    link.dir[1].from = fb; link.dir[1].to = fa;
    std::printf("ready %s %s\n", a.dev.c_str(), b.dev.c_str());
    std::fflush(stdout);

    const int64_t deadline = now_ns() + static_cast<int64_t>(max_seconds * 1e9);
    while (!g_stop && now_ns() < deadline) {
        int64_t now = now_ns();
        int64_t wake = std::min(link.next_release(), deadline);
        int64_t wait = wake > now ? wake - now : 0;
        timespec ts{static_cast<time_t>(wait / 1000000000), static_cast<long>(wait % 1000000000)};
        pollfd p[2] = {{fa, POLLIN, 0}, {fb, POLLIN, 0}};
        int r = ppoll(p, 2, &ts, nullptr);
        if (r < 0 && errno != EINTR) fail(std::string("ppoll: ") + std::strerror(errno));
        if (r > 0) {
            if (p[0].revents & POLLIN) link.read_all(link.dir[0]);
            if (p[1].revents & POLLIN) link.read_all(link.dir[1]);
            if ((p[0].revents | p[1].revents) & (POLLERR | POLLHUP | POLLNVAL)) fail("TUN device gone");
        }
        now = now_ns();
        link.release_due(link.dir[0], now);
        link.release_due(link.dir[1], now);
    }
    for (int i = 0; i < 2; ++i) {
        const Direction& d = link.dir[i];
        std::fprintf(stderr,
                     "delaylink: %s->%s: %llu packets, %llu bytes, %llu dropped (queue full), max queue %zu, "
                     "%llu written >1 ms late (max %.3f ms), %zu still held at exit\n",
                     i == 0 ? a.dev.c_str() : b.dev.c_str(), i == 0 ? b.dev.c_str() : a.dev.c_str(),
                     static_cast<unsigned long long>(d.packets), static_cast<unsigned long long>(d.bytes),
                     static_cast<unsigned long long>(d.dropped), d.max_queue,
                     static_cast<unsigned long long>(d.late_writes), d.max_lateness_ns / 1e6, d.queue.size());
    }
    return 0;
}
