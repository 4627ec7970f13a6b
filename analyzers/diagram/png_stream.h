#pragma once
// Writes a PNG row by row through libpng (png_write_row), so an image taller
// than cairo's 32767-pixel surface limit (or too big to hold in memory) can
// be rendered in strips.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace stallscope {

class PngStream {
public:
    PngStream() = default;
    ~PngStream();
    PngStream(const PngStream&) = delete;
    PngStream& operator=(const PngStream&) = delete;

    bool open(const std::string& path, uint32_t width, uint32_t height, std::string& error);
    // rows of cairo ARGB32 pixels (native-endian uint32, premultiplied; drawn
    // on an opaque background, so alpha is ignored). Written as 8-bit RGB.
    bool write_rows(const uint8_t* data, int stride, int rows, std::string& error);
    bool finish(std::string& error);   // all rows must have been written

    struct Lib;                         // libpng's write and info structs, and its last error

private:
    std::FILE* file_ = nullptr;
    Lib* lib_ = nullptr;
    uint32_t width_ = 0, height_ = 0, rows_done_ = 0;
    std::vector<uint8_t> row_;
    bool failed_ = false;
};

} // namespace stallscope
