#include "export_check.h"

#include <cairo.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace stallscope::test {

namespace {
// Removes the test directories at exit (they hold multi-megabyte exports),
// unless STALLSCOPE_KEEP_TEST_FILES is set to look at them.
struct TempDirs {
    std::vector<std::filesystem::path> dirs;
    ~TempDirs() {
        if (std::getenv("STALLSCOPE_KEEP_TEST_FILES")) return;
        std::error_code ec;
        for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
};
TempDirs g_temp_dirs;
} // namespace

std::string temp_dir() {
    static int n = 0;
    auto dir = std::filesystem::temp_directory_path() /
               ("stallscope-diagram-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    g_temp_dirs.dirs.push_back(dir);
    return dir.string();
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

size_t count(const std::string& hay, const std::string& needle) {
    size_t n = 0;
    for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
    return n;
}

bool png_size(const std::string& path, uint32_t& w, uint32_t& h) {
    std::string d = read_file(path);
    if (d.size() < 24 || d.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || d.compare(12, 4, "IHDR") != 0) return false;
    auto be = [&](size_t o) {
        return uint32_t(uint8_t(d[o])) << 24 | uint32_t(uint8_t(d[o + 1])) << 16 | uint32_t(uint8_t(d[o + 2])) << 8 |
               uint32_t(uint8_t(d[o + 3]));
    };
    w = be(16);
    h = be(20);
    return true;
}

bool png_decodes(const std::string& path) {
    cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
    bool ok = cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(s);
    return ok;
}

int run(const std::string& cmd) {
    int rc = std::system(cmd.c_str());
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool have_tool(const char* name) {
    return run(std::string("command -v ") + name + " >/dev/null 2>&1") == 0;
}

int pdf_pages(const std::string& path) {
    if (!have_tool("pdfinfo")) return -1;
    std::string cmd = "pdfinfo '" + path + "' 2>/dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return -1;
    char line[512];
    int pages = -1;
    while (std::fgets(line, sizeof line, p))
        if (std::sscanf(line, "Pages: %d", &pages) == 1) break;
    ::pclose(p);
    return pages;
}

} // namespace stallscope::test
