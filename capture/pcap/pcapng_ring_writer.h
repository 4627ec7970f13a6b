#pragma once
// The live capture's file, or a ring of files for runs that must not fill
// the disk (dumpcap -b filesize:KB -b files:N; issue 24). Files are named as
// dumpcap names them, OUT's stem + _NNNNN_YYYYmmddHHMMSS + OUT's extension,
// so `analyze` (and Wireshark's File Set dialog) finds the set from any of
// them. A file is switched once it holds at least file_bytes; with `files`
// set, the oldest file is deleted when a new one would make more.
//
// Nothing lost: each file is a PcapngStreamWriter (flushed as packets come),
// and a file is synced and closed before the next is created, so after a
// SIGKILL every kept file but the last is whole and the last is cut only
// after its last flushed block.
#include "capture/pcap/pcapng_writer.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

struct RingOptions {
    uint64_t file_bytes = 0;  // switch files past this size; 0: one file, OUT itself
    uint32_t files = 0;       // keep at most this many (0: keep every file)
    bool enabled() const { return file_bytes > 0; }
};

class PcapngRingWriter {
public:
    // Creates the first file. nullptr with error set on failure.
    static std::unique_ptr<PcapngRingWriter> create(const std::string& out_path, const PcapngInterface& iface,
                                                    const std::string& application, const RingOptions& ring,
                                                    std::string& error, const PcapngFlushPolicy& policy = {});
    ~PcapngRingWriter();

    // As PcapngStreamWriter's; write() first switches files when the current one is full.
    // offset: within the file the packet went to.
    bool write(const Frame& f, int64_t now_ns, uint64_t* offset = nullptr);
    bool tick(int64_t now_ns);
    bool flush();
    // A Decryption Secrets Block into the current file, before the packets
    // written after it. Not repeated in later files: a connection that
    // crosses into the next file is decrypted when the set is read as one
    // capture, and one whose handshake file was deleted has no handshake left.
    bool write_secrets(uint32_t secrets_type, const void* data, size_t size);
    // The last file gets the interface statistics.
    bool close(const uint64_t* received = nullptr, const uint64_t* dropped = nullptr, int64_t start_ns = 0,
               int64_t end_ns = 0);

    const std::string& error() const { return error_; }
    uint64_t bytes_written() const;   // of the files kept (incl. buffered)
    // The files on disk, oldest first (one file: OUT itself).
    std::vector<std::string> files() const;
    uint64_t files_deleted() const { return deleted_; }

    // The name of ring file `number` (1, 2, ...) of OUT, opened at wall time `wall_s`.
    static std::string ring_file_name(const std::string& out_path, uint64_t number, int64_t wall_s);

private:
    PcapngRingWriter() = default;
    bool open_next();

    std::string out_path_, application_;
    PcapngInterface iface_;
    RingOptions ring_;
    PcapngFlushPolicy policy_;
    std::unique_ptr<PcapngStreamWriter> cur_;
    std::deque<std::pair<std::string, uint64_t>> closed_;  // kept closed files and their sizes
    uint64_t number_ = 0, deleted_ = 0;
    std::string error_;
};

} // namespace stallscope
