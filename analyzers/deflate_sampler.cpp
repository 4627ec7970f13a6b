#include "analyzers/deflate_sampler.h"

#include <algorithm>
#include <vector>

#include <zlib.h>

namespace stallscope {

namespace {
// compress2 adds a 6-byte zlib wrapper; gzip adds 18 bytes instead.
constexpr uint64_t kGzipExtra = 12;
uint64_t scale(uint64_t in, uint64_t out, size_t size) { return uint64_t(double(out) / double(in) * double(size)) + kGzipExtra; }
} // namespace

DeflateSample deflate_sample(std::string_view content) {
    constexpr size_t kSample = 64 * 1024;  // a big body costs a bounded amount of CPU
    DeflateSample s;
    size_t n = std::min(content.size(), kSample);
    uLongf cap = compressBound(uLong(n));
    thread_local std::vector<Bytef> buf;
    if (buf.size() < cap) buf.resize(cap);
    if (n == 0 || compress2(buf.data(), &cap, reinterpret_cast<const Bytef*>(content.data()), uLong(n), 6) != Z_OK) return s;
    s.in = n;
    s.out = cap;
    s.ok = true;
    return s;
}

uint64_t DeflateSampler::estimate(const std::string& key, std::string_view content) {
    auto it = keys_.find(key);
    if (it == keys_.end()) {
        if (keys_.size() >= kMaxKeys) {
            DeflateSample s = deflate_sample(content);
            ++compressed_;
            return s.ok ? scale(s.in, s.out, content.size()) : 0;
        }
        it = keys_.emplace(key, Ratio{}).first;
    }
    Ratio& r = it->second;
    uint64_t i = r.seen++;
    bool sample = every_ == 0 || i < first_ || (i - first_) % every_ == every_ - 1 || r.in == 0;
    if (sample) {
        DeflateSample s = deflate_sample(content);
        ++compressed_;
        if (!s.ok) return 0;
        r.in += s.in;
        r.out += s.out;
        return scale(s.in, s.out, content.size());
    }
    return scale(r.in, r.out, content.size());
}

} // namespace stallscope
