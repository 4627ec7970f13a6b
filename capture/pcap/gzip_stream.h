#pragma once
// A gzip-compressed capture read as a plain stdio stream (zlib behind a
// glibc fopencookie), so libpcap and the pcapng reader stream it unchanged
// with the memory they need for a plain file plus zlib's small buffers.
// Detected by the gzip magic (1f 8b), not by the file's name.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace stallscope::capture_detail {

inline bool is_gzip_magic(const uint8_t* b) { return b[0] == 0x1f && b[1] == 0x8b; }

// What the decompressor saw; shared by the stream (which updates it) and
// the reader that reports it, so it outlives whichever closes first.
struct GzipState {
    void* gz = nullptr;               // gzFile (zlib stays out of this header)
    uint64_t compressed_size = 0;     // the file's size on disk
    uint64_t uncompressed_pos = 0;    // bytes handed out so far
    std::string problem;              // zlib's reason when the stream is damaged or cut short
    uint64_t problem_compressed_offset = 0;
    uint64_t compressed_position() const;  // compressed bytes consumed (progress)
};

struct GzipStream {
    std::FILE* file = nullptr;  // read-only; fclose() frees the decompressor
    std::shared_ptr<GzipState> state;
};

// Opens `path` for decompressed reading; file == nullptr + error (naming
// the file) on failure. Seeking supports only the current position and 0.
GzipStream open_gzip_stream(const std::string& path, uint64_t compressed_size, std::string& error);

} // namespace stallscope::capture_detail
