#pragma once
// The gzip estimate of message_size is a ratio per operation, so it needs a
// sample of each operation's messages, not all of them: compressing every
// body of 512 B or more was a third of the analysis time. Deterministic (the
// same capture always samples the same messages, in capture order), so
// reports stay reproducible.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace stallscope {

class DeflateSampler {
public:
    // The first kFirst messages of each (operation, direction) are
    // compressed, then one in kEvery, so a long capture still follows drift.
    static constexpr uint64_t kFirst = 32;
    static constexpr uint64_t kEvery = 64;
    // Past this many distinct keys every message is compressed (exact, only slower).
    static constexpr size_t kMaxKeys = 4096;

    // `every` = 0 compresses every message (the full computation, for tests).
    explicit DeflateSampler(uint64_t first = kFirst, uint64_t every = kEvery) : first_(first), every_(every) {}

    // The estimated deflate size of `content` (>= 512 B): compressed when it is
    // in the sample, else the key's sampled ratio applied to its size.
    uint64_t estimate(const std::string& key, std::string_view content);

    uint64_t compressed() const { return compressed_; }

private:
    struct Ratio { uint64_t seen = 0, in = 0, out = 0; };
    uint64_t first_, every_;
    std::map<std::string, Ratio> keys_;
    uint64_t compressed_ = 0;
};

// Deflate size (zlib wrapper included) of the first 64 KiB of `content`, and
// how many bytes that was; the estimate for the whole scales the ratio.
struct DeflateSample { uint64_t in = 0, out = 0; bool ok = false; };
DeflateSample deflate_sample(std::string_view content);

} // namespace stallscope
