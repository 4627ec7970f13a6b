#include "reference-services/refsvc/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace stallscope::refsvc {
namespace {

int ms_until(int64_t deadline_ns) {
    int64_t left = deadline_ns - monotonic_ns();
    if (left <= 0) return 0;
    return static_cast<int>(left / 1000000 + 1);
}

std::string sys_err(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Blocks until fd is ready for `events` or the deadline passes; false on timeout/stop.
bool wait_for(int fd, short events, int64_t deadline_ns, const volatile std::sig_atomic_t* stop) {
    for (;;) {
        if (stop && *stop) return false;
        int ms = ms_until(deadline_ns);
        if (ms <= 0) return false;
        pollfd p{fd, events, 0};
        int r = ::poll(&p, 1, ms > 200 ? 200 : ms);  // wake regularly to notice the stop flag
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return false;
    }
}

}  // namespace

int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int listen_ipv4(const std::string& addr, int port, int& bound_port, std::string& err) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { err = sys_err("socket"); return -1; }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0 || ::listen(fd, 64) < 0) {
        err = sys_err("bind/listen") + " (" + addr + ":" + std::to_string(port) + ")";
        ::close(fd);
        return -1;
    }
    socklen_t len = sizeof sa;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
    bound_port = ntohs(sa.sin_port);
    return fd;
}

int connect_ipv4(const std::string& addr, int port, int64_t deadline_ns, std::string& err) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) { err = sys_err("socket"); return -1; }
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
    int r = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    if (r < 0 && errno != EINPROGRESS) { err = sys_err("connect"); ::close(fd); return -1; }
    if (r < 0) {
        if (!wait_for(fd, POLLOUT, deadline_ns, nullptr)) { err = "connect: timed out"; ::close(fd); return -1; }
        int soerr = 0;
        socklen_t len = sizeof soerr;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
        if (soerr != 0) { err = std::string("connect: ") + std::strerror(soerr); ::close(fd); return -1; }
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // the write strategies want blocking writes
    return fd;
}

bool set_nodelay(int fd, bool on) {
    int v = on ? 1 : 0;
    return ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v) == 0;
}

void quickack_off(int fd) {
    int v = 0;
    ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &v, sizeof v);
}

Conn::~Conn() { close(); }

void Conn::close() {
    if (ssl_) {
        SSL_shutdown(ssl_);  // close_notify; we do not wait for the peer's
        SSL_free(ssl_);
        ssl_ = nullptr;
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

bool Conn::wait_readable(int64_t deadline_ns) { return wait_for(fd_, POLLIN, deadline_ns, stop_); }

long Conn::read_some(int64_t deadline_ns, std::string& err) {
    bool buffered = ssl_ && SSL_pending(ssl_) > 0;  // decrypted bytes poll() cannot see
    if (!buffered && !wait_for(fd_, POLLIN, deadline_ns, stop_)) {
        err = (stop_ && *stop_) ? "stopped" : "read timed out";
        return -1;
    }
    char buf[65536];
    ssize_t n;
    if (ssl_) {
        // A record holding only a TLS 1.3 session ticket yields no bytes: read on (bounded by SO_RCVTIMEO).
        int r;
        do { r = SSL_read(ssl_, buf, sizeof buf); }
        while (r <= 0 && SSL_get_error(ssl_, r) == SSL_ERROR_WANT_READ && monotonic_ns() < deadline_ns);
        if (delack_) quickack_off(fd_);
        if (r <= 0) {
            int e = SSL_get_error(ssl_, r);
            if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) return 0;
            err = e == SSL_ERROR_SYSCALL ? sys_err("SSL_read") : "SSL_read: TLS error " + std::to_string(e);
            return -1;
        }
        n = r;
    } else {
        do { n = ::recv(fd_, buf, sizeof buf, 0); } while (n < 0 && errno == EINTR);
        if (delack_) quickack_off(fd_);
        if (n < 0) { err = sys_err("recv"); return -1; }
    }
    in_.append(buf, static_cast<size_t>(n));
    return n;
}

bool Conn::write_all(const char* p, size_t n, int64_t deadline_ns, std::string& err) {
    ++writes_;
    while (n > 0) {
        if (!wait_for(fd_, POLLOUT, deadline_ns, stop_)) { err = "write timed out"; return false; }
        size_t w = 0;
        if (!send_some(p, n, w, err)) return false;
        p += w;
        n -= w;
    }
    return true;
}

// One send() or one SSL_write (which OpenSSL cuts into 16 KB records, each with its own send()).
bool Conn::send_some(const char* p, size_t n, size_t& sent, std::string& err) {
    sent = 0;
    if (ssl_) {
        int w = SSL_write(ssl_, p, static_cast<int>(n > 1u << 30 ? 1u << 30 : n));
        if (w <= 0) { err = "SSL_write: TLS error " + std::to_string(SSL_get_error(ssl_, w)); return false; }
        sent = static_cast<size_t>(w);
        return true;
    }
    ssize_t w;
    do { w = ::send(fd_, p, n, MSG_NOSIGNAL); } while (w < 0 && errno == EINTR);
    if (w < 0) { err = sys_err("send"); return false; }
    sent = static_cast<size_t>(w);
    return true;
}

bool Conn::write_message(const std::string& head, const std::string& body, WriteMode mode, int64_t deadline_ns,
                         std::string& err) {
    switch (mode) {
        case WriteMode::One: {
            std::string all = head + body;  // one buffer, one send()
            return write_all(all.data(), all.size(), deadline_ns, err);
        }
        case WriteMode::Writev: {
            if (ssl_) {  // TLS has no gather write: one SSL_write of both parts is the same one record
                std::string all = head + body;
                return write_all(all.data(), all.size(), deadline_ns, err);
            }
            iovec iov[2] = {{const_cast<char*>(head.data()), head.size()},
                            {const_cast<char*>(body.data()), body.size()}};
            size_t total = head.size() + body.size(), done = 0;
            ++writes_;
            while (done < total) {
                if (!wait_for(fd_, POLLOUT, deadline_ns, stop_)) { err = "write timed out"; return false; }
                ssize_t w = ::writev(fd_, iov, 2);
                if (w < 0 && errno == EINTR) continue;
                if (w < 0) { err = sys_err("writev"); return false; }
                done += static_cast<size_t>(w);
                if (done >= total) break;
                // Partial gather write: finish the rest with plain sends.
                std::string rest = (head + body).substr(done);
                return write_all(rest.data(), rest.size(), deadline_ns, err);
            }
            return true;
        }
        case WriteMode::Split:
            return write_all(head.data(), head.size(), deadline_ns, err) &&
                   (body.empty() || write_all(body.data(), body.size(), deadline_ns, err));
        case WriteMode::Many: {
            std::string all = head + body;
            for (size_t off = 0; off < all.size(); off += kManyWriteBytes) {
                size_t n = std::min(kManyWriteBytes, all.size() - off);
                if (!write_all(all.data() + off, n, deadline_ns, err)) return false;
            }
            return true;
        }
    }
    return false;
}

}  // namespace stallscope::refsvc
