#include "app/cli/progress_printer.h"

#include <cstdio>
#include <unistd.h>

namespace stallscope::cli {

namespace {
constexpr uint64_t kLongFileBytes = 32ull << 20;
}

ProgressPrinter::ProgressPrinter(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1) {}

bool ProgressPrinter::operator()(const Progress& p) {
    if (!enabled_ || p.bytes_total < kLongFileBytes) return true;
    double frac = p.bytes_total ? double(p.bytes_read) / double(p.bytes_total) : 0;
    if (tty_) {
        int width = 40, fill = int(frac * width);
        std::fprintf(stderr, "\r[%.*s%*s] %3.0f%% %llu packets", fill, "########################################",
                     width - fill, "", frac * 100, (unsigned long long)p.packets);
        shown_ = true;
    } else if (int(frac * 10) > last_decile_) {
        last_decile_ = int(frac * 10);
        std::fprintf(stderr, "progress: %d%% (%llu packets)\n", last_decile_ * 10, (unsigned long long)p.packets);
    }
    return true;
}

void ProgressPrinter::done() {
    if (shown_) std::fputs("\n", stderr);
    shown_ = false;
}

} // namespace stallscope::cli
