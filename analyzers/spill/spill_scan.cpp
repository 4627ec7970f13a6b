#include "analyzers/spill/spill_scan.h"

#include <algorithm>
#include <cstring>

namespace stallscope {

std::optional<std::string_view> SpillScan::in(const Block& b, uint64_t offset) {
    if (offset < b.start) return std::nullopt;
    const uint64_t at = offset - b.start;
    if (at + 4 > b.bytes.size()) return std::nullopt;
    uint32_t len = 0;
    std::memcpy(&len, b.bytes.data() + at, 4);
    if (at + 4 + len > b.bytes.size()) return std::nullopt;
    return std::string_view(b.bytes).substr(size_t(at + 4), len);
}

std::optional<std::string_view> SpillScan::record(uint64_t offset) {
    for (Block& b : blocks_)
        if (auto r = in(b, offset)) {
            b.last_use = ++uses_;
            return r;
        }
    const uint64_t size = file_.size();
    if (offset + 4 > size) return std::nullopt;
    Block& b = *std::min_element(blocks_.begin(), blocks_.end(),
                                 [](const Block& x, const Block& y) { return x.last_use < y.last_use; });
    b.start = offset;
    b.last_use = ++uses_;
    file_.read(offset, uint32_t(std::min<uint64_t>(kBlockBytes, size - offset)), b.bytes);
    return in(b, offset);
}

} // namespace stallscope
