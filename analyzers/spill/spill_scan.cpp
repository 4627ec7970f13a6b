#include "analyzers/spill/spill_scan.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

namespace stallscope {

namespace {
// 2 MiB mapped at most: the pages touched in them count in the process's RSS.
constexpr size_t kWindows = 8;
}

SpillScan::SpillScan(SpillFile& file) : file_(file), windows_(kWindows) {}

SpillScan::~SpillScan() {
    for (Window& w : windows_) unmap(w);
}

void SpillScan::unmap(Window& w) {
    if (w.bytes) ::munmap(const_cast<char*>(w.bytes), w.len);
    w.bytes = nullptr;
    w.len = 0;
    w.start = UINT64_MAX;
}

const SpillScan::Window* SpillScan::window(uint64_t start, uint64_t need) {
    // Most look-ups (a record's length, then its bytes; the next record) are
    // in the window found last: one compare instead of the scan.
    Window* w = last_ && last_->start == start ? last_ : nullptr;
    if (!w)
        for (Window& k : windows_)
            if (k.start == start) w = &k;
    if (w && w->len >= need) {
        w->last_use = ++uses_;
        last_ = w;
        return w;
    }
    if (!w) w = &*std::min_element(windows_.begin(), windows_.end(),
                                   [](const Window& x, const Window& y) { return x.last_use < y.last_use; });
    unmap(*w);
    // Only the written part: a page past the file's end would fault (SIGBUS).
    const uint64_t len = std::min<uint64_t>(kWindowBytes, file_.written() - start);
    void* p = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, file_.fd(), off_t(start));
    if (p == MAP_FAILED) return nullptr;
    w->start = start;
    w->bytes = static_cast<const char*>(p);
    w->len = len;
    w->last_use = ++uses_;
    ++mapped_;
    last_ = w;
    return w;
}

bool SpillScan::copy(uint64_t offset, uint64_t n, char* out) {
    while (n) {
        const uint64_t start = offset - offset % kWindowBytes;
        const uint64_t at = offset - start;
        const uint64_t take = std::min<uint64_t>(n, kWindowBytes - at);
        const Window* w = window(start, at + take);
        if (!w) return false;
        std::memcpy(out, w->bytes + at, size_t(take));
        out += take;
        offset += take;
        n -= take;
    }
    return true;
}

std::optional<std::string_view> SpillScan::record(uint64_t offset) {
    const uint64_t written = file_.written();
    if (offset + 4 > written) return std::nullopt;
    const uint64_t start = offset - offset % kWindowBytes;
    const uint64_t at = offset - start;
    uint32_t len = 0;
    if (at + 4 <= kWindowBytes) {
        const Window* w = window(start, at + 4);
        if (!w) return std::nullopt;
        std::memcpy(&len, w->bytes + at, 4);
    } else if (!copy(offset, 4, reinterpret_cast<char*>(&len))) {
        return std::nullopt;
    }
    if (uint64_t(len) + 4 > kWindowBytes || offset + 4 + len > written) return std::nullopt;
    if (at + 4 + len <= kWindowBytes) {
        const Window* w = window(start, at + 4 + len);
        if (!w) return std::nullopt;
        return std::string_view(w->bytes + at + 4, len);
    }
    joined_.resize(len);
    if (!copy(offset + 4, len, joined_.data())) return std::nullopt;
    return std::string_view(joined_);
}

} // namespace stallscope
