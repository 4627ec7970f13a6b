#include "capture/pcap/pcapng_writer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace stallscope {

namespace {

// Blocks are written little-endian (the SHB's byte-order magic says so).
constexpr uint32_t kShb = 0x0A0D0D0A;
constexpr uint32_t kIdb = 1;
constexpr uint32_t kIsb = 5;
constexpr uint32_t kEpb = 6;
constexpr uint32_t kDsb = 10;
constexpr uint16_t kOptEnd = 0;
constexpr uint16_t kShbUserAppl = 4;
constexpr uint16_t kIfName = 2;
constexpr uint16_t kIfTsresol = 9;
constexpr uint16_t kIfFilter = 11;
constexpr uint16_t kIsbStart = 2, kIsbEnd = 3, kIsbIfRecv = 4, kIsbIfDrop = 5;

void put16(std::vector<uint8_t>& b, uint16_t v) {
    b.push_back(uint8_t(v));
    b.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& b, uint64_t v) {
    put32(b, uint32_t(v));
    put32(b, uint32_t(v >> 32));
}
void pad4(std::vector<uint8_t>& b) {
    while (b.size() % 4) b.push_back(0);
}
void option(std::vector<uint8_t>& b, uint16_t code, const void* data, size_t len) {
    if (len > 0xFFFF) len = 0xFFFF;  // option lengths are 16-bit
    put16(b, code);
    put16(b, uint16_t(len));
    const auto* p = static_cast<const uint8_t*>(data);
    b.insert(b.end(), p, p + len);
    pad4(b);
}
void option_str(std::vector<uint8_t>& b, uint16_t code, const std::string& s) { option(b, code, s.data(), s.size()); }
// Timestamps in the ISB are two 32-bit words, high first, in if_tsresol units.
void option_ts(std::vector<uint8_t>& b, uint16_t code, int64_t ns) {
    std::vector<uint8_t> v;
    put32(v, uint32_t(uint64_t(ns) >> 32));
    put32(v, uint32_t(uint64_t(ns)));
    option(b, code, v.data(), v.size());
}
void option_u64(std::vector<uint8_t>& b, uint16_t code, uint64_t x) {
    std::vector<uint8_t> v;
    put64(v, x);
    option(b, code, v.data(), v.size());
}

// Wraps body (everything after type+length) into a block appended to out.
void block(std::vector<uint8_t>& out, uint32_t type, const std::vector<uint8_t>& body) {
    const uint32_t len = uint32_t(12 + body.size());  // body is 4-aligned
    put32(out, type);
    put32(out, len);
    out.insert(out.end(), body.begin(), body.end());
    put32(out, len);
}

bool write_all(int fd, const uint8_t* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= size_t(w);
    }
    return true;
}

} // namespace

std::unique_ptr<PcapngStreamWriter> PcapngStreamWriter::create(const std::string& path, const PcapngInterface& iface,
                                                               const std::string& application, std::string& error,
                                                               const PcapngFlushPolicy& policy) {
    std::unique_ptr<PcapngStreamWriter> w(new PcapngStreamWriter());
    w->path_ = path;
    w->policy_ = policy;
    w->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd_ < 0) {
        error = path + ": cannot create: " + std::strerror(errno);
        return nullptr;
    }
    std::vector<uint8_t> body;
    put32(body, 0x1A2B3C4D);  // byte-order magic
    put16(body, 1);           // version 1.0
    put16(body, 0);
    put64(body, ~uint64_t(0));  // section length unknown (-1): we stream
    if (!application.empty()) option_str(body, kShbUserAppl, application);
    option(body, kOptEnd, nullptr, 0);
    block(w->buf_, kShb, body);

    body.clear();
    put16(body, uint16_t(iface.linktype));
    put16(body, 0);
    put32(body, iface.snaplen);
    if (!iface.name.empty()) option_str(body, kIfName, iface.name);
    if (!iface.filter.empty()) {
        std::string f(1, '\0');  // first byte 0: a libpcap filter string
        f += iface.filter;
        option_str(body, kIfFilter, f);
    }
    const uint8_t tsresol = 9;  // 10^-9 s: timestamps are nanoseconds
    option(body, kIfTsresol, &tsresol, 1);
    option(body, kOptEnd, nullptr, 0);
    block(w->buf_, kIdb, body);
    // A reader opening the file right away sees a valid, empty capture.
    if (!w->sync()) {
        error = w->error_;
        return nullptr;
    }
    return w;
}

PcapngStreamWriter::~PcapngStreamWriter() {
    if (fd_ >= 0) close();
}

bool PcapngStreamWriter::fail(const std::string& what) {
    if (error_.empty()) error_ = path_ + ": " + what + ": " + std::strerror(errno);
    return false;
}

bool PcapngStreamWriter::write(const Frame& f, int64_t now_ns, uint64_t* offset) {
    if (fd_ < 0 || !error_.empty()) return false;
    if (offset) *offset = file_offset_ + buf_.size();
    const size_t caplen = f.data.size();
    const size_t padded = (caplen + 3) & ~size_t(3);
    const uint32_t len = uint32_t(32 + padded);
    const uint64_t ts = uint64_t(f.ts_ns < 0 ? 0 : f.ts_ns);
    put32(buf_, kEpb);
    put32(buf_, len);
    put32(buf_, 0);  // interface 0
    put32(buf_, uint32_t(ts >> 32));
    put32(buf_, uint32_t(ts));
    put32(buf_, uint32_t(caplen));
    put32(buf_, f.origlen ? f.origlen : uint32_t(caplen));
    buf_.insert(buf_.end(), f.data.begin(), f.data.end());
    buf_.resize(buf_.size() + (padded - caplen), 0);
    put32(buf_, len);
    ++packets_;
    ++unflushed_packets_;
    if (unflushed_packets_ >= policy_.flush_packets || buf_.size() >= policy_.flush_bytes) {
        if (!flush()) return false;
        last_flush_ns_ = now_ns;
    }
    return tick(now_ns);
}

bool PcapngStreamWriter::write_secrets(uint32_t secrets_type, const void* data, size_t size) {
    if (fd_ < 0 || !error_.empty()) return false;
    if (size > (64u << 20)) {  // a block length must fit in 32 bits; no key log is this big
        errno = EFBIG;
        return fail("decryption secrets too large");
    }
    std::vector<uint8_t> body;
    put32(body, secrets_type);
    put32(body, uint32_t(size));
    const auto* p = static_cast<const uint8_t*>(data);
    body.insert(body.end(), p, p + size);
    pad4(body);
    block(buf_, kDsb, body);
    return flush();
}

bool PcapngStreamWriter::tick(int64_t now_ns) {
    if (fd_ < 0 || !error_.empty()) return false;
    if (!buf_.empty() && now_ns - last_flush_ns_ >= policy_.flush_interval_ns) {
        if (!flush()) return false;
        last_flush_ns_ = now_ns;
    }
    if (dirty_since_sync_ && now_ns - last_sync_ns_ >= policy_.sync_interval_ns) {
        if (!sync()) return false;
        last_sync_ns_ = now_ns;
    }
    return true;
}

bool PcapngStreamWriter::flush() {
    if (fd_ < 0) return false;
    if (!error_.empty()) return false;
    if (buf_.empty()) return true;
    if (!write_all(fd_, buf_.data(), buf_.size())) return fail("write failed");
    file_offset_ += buf_.size();
    buf_.clear();
    unflushed_packets_ = 0;
    dirty_since_sync_ = true;
    return true;
}

bool PcapngStreamWriter::sync() {
    if (!flush()) return false;
    if (::fsync(fd_) != 0 && errno != EINVAL) return fail("fsync failed");
    dirty_since_sync_ = false;
    return true;
}

bool PcapngStreamWriter::close(const uint64_t* received, const uint64_t* dropped, int64_t start_ns,
                               int64_t end_ns) {
    if (fd_ < 0) return error_.empty();
    bool ok = error_.empty();
    if (ok && (received || dropped || end_ns)) {
        std::vector<uint8_t> body;
        put32(body, 0);  // interface 0
        const uint64_t ts = uint64_t(end_ns < 0 ? 0 : end_ns);
        put32(body, uint32_t(ts >> 32));
        put32(body, uint32_t(ts));
        if (start_ns > 0) option_ts(body, kIsbStart, start_ns);
        if (end_ns > 0) option_ts(body, kIsbEnd, end_ns);
        if (received) option_u64(body, kIsbIfRecv, *received);
        if (dropped) option_u64(body, kIsbIfDrop, *dropped);
        option(body, kOptEnd, nullptr, 0);
        block(buf_, kIsb, body);
    }
    if (ok) ok = sync();
    if (::close(fd_) != 0 && ok) ok = fail("close failed");
    fd_ = -1;
    return ok;
}

} // namespace stallscope
