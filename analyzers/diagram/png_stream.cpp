#include "analyzers/diagram/png_stream.h"

#include <png.h>
#include <zlib.h>

#include <cerrno>
#include <csetjmp>
#include <cstring>

namespace stallscope {

struct PngStream::Lib {
    png_structp png = nullptr;
    png_infop info = nullptr;
    char error[200] = {};
};

namespace {
// libpng reports an error by calling this, which must not return: the
// message is kept and control goes back to the setjmp of the call in progress.
[[noreturn]] void on_error(png_structp png, png_const_charp message) {
    auto* lib = static_cast<PngStream::Lib*>(png_get_error_ptr(png));
    std::snprintf(lib->error, sizeof lib->error, "%s", message);
    png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}  // nothing a caller could act on
} // namespace

PngStream::~PngStream() {
    if (lib_) {
        png_destroy_write_struct(&lib_->png, &lib_->info);
        delete lib_;
    }
    if (file_) std::fclose(file_);
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
    row_.resize(size_t(w) * 3);
    lib_ = new Lib;
    lib_->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, lib_, on_error, on_warning);
    if (lib_->png) lib_->info = png_create_info_struct(lib_->png);
    if (!lib_->info) {
        error = "cannot write " + path + ": out of memory";
        return false;
    }
    if (setjmp(png_jmpbuf(lib_->png))) {
        failed_ = true;
        error = "cannot write " + path + ": " + lib_->error;
        return false;
    }
    png_init_io(lib_->png, file_);
    png_set_IHDR(lib_->png, lib_->info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    // Filter "Up" only (difference to the row above): diagrams are mostly
    // rows like the previous one, which become runs of zeros that deflate
    // fast and small; trying every filter per row costs time for little.
    png_set_filter(lib_->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_level(lib_->png, 6);
    // zlib's default strategy: libpng picks Z_FILTERED for filtered rows,
    // which makes diagrams (long runs of zeros after the Up filter) ~10 % larger.
    png_set_compression_strategy(lib_->png, Z_DEFAULT_STRATEGY);
    png_write_info(lib_->png, lib_->info);
    return true;
}

bool PngStream::write_rows(const uint8_t* data, int stride, int rows, std::string& error) {
    if (!file_ || !lib_ || failed_) { error = "PNG stream not open"; return false; }
    if (setjmp(png_jmpbuf(lib_->png))) {
        failed_ = true;
        error = std::string("PNG write failed: ") + lib_->error;
        return false;
    }
    for (int r = 0; r < rows && rows_done_ < height_; ++r, ++rows_done_) {
        const auto* px = reinterpret_cast<const uint32_t*>(data + size_t(r) * size_t(stride));
        uint8_t* o = row_.data();
        for (uint32_t x = 0; x < width_; ++x, o += 3) {
            const uint32_t v = px[x];
            o[0] = uint8_t(v >> 16);
            o[1] = uint8_t(v >> 8);
            o[2] = uint8_t(v);
        }
        png_write_row(lib_->png, row_.data());
    }
    return true;
}

bool PngStream::finish(std::string& error) {
    if (!file_ || !lib_ || failed_) { error = "PNG stream not open"; return false; }
    if (rows_done_ != height_) { error = "PNG incomplete"; return false; }
    if (setjmp(png_jmpbuf(lib_->png))) {
        failed_ = true;
        error = std::string("cannot finish PNG: ") + lib_->error;
        return false;
    }
    png_write_end(lib_->png, lib_->info);
    const bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!ok || !closed) error = "cannot finish PNG";
    return ok && closed;
}

} // namespace stallscope
