#pragma once
// Writes a pcapng file while packets arrive (one section, one interface,
// nanosecond timestamps), so that the file is useful even if the program
// dies: the Section Header and Interface Description go to the kernel at
// once, and packets are handed to it at least every flush interval. A kill
// can then cut the file only after the last flushed block or inside a block
// being written, and our reader stops cleanly at such a truncated block.
//
// Durability: flush() write()s the buffer (enough to survive SIGKILL of
// this process); sync() also fsync()s (survives a system crash), done
// less often because it waits for the disk.
#include "capture/frame.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

struct PcapngInterface {
    int linktype = 1;            // LINKTYPE_*
    uint32_t snaplen = 262144;
    std::string name;            // if_name ("lo")
    std::string filter;          // if_filter (libpcap expression), if any
};

struct PcapngFlushPolicy {
    int64_t flush_interval_ns = 100'000'000;  // write() buffered blocks at least this often
    size_t flush_packets = 256;               // ... or after this many packets
    size_t flush_bytes = 1 << 20;             // ... or when this much is buffered
    int64_t sync_interval_ns = 1'000'000'000; // fsync() at most this often
};

class PcapngStreamWriter {
public:
    // Creates (truncates) path and writes SHB + IDB to the kernel at once.
    // nullptr with error set on failure.
    static std::unique_ptr<PcapngStreamWriter> create(const std::string& path, const PcapngInterface& iface,
                                                      const std::string& application, std::string& error,
                                                      const PcapngFlushPolicy& policy = {});
    ~PcapngStreamWriter();  // close() if not done
    PcapngStreamWriter(const PcapngStreamWriter&) = delete;
    PcapngStreamWriter& operator=(const PcapngStreamWriter&) = delete;

    // Appends one Enhanced Packet Block and returns its file offset (where a
    // reader will find it). Flushes when the policy says so; now_ns is a
    // monotonic clock. False after a write error (see error()).
    bool write(const Frame& f, int64_t now_ns, uint64_t* offset = nullptr);
    // Appends a Decryption Secrets Block (e.g. type 0x544c534b "TLSK": NSS
    // key log lines) and hands it to the kernel at once, so a reader finds
    // the secrets before the packets written after them, even if we die.
    bool write_secrets(uint32_t secrets_type, const void* data, size_t size);
    // Call regularly (e.g. on each capture tick): flushes/syncs when due.
    bool tick(int64_t now_ns);
    bool flush();   // write() everything buffered
    bool sync();    // flush + fsync
    // Interface Statistics Block (packets received/dropped), then sync and
    // close. Stats are optional: pass nullptrs when unknown.
    bool close(const uint64_t* received = nullptr, const uint64_t* dropped = nullptr,
               int64_t start_ns = 0, int64_t end_ns = 0);

    const std::string& path() const { return path_; }
    const std::string& error() const { return error_; }
    uint64_t bytes_written() const { return file_offset_ + buf_.size(); }  // incl. buffered
    uint64_t packets() const { return packets_; }

private:
    PcapngStreamWriter() = default;
    bool fail(const std::string& what);

    std::string path_;
    int fd_ = -1;
    PcapngFlushPolicy policy_;
    std::vector<uint8_t> buf_;
    uint64_t file_offset_ = 0;       // bytes already handed to the kernel
    uint64_t packets_ = 0;
    size_t unflushed_packets_ = 0;
    int64_t last_flush_ns_ = 0, last_sync_ns_ = 0;
    bool dirty_since_sync_ = false;
    std::string error_;
};

} // namespace stallscope
