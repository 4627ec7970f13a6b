#include "capture/pcap/live_capture.h"

#include <pcap.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace stallscope {

namespace {

pcap_t* P(void* h) { return static_cast<pcap_t*>(h); }

// pcap_datalink() gives DLT_* values; they equal LINKTYPE_* except for a few
// historical ones, of which only raw IP shows up on Linux (tun devices).
int linktype_of(int dlt) {
#ifdef DLT_RAW
    if (dlt == DLT_RAW) return 101;  // LINKTYPE_RAW
#endif
    return dlt;
}


bool is_loopback(const std::string& name) {
    char errbuf[PCAP_ERRBUF_SIZE] = {};
    pcap_if_t* all = nullptr;
    bool lo = false;
    if (pcap_findalldevs(&all, errbuf) != 0) return name == "lo";
    for (pcap_if_t* d = all; d; d = d->next)
        if (name == d->name) lo = (d->flags & PCAP_IF_LOOPBACK) != 0;
    pcap_freealldevs(all);
    return lo;
}

struct DispatchCtx {
    LiveCapture* self;
    const std::function<void(const Frame&)>* on_frame;
    pcap_t* p;
    uint64_t* frames;
    int linktype;
    bool nano;
    std::exception_ptr failure;  // an exception must not unwind through libpcap's C frames
};

void on_packet(u_char* user, const pcap_pkthdr* h, const u_char* bytes) {
    auto* c = reinterpret_cast<DispatchCtx*>(user);
    if (c->failure) return;
    Frame f;
    f.number = ++*c->frames;
    const int64_t frac = int64_t(h->ts.tv_usec);
    f.ts_ns = int64_t(h->ts.tv_sec) * 1000000000 + (c->nano ? frac : frac * 1000);
    f.linktype = c->linktype;
    f.origlen = h->len;
    f.data = std::span<const uint8_t>(bytes, h->caplen);
    try {
        (*c->on_frame)(f);
    } catch (...) {
        c->failure = std::current_exception();
        pcap_breakloop(c->p);
    }
}

int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Why pcap_activate failed, in words and as a kind.
LiveCapture::OpenError activation_error(pcap_t* p, int rc, const std::string& ifname, std::string& error) {
    using E = LiveCapture::OpenError;
    const std::string detail = pcap_geterr(p);
    switch (rc) {
    case PCAP_ERROR_PERM_DENIED:
    case PCAP_ERROR_PROMISC_PERM_DENIED:
        error = "no permission to capture on '" + ifname + "' (" + detail + ")";
        return E::Permission;
    case PCAP_ERROR_NO_SUCH_DEVICE: {
        error = "no such interface '" + ifname + "'";
        std::string names;
        for (auto& n : LiveCapture::interface_names()) names += (names.empty() ? "" : ", ") + n;
        if (!names.empty()) error += " (interfaces: " + names + ")";
        return E::NoSuchDevice;
    }
    case PCAP_ERROR_IFACE_NOT_UP:
        error = "interface '" + ifname + "' is not up";
        return E::NotUp;
    default:
        error = "cannot capture on '" + ifname + "': " + (detail.empty() ? pcap_statustostr(rc) : detail);
        // libpcap reports EPERM from socket() as a generic error on some paths.
        return detail.find("ermission") != std::string::npos ? E::Permission : E::Other;
    }
}

bool set_filter(pcap_t* p, const std::string& filter, std::string& error) {
    bpf_program prog{};
    if (pcap_compile(p, &prog, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
        error = "bad capture filter '" + filter + "': " + pcap_geterr(p);
        return false;
    }
    const int sf = pcap_setfilter(p, &prog);
    pcap_freecode(&prog);
    if (sf != 0) {
        error = "cannot set capture filter '" + filter + "': " + pcap_geterr(p);
        return false;
    }
    return true;
}

} // namespace

std::unique_ptr<LiveCapture> LiveCapture::open(const LiveCaptureOptions& options, std::string& error,
                                               OpenError* kind) {
    auto set_kind = [&](OpenError k) {
        if (kind) *kind = k;
    };
    set_kind(OpenError::None);
    const std::string& ifname = options.iface;
    char errbuf[PCAP_ERRBUF_SIZE] = {};
    pcap_t* p = pcap_create(ifname.c_str(), errbuf);
    if (!p) {
        error = "cannot capture on '" + ifname + "': " + errbuf;
        set_kind(OpenError::Other);
        return nullptr;
    }
    std::unique_ptr<LiveCapture> lc(new LiveCapture());
    lc->opt_ = options;
    lc->handle_ = p;
    pcap_set_snaplen(p, options.snaplen);
    pcap_set_promisc(p, options.promiscuous ? 1 : 0);
    // Block timeout (TPACKET_V3): how late a packet may be handed over.
    pcap_set_timeout(p, options.timeout_ms > 0 ? options.timeout_ms : 50);
    if (options.immediate) pcap_set_immediate_mode(p, 1);
    pcap_set_buffer_size(p, options.buffer_bytes);
    // Nanoseconds where the kernel offers them; microseconds otherwise.
    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);

    if (const int rc = pcap_activate(p); rc < 0) {
        set_kind(activation_error(p, rc, ifname, error));
        return nullptr;  // lc's destructor closes p
    }
    // On loopback every packet passes twice, as sent and as received; the
    // kernel puts both copies in the ring and libpcap drops the sent ones
    // afterwards. Asking for incoming only (PACKET_IGNORE_OUTGOING) keeps
    // them out of the ring: half the ring use, nothing lost.
    if (is_loopback(ifname)) pcap_setdirection(p, PCAP_D_IN);
    lc->linktype_ = linktype_of(pcap_datalink(p));
    lc->snaplen_ = uint32_t(pcap_snapshot(p));
    lc->nano_ = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
    if (!options.filter.empty() && !set_filter(p, options.filter, error)) {
        set_kind(OpenError::BadFilter);
        return nullptr;
    }
    if (pcap_setnonblock(p, 1, errbuf) != 0) {
        error = "cannot capture on '" + ifname + "': " + errbuf;
        set_kind(OpenError::Other);
        return nullptr;
    }
    const int fd = pcap_get_selectable_fd(p);
    if (fd < 0) {
        error = "cannot capture on '" + ifname + "': no selectable file descriptor";
        set_kind(OpenError::Other);
        return nullptr;
    }
    // Child processes (servers, clients) must not inherit the packet socket.
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    lc->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (lc->wake_fd_ < 0) {
        error = std::string("eventfd: ") + std::strerror(errno);
        set_kind(OpenError::Other);
        return nullptr;
    }
    return lc;
}

std::vector<std::string> LiveCapture::interface_names() {
    std::vector<std::string> names;
    char errbuf[PCAP_ERRBUF_SIZE] = {};
    pcap_if_t* all = nullptr;
    if (pcap_findalldevs(&all, errbuf) != 0) return names;
    for (pcap_if_t* d = all; d; d = d->next) names.emplace_back(d->name);
    pcap_freealldevs(all);
    return names;
}

LiveCapture::~LiveCapture() {
    if (handle_) pcap_close(P(handle_));
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

void LiveCapture::stop() {
    stop_.store(true);
    if (wake_fd_ >= 0) {
        uint64_t one = 1;
        ssize_t r = ::write(wake_fd_, &one, sizeof one);
        (void)r;  // EAGAIN only when the counter is already huge: still woken
    }
}

LiveCapture::RunEnd LiveCapture::run(const std::function<void(const Frame&)>& on_frame,
                                     const std::function<void()>& on_tick, int tick_ms) {
    pcap_t* p = P(handle_);
    const int fd = pcap_get_selectable_fd(p);
    DispatchCtx ctx{this, &on_frame, p, &frames_, linktype_, nano_, nullptr};
    if (tick_ms < 1) tick_ms = 1;
    int64_t next_tick = now_ms() + tick_ms;
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};

    auto fail = [&](const std::string& msg) {
        error_ = msg;
        return RunEnd::Error;
    };
    while (!stop_.load()) {
        const int64_t wait = next_tick - now_ms();
        fds[0].revents = fds[1].revents = 0;
        const int n = ::poll(fds, 2, wait < 0 ? 0 : int(wait));
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(std::string("poll: ") + std::strerror(errno));
        }
        if (fds[1].revents) {
            uint64_t v;
            ssize_t r = ::read(wake_fd_, &v, sizeof v);
            (void)r;
        }
        if (stop_.load()) break;
        if (fds[0].revents) {
            // Bounded: a flood must not starve stop() and the ticks.
            int got = 0;
            for (int i = 0; i < 64 && !stop_.load(); ++i) {
                got = pcap_dispatch(p, -1, on_packet, reinterpret_cast<u_char*>(&ctx));
                if (ctx.failure) std::rethrow_exception(ctx.failure);
                if (got == PCAP_ERROR_BREAK) break;
                if (got < 0) {
                    std::string detail = pcap_geterr(p);
                    return fail("capture on '" + opt_.iface + "' failed: " +
                                (detail.empty() ? std::string("read error") : detail));
                }
                if (got == 0) break;
            }
            // An error condition libpcap did not turn into an error return
            // would make poll() return at once forever: treat it as fatal.
            if (got == 0 && (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL))) {
                int so_err = 0;
                socklen_t len = sizeof so_err;
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_err, &len);
                return fail("capture on '" + opt_.iface + "' failed: " +
                            (so_err ? std::strerror(so_err) : "socket error or hangup"));
            }
        }
        if (now_ms() >= next_tick) {
            if (on_tick) on_tick();
            next_tick = now_ms() + tick_ms;
        }
    }
    // Stopped: collect what the kernel already has, including a block it
    // hands over only when its timeout expires (bounded by that timeout).
    const int64_t drain_until = now_ms() + (opt_.immediate ? 0 : opt_.timeout_ms) + 20;
    for (int round = 0; round < 1000 && now_ms() <= drain_until; ++round) {
        const int got = pcap_dispatch(p, -1, on_packet, reinterpret_cast<u_char*>(&ctx));
        if (ctx.failure) std::rethrow_exception(ctx.failure);
        if (got < 0) break;  // the interface failed meanwhile: keep what we have
        if (got > 0) continue;
        const int64_t left = drain_until - now_ms();
        if (left <= 0) break;
        pollfd pf{fd, POLLIN, 0};
        if (::poll(&pf, 1, int(left)) <= 0) break;
    }
    return RunEnd::Stopped;
}

LiveStats LiveCapture::stats() {
    LiveStats s;
    pcap_stat ps{};
    if (handle_ && pcap_stats(P(handle_), &ps) == 0) {
        s.valid = true;
        s.received = ps.ps_recv;
        s.dropped = ps.ps_drop;
        s.if_dropped = ps.ps_ifdrop;
    }
    return s;
}

} // namespace stallscope
