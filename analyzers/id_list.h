#pragma once
// Call ids kept compactly while a capture is read: each id as the zigzag
// varint of its difference from the previous one. Ids arrive nearly in
// order, so most take one byte instead of eight.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace stallscope {

class IdList {
public:
    void add(uint64_t id) {
        const int64_t d = int64_t(id - last_);
        uint64_t z = (uint64_t(d) << 1) ^ uint64_t(d >> 63);
        while (z >= 0x80) {
            bytes_.push_back(char(z | 0x80));
            z >>= 7;
        }
        bytes_.push_back(char(z));
        last_ = id;
        ++size_;
    }
    size_t size() const { return size_; }
    // Every id, ascending.
    std::vector<uint64_t> sorted() const {
        std::vector<uint64_t> out;
        out.reserve(size_);
        uint64_t last = 0, z = 0;
        int shift = 0;
        for (char ch : bytes_) {
            const auto b = uint8_t(ch);
            z |= uint64_t(b & 0x7f) << shift;
            shift += 7;
            if (b & 0x80) continue;
            last += (z >> 1) ^ (~(z & 1) + 1);
            out.push_back(last);
            z = 0;
            shift = 0;
        }
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::deque<char> bytes_;  // grows without copying
    uint64_t last_ = 0;
    size_t size_ = 0;
};

} // namespace stallscope
