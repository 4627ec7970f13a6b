// Opening a capture file: sniff the magic, then classic pcap goes through
// libpcap and pcapng through our own block reader (pcapng_reader.h says why).
#include "capture/pcap/pcap_file_reader.h"

#include "capture/byte_reader.h"
#include "capture/packet_decoder.h"
#include "capture/pcap/gzip_file_reader.h"
#include "capture/pcap/gzip_stream.h"
#include "capture/pcap/mapped_pcap_reader.h"
#include "capture/pcap/pcapng_reader.h"
#include "capture/pcap/reader_support.h"

#include <pcap/pcap.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stallscope {

namespace {

using capture_detail::file_error;

constexpr uint32_t kPcapUs = 0xa1b2c3d4;
constexpr uint32_t kPcapNs = 0xa1b23c4d;
constexpr uint32_t kPcapModified = 0xa1b2cd34;  // Kuznetzov's patched pcap (µs)
constexpr uint32_t kPcapngShb = 0x0a0d0d0a;

uint32_t swap32(uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

// libpcap hands out DLT_* values; the decoder speaks LINKTYPE_*. They differ
// only for a few types, of which we decode DLT_RAW.
int dlt_to_linktype(int dlt) {
    if (dlt == DLT_RAW) return linktype::kRaw;
    return dlt;
}

// libpcap's max_snaplen_for_dlt(): a record's caplen past it is an error.
uint32_t max_caplen_for(int dlt) {
    switch (dlt) {
#ifdef DLT_DBUS
    case DLT_DBUS: return 128 * 1024 * 1024;
#endif
#ifdef DLT_EBHSCR
    case DLT_EBHSCR: return 8 * 1024 * 1024;
#endif
#ifdef DLT_USBPCAP
    case DLT_USBPCAP: return 1024 * 1024;
#endif
    default: return 262144;  // MAXIMUM_SNAPLEN
    }
}

constexpr uint64_t kUnknownSize = UINT64_MAX;  // a decompressed stream's size is known only at its end

// Turns libpcap's read error text into our reason wording.
std::string classify_read_error(const std::string& msg, uint64_t bytes_left) {
    const std::string left =
        bytes_left == kUnknownSize ? std::string() : ", " + std::to_string(bytes_left) + " bytes left in the file";
    if (msg.find("header bytes") != std::string::npos)
        return "truncated record header" + left + " [libpcap: " + msg + "]";
    if (msg.find("captured bytes") != std::string::npos)
        return "truncated record body" + left + " [libpcap: " + msg + "]";
    if (msg.find("capture length") != std::string::npos)
        return "absurd record length [libpcap: " + msg + "]";
    return "read error [libpcap: " + msg + "]";
}

class LibpcapFileReader final : public PcapFileReader {
public:
    LibpcapFileReader(pcap_t* p, std::string path, uint64_t size, std::string format, uint32_t record_header)
        : p_(p), path_(std::move(path)), size_(size), format_(std::move(format)),
          linktype_(dlt_to_linktype(pcap_datalink(p))), record_header_(record_header),
          snaplen_(uint32_t(std::max(0, pcap_snapshot(p)))) {
        pos_ = current_offset();
    }
    ~LibpcapFileReader() override { pcap_close(p_); }

    Status next(Frame& out) override {
        if (state_ != Status::Ok) return state_;
        const uint64_t record_offset = pos_;
        pcap_pkthdr* hdr = nullptr;
        const u_char* data = nullptr;
        const int rc = pcap_next_ex(p_, &hdr, &data);
        // A record is its header and its captured bytes, unless libpcap cut
        // it to the snapshot length (then it skipped the rest: ask the file).
        if (rc == 1 && record_header_ && hdr->caplen < snaplen_) pos_ = record_offset + record_header_ + hdr->caplen;
        else pos_ = current_offset();
        if (rc == PCAP_ERROR_BREAK) return state_ = Status::End;  // clean end of file
        if (rc != 1) {
            const uint64_t left = size_ == kUnknownSize ? kUnknownSize : size_ > record_offset ? size_ - record_offset : 0;
            error_offset_ = record_offset;
            error_ = file_error(path_, classify_read_error(pcap_geterr(p_), left), record_offset);
            return state_ = Status::Error;
        }
        ++number_;
        out = Frame{};
        out.number = number_;
        // Classic pcap seconds are unsigned 32-bit; libpcap stores them in a
        // signed field. With NANO precision tv_usec holds nanoseconds.
        out.ts_ns = int64_t(uint32_t(hdr->ts.tv_sec)) * 1000000000 + int64_t(hdr->ts.tv_usec);
        out.linktype = linktype_;
        out.interface_id = 0;
        out.origlen = hdr->len;
        out.file_offset = record_offset;
        out.data = std::span<const uint8_t>(data, hdr->caplen);
        return Status::Ok;
    }
    const std::string& error() const override { return error_; }
    uint64_t error_offset() const override { return error_offset_; }
    uint64_t file_size() const override { return size_; }
    uint64_t position() const override { return pos_; }
    std::string format() const override { return format_; }

private:
    uint64_t current_offset() const {
        long off = std::ftell(pcap_file(p_));
        return off < 0 ? pos_ : uint64_t(off);
    }

    pcap_t* p_;
    std::string path_;
    uint64_t size_;
    std::string format_;
    int linktype_;
    uint32_t record_header_;  // bytes before each record's data (0: unknown, ask the file each time)
    uint32_t snaplen_;
    uint64_t pos_ = 0;
    uint64_t number_ = 0;
    Status state_ = Status::Ok;
    std::string error_;
    uint64_t error_offset_ = 0;
};

// Opens the stream `f` (at offset 0, owned from here) whose first bytes are
// `magic`. `size` is kUnknownSize for a decompressed stream.
std::unique_ptr<PcapFileReader> open_stream(std::FILE* f, const std::string& path, uint64_t size, uint32_t magic,
                                            std::string& error) {
    if (magic == kPcapngShb) return PcapngReader::open(f, path, size, error);

    std::string format;
    uint32_t record_header = 16;  // ts_sec, ts_usec, caplen, len
    if (magic == kPcapModified || swap32(magic) == kPcapModified) record_header = 0;  // 24 or more: let the file say
    if (magic == kPcapUs || swap32(magic) == kPcapUs || magic == kPcapModified || swap32(magic) == kPcapModified)
        format = "pcap";
    else if (magic == kPcapNs || swap32(magic) == kPcapNs)
        format = "pcap-ns";
    else {
        std::fclose(f);
        char buf[128];
        std::snprintf(buf, sizeof buf, "%s (unknown magic 0x%08x)",
                      size == kUnknownSize ? "gzip-compressed, but not a capture file inside" : "not a capture file",
                      magic);
        error = file_error(path, buf, 0);
        return nullptr;
    }

    char errbuf[PCAP_ERRBUF_SIZE] = {};
    // On failure libpcap does not close f; on success pcap_close() will.
    pcap_t* p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p) {
        std::fclose(f);
        std::string msg = errbuf;
        std::string reason = msg.find("truncated") != std::string::npos
                                 ? "truncated pcap file header [libpcap: " + msg + "]"
                                 : "unusable pcap file header [libpcap: " + msg + "]";
        error = file_error(path, reason, 0);
        return nullptr;
    }
    if (size != kUnknownSize && record_header == 16 && capture_detail::mapped_pcap_enabled()) {
        // libpcap read and checked the file header; the records come out of a map.
        capture_detail::ClassicPcapFormat cf;
        cf.linktype = dlt_to_linktype(pcap_datalink(p));
        cf.snaplen = uint32_t(std::max(0, pcap_snapshot(p)));
        cf.max_caplen = max_caplen_for(pcap_datalink(p));
        cf.swapped = pcap_is_swapped(p) == 1;
        cf.nanoseconds = format == "pcap-ns";
        cf.format = format;
        pcap_close(p);
        return capture_detail::open_mapped_pcap(path, size, cf, error);
    }
    return std::make_unique<LibpcapFileReader>(p, path, size, format, record_header);
}

// The first four bytes of `f`, which is left at offset 0; false if shorter.
bool read_magic(std::FILE* f, std::array<uint8_t, 4>& magic, size_t& got) {
    got = std::fread(magic.data(), 1, magic.size(), f);
    return got == magic.size() && std::fseek(f, 0, SEEK_SET) == 0;
}

// A .gz capture: the plain reader of the decompressed stream, wrapped.
std::unique_ptr<PcapFileReader> open_gzip(const std::string& path, uint64_t size, std::string& error) {
    auto gz = capture_detail::open_gzip_stream(path, size, error);
    if (!gz.file) return nullptr;
    std::array<uint8_t, 4> magic_bytes{};
    size_t got = 0;
    if (!read_magic(gz.file, magic_bytes, got)) {
        std::fclose(gz.file);
        const std::string why = gz.state->problem.empty() ? "" : ": " + gz.state->problem;
        error = file_error(path, "gzip-compressed, but decompresses to " + std::to_string(got) +
                                     " bytes, too short to be a capture" + why, 0);
        return nullptr;
    }
    auto inner = open_stream(gz.file, path, kUnknownSize, *ByteReader(magic_bytes).be32(), error);
    if (!inner) return nullptr;
    return std::make_unique<capture_detail::GzipFileReader>(std::move(inner), gz.state, path);
}

} // namespace

std::unique_ptr<PcapFileReader> PcapFileReader::open(const std::string& path, std::string& error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        error = file_error(path, std::string("cannot open: ") + std::strerror(errno), 0);
        return nullptr;
    }
    if (S_ISDIR(st.st_mode)) {
        error = file_error(path, "is a directory, not a capture file", 0);
        return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
        error = file_error(path, "not a regular file", 0);
        return nullptr;
    }
    const uint64_t size = uint64_t(st.st_size);
    if (size == 0) {
        error = file_error(path, "empty file, not a capture", 0);
        return nullptr;
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        error = file_error(path, std::string("cannot open: ") + std::strerror(errno), 0);
        return nullptr;
    }
    std::array<uint8_t, 4> magic_bytes{};
    size_t got = 0;
    if (!read_magic(f, magic_bytes, got)) {
        std::fclose(f);
        error = file_error(path, "file too short to be a capture (" + std::to_string(got) + " bytes)", 0);
        return nullptr;
    }
    if (capture_detail::is_gzip_magic(magic_bytes.data())) {
        std::fclose(f);
        return open_gzip(path, size, error);
    }
    return open_stream(f, path, size, *ByteReader(magic_bytes).be32(), error);
}

} // namespace stallscope
