#pragma once
// The few numbers the summary keeps per complete call, as fixed-size records
// by call id. In memory until to_file(); then in a spill file with only a
// few blocks cached, so a capture's summary inputs cost no memory per call
// (the block table: 8 bytes per kBlock calls).
#include "analyzers/spill/spill_array.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace stallscope {

class SummaryRecords {
public:
    struct Saving {
        uint32_t fix = 0;  // the builder's fix index
        uint32_t pad = 0;
        double ms = 0;
    };
    static constexpr size_t kInlineSavings = 4;  // more live in a map (rare: one call, five fixes)
    struct Rec {           // all-zero bytes = no complete call with this id
        uint8_t complete = 0;
        uint8_t nsavings = 0;
        uint8_t lived = 0;         // lived_ms is set: the path to the client is known
        uint8_t pad = 0;
        uint32_t op = 0;
        uint32_t kinds = 0;
        uint32_t pad2 = 0;
        double latency_ms = 0;
        double avoidable_ms = 0;   // the ledger's: stall_ms, client_ms, predicted_ms
        double client_ms = 0;
        double predicted_ms = 0;
        double setup_ms = -1;
        double lived_ms = 0;       // latency + the path to the client (Summary::client_lived)
        Saving savings[kInlineSavings];
    };
    static constexpr size_t kBlock = 1024;       // records per block
    static constexpr size_t kCachedBlocks = 8;   // blocks in memory once on file

    // Moves every block to `file` and from then on keeps kCachedBlocks. Throws SpillError.
    void to_file(std::unique_ptr<SpillFile> file) { recs_.to_file(std::move(file)); }

    uint64_t size() const { return recs_.size(); }  // ids below size() + 1 may exist
    // The record of call `id` (>= 1), created zeroed. Valid until the next
    // at() or each(). Throws SpillError.
    Rec& at(uint64_t id) { return recs_.at(id - 1); }
    void add_saving(uint64_t id, Rec& r, Saving s);
    // Every saving of record `r` (of call `id`). Templates, not std::function:
    // the summary walks every record once per series.
    template <class Fn> void each_saving(uint64_t id, const Rec& r, Fn&& fn) const {
        for (size_t i = 0; i < r.nsavings && i < kInlineSavings; ++i) fn(r.savings[i]);
        if (r.nsavings <= kInlineSavings) return;
        auto it = more_savings_.find(id);
        if (it != more_savings_.end())
            for (const Saving& s : it->second) fn(s);
    }
    // Every complete record in id order, fn(id, rec). Throws SpillError.
    template <class Fn> void each(Fn&& fn) {
        recs_.each([&](uint64_t i, const Rec& r) {
            if (r.complete) fn(i + 1, r);
        });
    }

private:
    SpillArray<Rec> recs_{kBlock, kCachedBlocks};  // call id - 1
    std::unordered_map<uint64_t, std::vector<Saving>> more_savings_;
};

} // namespace stallscope
