#pragma once
// Reads pcap and pcapng files, plain or gzip-compressed, frame by frame
// (streaming, one frame in memory). The only file-reading code that includes <pcap.h>.
#include "capture/frame.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace stallscope {

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
    // True when every frame's bytes stay valid (and unchanged) until this
    // reader is destroyed, not just until the next read: a memory-mapped
    // file. The threaded analysis then hands a segment's payload to its
    // worker as a view instead of copying it.
    virtual bool frames_outlive_next() const { return false; }
    // Work a thread other than the reading one may do for this reader while
    // it would otherwise wait: one short step of getting the file's bytes
    // ready a little ahead of the reader (a mapped file: its page tables, so
    // the reader finds its pages mapped instead of faulting them in). False
    // when there is nothing to do now (far enough ahead, or at the end).
    // Empty when the reader has no such work. Callable from any thread, at
    // once with next(), for as long as the reader lives.
    using AheadWork = std::function<bool()>;
    virtual AheadWork ahead_work() { return {}; }
    // Frames keep the timestamps the file gives them, even when they go
    // backwards or are 0: what such a time means is the analysis's call
    // (analyzers/pipeline/frame_clock.h), which also warns about it, once.

    // pcapng Decryption Secrets Blocks: each one's secrets type (0x544c534b
    // "TLSK" is an NSS key log), its data and the block's file offset, handed
    // over when the block is read, so before the packets after it. Never
    // called for classic pcap.
    using SecretsSink = std::function<void(uint32_t type, std::span<const uint8_t> data, uint64_t offset)>;
    virtual void set_secrets_sink(SecretsSink sink) { secrets_sink_ = std::move(sink); }

protected:
    SecretsSink secrets_sink_;
};

} // namespace stallscope
