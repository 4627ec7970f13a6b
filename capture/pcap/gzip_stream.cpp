#include "capture/pcap/gzip_stream.h"

#include "capture/pcap/reader_support.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace stallscope::capture_detail {

namespace {

gzFile gz_of(const GzipState& s) { return static_cast<gzFile>(s.gz); }

// Cookie functions: the stream's only owner of `s` besides the reader.
struct Cookie {
    std::shared_ptr<GzipState> state;
};

ssize_t gz_read(void* cookie, char* buf, size_t size) {
    GzipState& s = *static_cast<Cookie*>(cookie)->state;
    const unsigned want = size > (1u << 30) ? (1u << 30) : unsigned(size);
    const int got = gzread(gz_of(s), buf, want);
    int errnum = Z_OK;
    const char* msg = gzerror(gz_of(s), &errnum);
    // Z_BUF_ERROR: the compressed data ended inside a gzip member (a cut
    // file); Z_DATA_ERROR and others: damaged compressed data. Either way the
    // bytes decompressed before it are still good, and zlib may have found
    // the end while filling its buffer: keep reading until gzread gives 0.
    if (errnum != Z_OK && errnum != Z_STREAM_END && s.problem.empty()) {
        s.problem = errnum == Z_BUF_ERROR ? "compressed data ends early (truncated gzip file)"
                                          : std::string("damaged gzip data: ") + (msg ? msg : "zlib error");
        s.problem_compressed_offset = s.compressed_position();
    }
    if (got < 0) {
        errno = EIO;   // what a reader's error text then says, not a stale errno
        return -1;
    }
    s.uncompressed_pos += uint64_t(got);
    return got;
}

int gz_seek(void* cookie, off64_t* offset, int whence) {
    GzipState& s = *static_cast<Cookie*>(cookie)->state;
    // stdio asks for the current position (ftell); rewinding to 0 is the
    // only move a reader of ours makes.
    if (whence == SEEK_CUR && *offset == 0) {
        *offset = off64_t(s.uncompressed_pos);
        return 0;
    }
    if (whence == SEEK_SET && *offset == 0 && gzrewind(gz_of(s)) == 0) {
        s.uncompressed_pos = 0;
        s.problem.clear();   // found again, at the same place, when the reading gets there
        return 0;
    }
    errno = ESPIPE;
    return -1;
}

int gz_close(void* cookie) {
    auto* c = static_cast<Cookie*>(cookie);
    const int rc = gzclose_r(gz_of(*c->state));
    c->state->gz = nullptr;
    delete c;
    return rc == Z_OK ? 0 : -1;
}

} // namespace

uint64_t GzipState::compressed_position() const {
    if (!gz) return compressed_size;
    const z_off64_t off = gzoffset64(gz_of(*this));
    return off < 0 ? 0 : uint64_t(off);
}

GzipStream open_gzip_stream(const std::string& path, uint64_t compressed_size, std::string& error) {
    GzipStream out;
    gzFile gz = gzopen64(path.c_str(), "rb");
    if (!gz) {
        error = file_error(path, std::string("cannot open gzip file: ") + std::strerror(errno), 0);
        return out;
    }
    gzbuffer(gz, 64 * 1024);  // before the first read: fewer, larger reads of the compressed file
    auto state = std::make_shared<GzipState>();
    state->gz = gz;
    state->compressed_size = compressed_size;
    auto* cookie = new Cookie{state};
    out.file = fopencookie(cookie, "rb", cookie_io_functions_t{gz_read, nullptr, gz_seek, gz_close});
    if (!out.file) {
        gzclose_r(gz);
        delete cookie;
        error = file_error(path, "cannot set up gzip decompression", 0);
        return out;
    }
    out.state = std::move(state);
    return out;
}

} // namespace stallscope::capture_detail
