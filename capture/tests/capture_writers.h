#pragma once
// Test helpers that write pcap and pcapng files as bytes, plus a temp dir.
// Independent of the readers: byte layouts follow the file format specs.
#include "capture/tests/packet_builder.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace stallscope::test {

struct Record {
    int64_t ts_ns = 0;
    Bytes data;
    uint32_t origlen = 0;  // 0: data.size()
};

// Classic pcap. nano: nanosecond magic; big_endian: writer's byte order.
inline Bytes pcap_bytes(bool nano, bool big_endian, uint32_t linktype, const std::vector<Record>& recs) {
    Bytes b;
    auto p16 = [&](uint16_t v) { big_endian ? put16be(b, v) : put16le(b, v); };
    auto p32 = [&](uint32_t v) { big_endian ? put32be(b, v) : put32le(b, v); };
    p32(nano ? 0xa1b23c4d : 0xa1b2c3d4);
    p16(2);
    p16(4);
    p32(0);       // thiszone
    p32(0);       // sigfigs
    p32(262144);  // snaplen
    p32(linktype);
    for (const auto& r : recs) {
        p32(uint32_t(r.ts_ns / 1000000000));
        const int64_t frac = r.ts_ns % 1000000000;
        p32(uint32_t(nano ? frac : frac / 1000));
        p32(uint32_t(r.data.size()));
        p32(r.origlen ? r.origlen : uint32_t(r.data.size()));
        append(b, r.data);
    }
    return b;
}

// Offset of record i (0-based) in a pcap_bytes() file.
inline uint64_t pcap_record_offset(const std::vector<Record>& recs, size_t i) {
    uint64_t off = 24;
    for (size_t k = 0; k < i; ++k) off += 16 + recs[k].data.size();
    return off;
}

class PcapngWriter {
public:
    explicit PcapngWriter(bool big_endian = false) : be_(big_endian) {}

    void shb() {
        Bytes body;
        p32(body, 0x1A2B3C4D);
        p16(body, 1);
        p16(body, 0);
        p32(body, 0xffffffff);  // section length -1: unknown
        p32(body, 0xffffffff);
        block(0x0A0D0D0A, body);
    }
    // tsresol: raw if_tsresol byte; tsoffset: seconds
    void idb(uint16_t linktype, uint32_t snaplen = 262144, std::optional<uint8_t> tsresol = {},
             std::optional<int64_t> tsoffset = {}) {
        Bytes body;
        p16(body, linktype);
        p16(body, 0);
        p32(body, snaplen);
        // an if_name option first, to check options are walked correctly
        option(body, 2, Bytes{'e', 't', 'h', '0', '9'});
        if (tsresol) option(body, 9, Bytes{*tsresol});
        if (tsoffset) {
            Bytes v;
            uint64_t u = uint64_t(*tsoffset);
            if (be_) { put32be(v, uint32_t(u >> 32)); put32be(v, uint32_t(u)); }
            else { put32le(v, uint32_t(u)); put32le(v, uint32_t(u >> 32)); }
            option(body, 14, v);
        }
        option(body, 0, {});
        block(1, body);
    }
    void epb(uint32_t iface, uint64_t ts_units, const Bytes& data, uint32_t origlen = 0) {
        Bytes body;
        p32(body, iface);
        p32(body, uint32_t(ts_units >> 32));
        p32(body, uint32_t(ts_units));
        p32(body, uint32_t(data.size()));
        p32(body, origlen ? origlen : uint32_t(data.size()));
        append(body, data);
        while (body.size() % 4) body.push_back(0);
        block(6, body);
    }
    void pb(uint16_t iface, uint64_t ts_units, const Bytes& data) {
        Bytes body;
        p16(body, iface);
        p16(body, 0);
        p32(body, uint32_t(ts_units >> 32));
        p32(body, uint32_t(ts_units));
        p32(body, uint32_t(data.size()));
        p32(body, uint32_t(data.size()));
        append(body, data);
        while (body.size() % 4) body.push_back(0);
        block(2, body);
    }
    void spb(const Bytes& data) {
        Bytes body;
        p32(body, uint32_t(data.size()));
        append(body, data);
        while (body.size() % 4) body.push_back(0);
        block(3, body);
    }
    void block(uint32_t type, const Bytes& body) {
        const uint32_t len = uint32_t(12 + body.size());
        p32(out_, type);
        p32(out_, len);
        append(out_, body);
        p32(out_, len);
    }
    // Raw bytes, e.g. a deliberately broken block header.
    void raw(const Bytes& b) { append(out_, b); }
    void raw32(uint32_t v) { p32(out_, v); }

    size_t size() const { return out_.size(); }
    const Bytes& bytes() const { return out_; }

private:
    void p16(Bytes& b, uint16_t v) { be_ ? put16be(b, v) : put16le(b, v); }
    void p32(Bytes& b, uint32_t v) { be_ ? put32be(b, v) : put32le(b, v); }
    void option(Bytes& b, uint16_t code, const Bytes& v) {
        p16(b, code);
        p16(b, uint16_t(v.size()));
        append(b, v);
        while (b.size() % 4) b.push_back(0);
    }
    bool be_;
    Bytes out_;
};

// A directory under $TMPDIR removed at scope exit.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "capture_tests.XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

inline void write_file(const std::string& path, const Bytes& b) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path);
    if (!b.empty()) std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
}

} // namespace stallscope::test
