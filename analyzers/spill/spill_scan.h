#pragma once
// Reading many records of a spill file in about the order they were written
// (a report walking every call): a few 64 KiB blocks are kept, so most
// records cost neither a system call nor a 4 KiB read of their own. One per
// walk (not shared between threads).
#include "analyzers/spill/spill_file.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallscope {

class SpillScan {
public:
    explicit SpillScan(SpillFile& file) : file_(file) {}

    // The bytes of the record at `offset` (after its 4-byte length) when the
    // record lies whole in a block, reading the block that starts at `offset`
    // if no block holds it. nullopt when it is longer than a block or runs
    // past the end of the file: the caller reads it the slow way, which also
    // reports the error. Throws SpillError.
    std::optional<std::string_view> record(uint64_t offset);

    static constexpr uint32_t kBlockBytes = 64 * 1024;

private:
    struct Block {
        uint64_t start = 0;
        std::string bytes;
        uint64_t last_use = 0;
    };
    static std::optional<std::string_view> in(const Block& b, uint64_t offset);

    SpillFile& file_;
    // Calls are written as they finish, not in id order: a few blocks keep
    // the places a walk in id order moves between.
    std::array<Block, 4> blocks_;
    uint64_t uses_ = 0;
};

} // namespace stallscope
