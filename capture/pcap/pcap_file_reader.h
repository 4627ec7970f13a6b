#pragma once
// Reads pcap and pcapng files frame by frame (streaming, one frame in
// memory). The only file-reading code that includes <pcap.h>.
#include "capture/frame.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

// A problem that does not stop reading. The message does not name the file
// (whoever shows it does); it starts with "frame N: " when it has a frame.
struct ReaderWarning {
    std::string message;
    uint64_t frame = 0;   // 0 = none
    uint64_t offset = 0;  // file offset of that frame's record
};

class PcapFileReader {
public:
    enum class Status { Ok, End, Error };

    // nullptr on failure; error then reads "<path>: <reason> (offset N)".
    static std::unique_ptr<PcapFileReader> open(const std::string& path, std::string& error);
    virtual ~PcapFileReader() = default;

    // Next frame; bytes valid until the next call. After Error, error()
    // names the file, the reason and the byte offset; frames already read
    // stay valid results (a truncated file is analysed up to the damage).
    virtual Status next(Frame& out) = 0;
    virtual const std::string& error() const = 0;
    virtual uint64_t error_offset() const = 0;

    virtual uint64_t file_size() const = 0;   // for progress
    virtual uint64_t position() const = 0;    // bytes consumed so far
    virtual std::string format() const = 0;   // "pcap", "pcap-ns", "pcapng"
    // Warnings that do not stop reading (e.g. timestamps going backwards).
    virtual std::vector<ReaderWarning> take_warnings() { return {}; }
};

} // namespace stallscope
