#include "analyzers/diagram/png_stream.h"

#include <cerrno>
#include <cstring>
#include <zlib.h>

namespace stallscope {
namespace {
void put_be32(uint8_t* p, uint32_t v) {
    p[0] = uint8_t(v >> 24); p[1] = uint8_t(v >> 16); p[2] = uint8_t(v >> 8); p[3] = uint8_t(v);
}
}

PngStream::~PngStream() {
    if (zs_) {
        deflateEnd(static_cast<z_stream*>(zs_));
        delete static_cast<z_stream*>(zs_);
    }
    if (file_) std::fclose(file_);
}

bool PngStream::write_chunk(const char* type, const uint8_t* data, size_t len) {
    uint8_t head[8];
    put_be32(head, uint32_t(len));
    std::memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, head + 4, 4);
    if (len) crc = crc32(crc, data, uInt(len));
    uint8_t tail[4];
    put_be32(tail, uint32_t(crc));
    if (std::fwrite(head, 1, 8, file_) != 8) return false;
    if (len && std::fwrite(data, 1, len, file_) != len) return false;
    return std::fwrite(tail, 1, 4, file_) == 4;
}

bool PngStream::open(const std::string& path, uint32_t w, uint32_t h, std::string& error) {
    if (w == 0 || h == 0 || w > 0x7fffffffu / 4 || h > 0x7fffffffu) {
        error = "invalid PNG size";
        return false;
    }
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    width_ = w;
    height_ = h;
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, w);
    put_be32(ihdr + 4, h);
    ihdr[8] = 8;    // bit depth
    ihdr[9] = 2;    // colour type: RGB
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    auto* zs = new z_stream{};
    zs_ = zs;
    if (deflateInit(zs, 6) != Z_OK || std::fwrite(sig, 1, 8, file_) != 8 || !write_chunk("IHDR", ihdr, 13)) {
        error = "cannot write " + path;
        return false;
    }
    row_.resize(1 + size_t(w) * 3);
    prev_.assign(size_t(w) * 3, 0);
    out_.resize(64 * 1024);
    return true;
}

bool PngStream::deflate_bytes(const uint8_t* data, size_t len, int flush) {
    auto* zs = static_cast<z_stream*>(zs_);
    zs->next_in = const_cast<uint8_t*>(data);
    zs->avail_in = uInt(len);
    do {
        zs->next_out = out_.data();
        zs->avail_out = uInt(out_.size());
        int rc = deflate(zs, flush);
        if (rc == Z_STREAM_ERROR) return false;
        size_t have = out_.size() - zs->avail_out;
        if (have && !write_chunk("IDAT", out_.data(), have)) return false;
    } while (zs->avail_out == 0 || (flush == Z_FINISH && zs->avail_in > 0));
    return true;
}

bool PngStream::write_rows(const uint8_t* data, int stride, int rows, std::string& error) {
    if (!file_ || failed_) { error = "PNG stream not open"; return false; }
    for (int r = 0; r < rows && rows_done_ < height_; ++r, ++rows_done_) {
        const auto* px = reinterpret_cast<const uint32_t*>(data + size_t(r) * size_t(stride));
        // Filter "Up" (difference to the row above): diagrams are mostly
        // rows like the previous one, which become runs of zeros that
        // deflate fast and small.
        uint8_t* o = row_.data() + 1;
        row_[0] = 2;
        for (uint32_t x = 0; x < width_; ++x, o += 3) {
            uint32_t v = px[x];
            o[0] = uint8_t(v >> 16);
            o[1] = uint8_t(v >> 8);
            o[2] = uint8_t(v);
        }
        uint8_t* cur = row_.data() + 1;
        uint8_t* up = prev_.data();
        const size_t n = size_t(width_) * 3;
        for (size_t k = 0; k < n; ++k) {
            uint8_t c = cur[k];
            cur[k] = uint8_t(c - up[k]);
            up[k] = c;
        }
        if (!deflate_bytes(row_.data(), row_.size(), Z_NO_FLUSH)) {
            failed_ = true;
            error = "PNG compression failed";
            return false;
        }
    }
    return true;
}

bool PngStream::finish(std::string& error) {
    if (!file_ || failed_) { error = "PNG stream not open"; return false; }
    if (rows_done_ != height_) { error = "PNG incomplete"; return false; }
    bool ok = deflate_bytes(nullptr, 0, Z_FINISH) && write_chunk("IEND", nullptr, 0);
    ok = (std::fclose(file_) == 0) && ok;
    file_ = nullptr;
    if (!ok) error = "cannot finish PNG";
    return ok;
}

} // namespace stallscope
