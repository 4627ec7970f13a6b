#include "capture/pcap/mapped_pcap_reader.h"

#include "capture/pcap/map_ahead.h"
#include "capture/pcap/reader_support.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace stallscope::capture_detail {

namespace {

constexpr uint64_t kFileHeader = 24;
constexpr uint64_t kRecordHeader = 16;  // ts_sec, ts_usec, caplen, len
constexpr uint64_t kDropBehind = 8u << 20;  // give back mapped pages every 8 MB read
constexpr uint64_t kDropTakeBack = 2u << 20;  // ... and do a drop left to helpers 2 MB later if none did

uint32_t load32(const uint8_t* p, bool swapped) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

class MappedPcapReader final : public PcapFileReader {
public:
    MappedPcapReader(std::string path, const uint8_t* base, uint64_t size, ClassicPcapFormat f)
        : path_(std::move(path)), base_(base), size_(size), f_(std::move(f)) {}
    ~MappedPcapReader() override { ::munmap(const_cast<uint8_t*>(base_), size_); }

    Status next(Frame& out) override {
        if (state_ != Status::Ok) return state_;
        const uint64_t at = pos_;
        ahead_.reader_at(at);
        if (at == size_) return state_ = Status::End;
        if (size_ - at < kRecordHeader)
            return fail(at, "truncated record header, " + std::to_string(size_ - at) +
                                " bytes left in the file [tried to read 16 header bytes, only got " +
                                std::to_string(size_ - at) + "]");
        const uint8_t* h = base_ + at;
        const uint32_t sec = load32(h, f_.swapped), frac = load32(h + 4, f_.swapped);
        uint32_t caplen = load32(h + 8, f_.swapped);
        const uint32_t len = load32(h + 12, f_.swapped);
        if (caplen > f_.max_caplen)
            return fail(at, "absurd record length [invalid packet capture length " + std::to_string(caplen) +
                                ", bigger than " +
                                (caplen > f_.snaplen ? "snaplen of " + std::to_string(f_.snaplen)
                                                     : "maximum of " + std::to_string(f_.max_caplen)) + "]");
        const uint64_t body = at + kRecordHeader;
        if (size_ - body < caplen)
            return fail(at, "truncated record body, " + std::to_string(size_ - at) +
                                " bytes left in the file [tried to read " + std::to_string(caplen) +
                                " captured bytes, only got " + std::to_string(size_ - body) + "]");
        pos_ = body + caplen;
        if (caplen > f_.snaplen) caplen = f_.snaplen;  // as libpcap: the rest of the record is skipped
        drop_behind(at);
        out = Frame{};
        out.number = ++number_;
        out.ts_ns = int64_t(sec) * 1000000000 + (f_.nanoseconds ? int64_t(frac) : int64_t(frac) * 1000);
        out.linktype = f_.linktype;
        out.interface_id = 0;
        out.origlen = len;
        out.file_offset = at;
        out.data = std::span<const uint8_t>(base_ + body, caplen);
        return Status::Ok;
    }
    const std::string& error() const override { return error_; }
    uint64_t error_offset() const override { return error_offset_; }
    uint64_t file_size() const override { return size_; }
    uint64_t position() const override { return pos_; }
    std::string format() const override { return f_.format; }
    // The map lasts as long as the reader; pages dropped behind it are
    // read back from the file on the next touch (MAP_PRIVATE, never written).
    bool frames_outlive_next() const override { return true; }
    AheadWork ahead_work() override {
        ahead_.set_helped();
        return [this] { return ahead_.step(); };
    }

private:
    Status fail(uint64_t at, const std::string& reason) {
        error_offset_ = at;
        error_ = file_error(path_, reason, at);
        return state_ = Status::Error;
    }
    // Pages before the record being handed out are read for good: unmapped
    // from this process (the page cache keeps them), so RSS stays flat.
    // Each drop starts where the one before started: pages a thread still
    // reading lent frames (frames_outlive_next) touched again since are given
    // back too, instead of staying resident to the end. With threads helping
    // (ahead_work) a drop is left to them (map_ahead.h); one no helper took
    // is done here kDropTakeBack later: each MB it waits is peak RSS.
    void drop_behind(uint64_t record) {
        if (record < next_drop_) return;
        if (record < dropped_ + kDropBehind) {
            ahead_.take_drop();
            next_drop_ = dropped_ + kDropBehind;
            return;
        }
        const uint64_t upto = record / page_ * page_;
        ahead_.drop(redrop_from_, upto);
        redrop_from_ = dropped_;
        dropped_ = upto;
        next_drop_ = dropped_ + (ahead_.helped() ? kDropTakeBack : kDropBehind);
    }

    std::string path_;
    const uint8_t* base_;
    uint64_t size_;
    ClassicPcapFormat f_;
    uint64_t pos_ = kFileHeader;
    uint64_t dropped_ = 0;
    uint64_t redrop_from_ = 0;  // where the last drop started
    uint64_t next_drop_ = kDropBehind;  // where drop_behind next has work
    const uint64_t page_ = uint64_t(::sysconf(_SC_PAGESIZE));
    MapAhead ahead_{base_, size_, page_};
    uint64_t number_ = 0;
    Status state_ = Status::Ok;
    std::string error_;
    uint64_t error_offset_ = 0;
};

} // namespace

std::unique_ptr<PcapFileReader> open_mapped_pcap(const std::string& path, uint64_t size, const ClassicPcapFormat& f,
                                                 std::string& error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = file_error(path, std::string("cannot open: ") + std::strerror(errno), 0);
        return nullptr;
    }
    void* base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);  // the map keeps the file
    if (base == MAP_FAILED) {
        error = file_error(path, std::string("cannot map: ") + std::strerror(map_errno), 0);
        return nullptr;
    }
    ::madvise(base, size, MADV_SEQUENTIAL);
    return std::make_unique<MappedPcapReader>(path, static_cast<const uint8_t*>(base), size, f);
}

bool mapped_pcap_enabled() {
    const char* v = std::getenv("STALLSCOPE_PCAP_READER");
    return !(v && std::strcmp(v, "libpcap") == 0);
}

} // namespace stallscope::capture_detail
