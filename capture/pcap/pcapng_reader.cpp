#include "capture/pcap/pcapng_reader.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace stallscope {

namespace {

constexpr uint32_t kShb = 0x0A0D0D0A;  // same bytes in both byte orders
constexpr uint32_t kIdb = 0x00000001;
constexpr uint32_t kPb = 0x00000002;   // obsolete Packet Block
constexpr uint32_t kSpb = 0x00000003;
constexpr uint32_t kEpb = 0x00000006;
constexpr uint32_t kDsb = 0x0000000A;  // Decryption Secrets Block
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint32_t kByteOrderMagicSwapped = 0x4D3C2B1A;
constexpr size_t kMaxInterfaces = 1u << 16;  // pcapng writers use a handful

constexpr uint16_t kOptEnd = 0;
constexpr uint16_t kOptIfTsresol = 9;
constexpr uint16_t kOptIfTsoffset = 14;

std::string u32s(uint64_t v) { return std::to_string(v); }

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

} // namespace

PcapngReader::PcapngReader(std::FILE* f, std::string path, uint64_t file_size)
    : f_(f), path_(std::move(path)), file_size_(file_size) {}

PcapngReader::~PcapngReader() {
    if (f_) std::fclose(f_);
}

std::unique_ptr<PcapngReader> PcapngReader::open(std::FILE* f, const std::string& path, uint64_t file_size,
                                                 std::string& error) {
    std::unique_ptr<PcapngReader> r(new PcapngReader(f, path, file_size));
    uint32_t type = 0;
    BlockRead br = r->read_block(type);
    if (br == BlockRead::Ok && type != kShb) r->fail("not a pcapng file: first block is not a section header", 0);
    else if (br == BlockRead::End) r->fail("empty file", 0);
    else if (br == BlockRead::Ok) r->handle_shb();
    if (r->state_ == Status::Error) {
        error = r->error_;
        return nullptr;
    }
    return r;
}

PcapFileReader::Status PcapngReader::failed(const std::string& reason) {
    fail(reason, block_offset_);
    return state_;
}

bool PcapngReader::fail(const std::string& reason, uint64_t offset) {
    state_ = Status::Error;
    error_offset_ = offset;
    error_ = capture_detail::file_error(path_, reason, offset);
    return false;
}

PcapngReader::BlockRead PcapngReader::read_block(uint32_t& type) {
    block_offset_ = pos_;
    uint8_t head[12] = {};
    const std::span<uint8_t> head_span(head);
    size_t got = std::fread(head, 1, 8, f_);
    if (got == 0 && std::feof(f_)) return BlockRead::End;
    if (got < 8) {
        fail("truncated block header (" + u32s(got) + " of 8 bytes)", block_offset_);
        return BlockRead::Error;
    }
    size_t head_len = 8;
    Endian e = endian_;
    if (*ByteReader(head_span.first(4)).be32() == kShb) {
        // A section header carries its own byte order after type and length.
        if (std::fread(head_span.subspan(8).data(), 1, 4, f_) != 4) {
            fail("truncated section header block", block_offset_);
            return BlockRead::Error;
        }
        head_len = 12;
        uint32_t bom = *ByteReader(head_span.subspan(8, 4)).be32();
        if (bom == kByteOrderMagic) e = Endian::Big;
        else if (bom == kByteOrderMagicSwapped) e = Endian::Little;
        else {
            fail("bad byte-order magic " + hex32(bom) + " in section header", block_offset_);
            return BlockRead::Error;
        }
        endian_ = e;
    }
    ByteReader h(head_span.first(8));
    type = *h.u32(e);
    const uint32_t len = *h.u32(e);
    const std::string what = "block type " + hex32(type) + ": ";
    if (len == 0) {
        fail(what + "zero-length block", block_offset_);
        return BlockRead::Error;
    }
    if (len < 12 || (type == kShb && len < 28)) {
        fail(what + "block length " + u32s(len) + " too small", block_offset_);
        return BlockRead::Error;
    }
    if (len % 4 != 0) {
        fail(what + "block length " + u32s(len) + " not a multiple of 4", block_offset_);
        return BlockRead::Error;
    }
    if (len > kMaxBlockLength) {
        fail(what + "absurd block length " + u32s(len) + " (limit " + u32s(kMaxBlockLength) + ")", block_offset_);
        return BlockRead::Error;
    }
    if (block_offset_ > file_size_ || len > file_size_ - block_offset_) {
        fail(what + "truncated block: length " + u32s(len) + " but " +
                 u32s(file_size_ > block_offset_ ? file_size_ - block_offset_ : 0) + " bytes left in the file",
             block_offset_);
        return BlockRead::Error;
    }
    block_.resize(len);
    std::copy_n(head_span.begin(), head_len, block_.begin());
    const size_t want = len - head_len;
    const size_t body = std::fread(std::span<uint8_t>(block_).subspan(head_len).data(), 1, want, f_);
    if (body != want) {  // the file shrank under us, or a read error
        fail(what + "truncated block: read " + u32s(head_len + body) + " of " + u32s(len) + " bytes",
             block_offset_);
        return BlockRead::Error;
    }
    const uint32_t trailing = *ByteReader(std::span<const uint8_t>(block_).last(4)).u32(e);
    if (trailing != len) {
        fail(what + "trailing block length " + u32s(trailing) + " differs from leading length " + u32s(len),
             block_offset_);
        return BlockRead::Error;
    }
    pos_ = block_offset_ + len;
    return BlockRead::Ok;
}

bool PcapngReader::handle_shb() {
    ByteReader r{std::span<const uint8_t>(block_)};
    r.skip(12);  // type, length, byte-order magic
    auto ver_major = r.u16(endian_), ver_minor = r.u16(endian_);
    if (!ver_major || !ver_minor) return fail("truncated section header block", block_offset_);
    if (*ver_major != 1)
        return fail("unsupported pcapng version " + u32s(*ver_major) + "." + u32s(*ver_minor), block_offset_);
    // Interface ids restart at 0 in every section; Frame::interface_id is global.
    section_first_iface_ = ifaces_.size();
    return true;
}

bool PcapngReader::handle_idb() {
    ByteReader r(std::span<const uint8_t>(block_).first(block_.size() - 4));
    r.skip(8);
    auto lt = r.u16(endian_), reserved = r.u16(endian_);
    auto snaplen = r.u32(endian_);
    if (!lt || !reserved || !snaplen) return fail("interface description block too short", block_offset_);
    if (ifaces_.size() >= kMaxInterfaces)
        return fail("too many interfaces (limit " + u32s(kMaxInterfaces) + ")", block_offset_);
    Interface iface;
    iface.linktype = *lt;
    iface.snaplen = *snaplen;
    // Options: code(2) length(2) value padded to 4. Each step consumes >= 4
    // bytes, so the loop is bounded; a broken option list just ends it.
    while (r.remaining() >= 4) {
        uint16_t code = *r.u16(endian_);
        uint16_t olen = *r.u16(endian_);
        auto value = r.bytes(olen);
        if (!value || code == kOptEnd) break;
        r.skip((4 - olen % 4) % 4);
        ByteReader v(*value);
        if (code == kOptIfTsresol && olen >= 1) {
            uint8_t res = *v.u8();
            iface.tsresol_binary = (res & 0x80) != 0;
            iface.tsresol_exp = res & 0x7f;
            // 10^-19 and 2^-63 are far beyond any clock; larger ones would
            // overflow the conversion.
            if ((iface.tsresol_binary && iface.tsresol_exp > 63) || (!iface.tsresol_binary && iface.tsresol_exp > 19))
                return fail("unsupported if_tsresol " + u32s(res), block_offset_);
        } else if (code == kOptIfTsoffset && olen == 8) {
            iface.tsoffset_s = static_cast<int64_t>(*v.u64(endian_));
        }
    }
    ifaces_.push_back(iface);
    return true;
}

bool PcapngReader::to_ns(const Interface& iface, uint64_t units, int64_t& ns) const {
    __int128 v;
    if (iface.tsresol_binary) {
        v = static_cast<__int128>((static_cast<unsigned __int128>(units) * 1000000000u) >> iface.tsresol_exp);
    } else if (iface.tsresol_exp <= 9) {
        __int128 mul = 1;
        for (int i = iface.tsresol_exp; i < 9; ++i) mul *= 10;
        v = static_cast<__int128>(units) * mul;
    } else {
        unsigned __int128 div = 1;
        for (int i = 9; i < iface.tsresol_exp; ++i) div *= 10;
        v = static_cast<__int128>(units / div);
    }
    v += static_cast<__int128>(iface.tsoffset_s) * 1000000000;
    if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) return false;
    ns = static_cast<int64_t>(v);
    return true;
}

bool PcapngReader::emit(Frame& out, uint32_t iface_id, int64_t ts_ns, uint32_t caplen, uint32_t origlen,
                        std::span<const uint8_t> data) {
    ++frame_number_;
    out = Frame{};
    out.number = frame_number_;
    out.ts_ns = ts_ns;
    out.linktype = ifaces_[iface_id].linktype;
    out.interface_id = iface_id;
    out.origlen = origlen;
    out.file_offset = block_offset_;
    out.data = data.first(caplen);
    last_ts_ns_ = ts_ns;
    return true;
}

PcapFileReader::Status PcapngReader::packet(ByteReader& r, const std::string& what, size_t in_section, uint32_t id,
                                            uint32_t ts_hi, uint32_t ts_lo, uint32_t caplen, uint32_t origlen,
                                            Frame& out) {
    if (id >= in_section) return failed(what + "packet for undefined interface " + u32s(id));
    auto data = r.bytes(caplen);
    if (!data) return failed(what + "captured length " + u32s(caplen) + " exceeds the block");
    const uint32_t gid = uint32_t(section_first_iface_ + id);
    int64_t ts = 0;
    if (!to_ns(ifaces_[gid], (uint64_t(ts_hi) << 32) | ts_lo, ts)) return failed(what + "timestamp out of range");
    emit(out, gid, ts, caplen, origlen, *data);
    return Status::Ok;
}

PcapFileReader::Status PcapngReader::next(Frame& out) {
    if (state_ != Status::Ok) return state_;
    // Each block consumes >= 12 bytes of a finite file: this loop ends.
    for (;;) {
        uint32_t type = 0;
        BlockRead br = read_block(type);
        if (br == BlockRead::End) return state_ = Status::End;
        if (br == BlockRead::Error) return state_;

        ByteReader r(std::span<const uint8_t>(block_).first(block_.size() - 4));
        r.skip(8);
        const std::string what = "block type " + hex32(type) + ": ";
        const size_t in_section = ifaces_.size() - section_first_iface_;
        switch (type) {
        case kShb:
            if (!handle_shb()) return state_;
            break;
        case kIdb:
            if (!handle_idb()) return state_;
            break;
        case kEpb: {
            auto id = r.u32(endian_), hi = r.u32(endian_), lo = r.u32(endian_);
            auto caplen = r.u32(endian_), origlen = r.u32(endian_);
            if (!id || !hi || !lo || !caplen || !origlen)
                return failed(what + "enhanced packet block too short");
            return packet(r, what, in_section, *id, *hi, *lo, *caplen, *origlen, out);
        }
        case kPb: {
            auto id = r.u16(endian_), drops = r.u16(endian_);
            auto hi = r.u32(endian_), lo = r.u32(endian_);
            auto caplen = r.u32(endian_), origlen = r.u32(endian_);
            if (!id || !drops || !hi || !lo || !caplen || !origlen)
                return failed(what + "packet block too short");
            return packet(r, what, in_section, *id, *hi, *lo, *caplen, *origlen, out);
        }
        case kSpb: {
            auto origlen = r.u32(endian_);
            if (!origlen) return failed(what + "simple packet block too short");
            if (in_section == 0)
                return failed(what + "simple packet block before any interface");
            const uint32_t gid = uint32_t(section_first_iface_);
            size_t caplen = std::min<size_t>(*origlen, r.remaining());
            if (ifaces_[gid].snaplen != 0) caplen = std::min<size_t>(caplen, ifaces_[gid].snaplen);
            // An SPB has no timestamp: reuse the previous one so time order holds.
            emit(out, gid, last_ts_ns_, uint32_t(caplen), *origlen, r.rest());
            return Status::Ok;
        }
        case kDsb: {
            auto secrets_type = r.u32(endian_), len = r.u32(endian_);
            // A broken one is skipped: its connections then say they have no key.
            if (secrets_type && len && *len <= r.remaining() && secrets_sink_)
                secrets_sink_(*secrets_type, r.rest().first(*len), block_offset_);
            break;
        }
        default:
            break;  // NRB, ISB, custom...: not needed, skipped
        }
    }
}

} // namespace stallscope
