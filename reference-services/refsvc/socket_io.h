// POSIX socket helpers: connect/listen, socket options, deadline-bounded reads,
// and the write strategies whose segment patterns the profiles reproduce.
#pragma once
#include <csignal>
#include <cstdint>
#include <string>

#include "reference-services/refsvc/knobs.h"

typedef struct ssl_st SSL;

namespace stallscope::refsvc {

int64_t monotonic_ns();  // CLOCK_MONOTONIC

// Bytes per write() in WriteMode::Many.
constexpr size_t kManyWriteBytes = 64;

// All return -1 and set `err` on failure.
int listen_ipv4(const std::string& addr, int port, int& bound_port, std::string& err);
int connect_ipv4(const std::string& addr, int port, int64_t deadline_ns, std::string& err);
bool set_nodelay(int fd, bool on);
// TCP_QUICKACK=0: Linux then delays ACKs from now on like a Windows receiver (reset by the kernel, so
// callers redo it after every read).
void quickack_off(int fd);

// A connected socket with an input buffer; reads honour a deadline, the delack knob and a stop flag.
class Conn {
public:
    Conn(int fd, bool delack, const volatile std::sig_atomic_t* stop) : fd_(fd), delack_(delack), stop_(stop) {}
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn();
    int fd() const { return fd_; }
    // After a TLS handshake: reads and writes go through `ssl` (owned from now on), one write() = one
    // SSL_write, so the write strategies become the same pattern of TLS records.
    void attach_tls(SSL* ssl) { ssl_ = ssl; }
    SSL* tls() const { return ssl_; }
    void close();  // sends close_notify first under TLS
    // Appends to buffer(); returns >0 bytes, 0 on orderly EOF, -1 on error/timeout/stop (err set).
    long read_some(int64_t deadline_ns, std::string& err);
    // True if data is readable before the deadline (no bytes consumed).
    bool wait_readable(int64_t deadline_ns);
    std::string& buffer() { return in_; }
    // Writes head+body using the strategy; counts write() calls made. False + err on failure.
    bool write_message(const std::string& head, const std::string& body, WriteMode mode, int64_t deadline_ns,
                       std::string& err);
    bool write_all(const char* p, size_t n, int64_t deadline_ns, std::string& err);
    long writes_made() const { return writes_; }

private:
    bool send_some(const char* p, size_t n, size_t& sent, std::string& err);
    int fd_;
    SSL* ssl_ = nullptr;
    bool delack_;
    const volatile std::sig_atomic_t* stop_;
    std::string in_;
    long writes_ = 0;
};

}  // namespace stallscope::refsvc
