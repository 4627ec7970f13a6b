#pragma once
// A small, strictly bounds-checked pcapng block reader (no libpcap).
//
// Why our own reader for ALL pcapng files instead of libpcap:
//  - libpcap 1.10 refuses a pcapng whose interfaces have different link types
//    ("an interface has a type ... different from the type of the first
//    interface"), and merged captures (e.g. "any" + lo) have exactly that;
//  - libpcap does not tell which interface a packet came from, so
//    Frame::interface_id and a per-packet link type are impossible with it;
//  - libpcap skips non-packet blocks inside pcap_next_ex, so ftell() before
//    the call is not the offset of the packet's block.
// Classic pcap: libpcap reads the header, mapped_pcap_reader.cpp the records.
#include "capture/byte_reader.h"
#include "capture/pcap/pcap_file_reader.h"
#include "capture/pcap/reader_support.h"

#include <cstdio>
#include <memory>

namespace stallscope {

class PcapngReader final : public PcapFileReader {
public:
    static constexpr uint32_t kMaxBlockLength = 256u << 20;  // 256 MiB

    // Takes ownership of `f` (positioned at offset 0) in all cases. Reads and
    // checks the first Section Header Block; nullptr + error on failure.
    static std::unique_ptr<PcapngReader> open(std::FILE* f, const std::string& path, uint64_t file_size,
                                              std::string& error);
    ~PcapngReader() override;

    Status next(Frame& out) override;
    const std::string& error() const override { return error_; }
    uint64_t error_offset() const override { return error_offset_; }
    uint64_t file_size() const override { return file_size_; }
    uint64_t position() const override { return pos_; }
    std::string format() const override { return "pcapng"; }

    size_t interface_count() const { return ifaces_.size(); }

private:
    struct Interface {
        int linktype = 0;
        uint32_t snaplen = 0;
        bool tsresol_binary = false;  // if_tsresol MSB: 2^-n instead of 10^-n
        uint8_t tsresol_exp = 6;      // default: microseconds
        int64_t tsoffset_s = 0;       // if_tsoffset, seconds
    };
    enum class BlockRead { Ok, End, Error };

    PcapngReader(std::FILE* f, std::string path, uint64_t file_size);
    BlockRead read_block(uint32_t& type);  // fills block_, block_offset_
    bool handle_shb();
    bool handle_idb();
    bool fail(const std::string& reason, uint64_t offset);
    Status failed(const std::string& reason);  // fail at the current block
    bool to_ns(const Interface& iface, uint64_t units, int64_t& ns) const;
    bool emit(Frame& out, uint32_t iface_id, int64_t ts_ns, uint32_t caplen, uint32_t origlen,
              std::span<const uint8_t> data);
    // The common tail of an enhanced (EPB) and a legacy (PB) packet block:
    // interface check, captured bytes, timestamp, emit.
    Status packet(ByteReader& r, const std::string& what, size_t in_section, uint32_t id, uint32_t ts_hi,
                  uint32_t ts_lo, uint32_t caplen, uint32_t origlen, Frame& out);

    std::FILE* f_ = nullptr;
    std::string path_;
    uint64_t file_size_ = 0;
    uint64_t pos_ = 0;
    Endian endian_ = Endian::Little;
    std::vector<uint8_t> block_;  // the whole current block, lengths included
    uint64_t block_offset_ = 0;
    std::vector<Interface> ifaces_;  // all sections; ids are global
    size_t section_first_iface_ = 0;
    uint64_t frame_number_ = 0;
    int64_t last_ts_ns_ = 0;
    Status state_ = Status::Ok;
    std::string error_;
    uint64_t error_offset_ = 0;
};

} // namespace stallscope
