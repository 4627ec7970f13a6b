#include "analyzers/summary_records.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace stallscope {

static_assert(std::is_trivially_copyable_v<SummaryRecords::Rec>);

namespace {
constexpr size_t kBlockBytes = SummaryRecords::kBlock * sizeof(SummaryRecords::Rec);
}

SummaryRecords::SummaryRecords() = default;
SummaryRecords::~SummaryRecords() = default;

void SummaryRecords::to_file(std::unique_ptr<SpillFile> file) {
    file_ = std::move(file);
    loaded_.clear();
    for (size_t b = 0; b < blocks_.size(); ++b)
        if (blocks_[b].recs) loaded_.push_back(b);
    while (loaded_.size() > kCachedBlocks) evict();
}

void SummaryRecords::evict() {
    size_t b = loaded_.front();
    loaded_.pop_front();
    Slot& s = blocks_[b];
    if (s.dirty) {
        file_->write_at(uint64_t(b) * kBlockBytes, std::string_view(reinterpret_cast<const char*>(s.recs.get()), kBlockBytes));
        s.on_file = true;
        s.dirty = false;
    }
    s.recs.reset();
}

SummaryRecords::Rec* SummaryRecords::block(size_t b) {
    if (b >= blocks_.size()) blocks_.resize(b + 1);
    Slot& s = blocks_[b];
    if (s.recs) return s.recs.get();
    if (file_ && loaded_.size() >= kCachedBlocks) evict();
    s.recs.reset(new Rec[kBlock]);
    std::memset(static_cast<void*>(s.recs.get()), 0, kBlockBytes);
    if (s.on_file) {
        std::string bytes;
        file_->read(uint64_t(b) * kBlockBytes, uint32_t(kBlockBytes), bytes);
        std::memcpy(static_cast<void*>(s.recs.get()), bytes.data(), kBlockBytes);
    }
    if (file_) loaded_.push_back(b);
    return s.recs.get();
}

SummaryRecords::Rec& SummaryRecords::at(uint64_t id) {
    const size_t b = size_t((id - 1) / kBlock);
    Rec* recs = block(b);
    blocks_[b].dirty = true;
    return recs[(id - 1) % kBlock];
}

void SummaryRecords::add_saving(uint64_t id, Rec& r, Saving s) {
    if (r.nsavings < kInlineSavings) r.savings[r.nsavings] = s;
    else more_savings_[id].push_back(s);
    if (r.nsavings < 255) ++r.nsavings;
}

void SummaryRecords::each_saving(uint64_t id, const Rec& r, const std::function<void(const Saving&)>& fn) const {
    for (size_t i = 0; i < std::min<size_t>(r.nsavings, kInlineSavings); ++i) fn(r.savings[i]);
    if (r.nsavings <= kInlineSavings) return;
    auto it = more_savings_.find(id);
    if (it != more_savings_.end())
        for (const Saving& s : it->second) fn(s);
}

void SummaryRecords::each(const std::function<void(uint64_t id, const Rec&)>& fn) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
        if (!blocks_[b].recs && !blocks_[b].on_file) continue;  // never written: no call
        const Rec* recs = block(b);
        for (size_t i = 0; i < kBlock; ++i)
            if (recs[i].complete) fn(uint64_t(b) * kBlock + i + 1, recs[i]);
    }
}

} // namespace stallscope
