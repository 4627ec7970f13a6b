#include "analyzers/result/result_spill.h"

#include "analyzers/result/model_spill.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace stallscope {

namespace {
constexpr uint64_t kFirstRead = 4096;  // most records are shorter: one read each
constexpr size_t kKeepReadBuffer = 64 * 1024;
constexpr uint64_t kMaxDenseGap = 1 << 20;  // ids further apart than this: pairs
constexpr size_t kIndexBlock = 4096;        // offsets per index block (32 KiB)
constexpr size_t kIndexCached = 4;          // blocks cached while writing (ids arrive nearly in order)
constexpr size_t kRun = 16384;              // findings sorted in memory at a time (384 KiB)

std::unique_ptr<SpillFile> index_file(const std::string& dir) {
    std::string error;
    auto f = SpillFile::create(dir, error);
    if (!f) throw SpillError(error);
    return f;
}
}

ResultSpill::ResultSpill(std::unique_ptr<SpillFile> file)
    : file_(std::move(file)), conns_(index_file(file_->dir())), calls_(index_file(file_->dir())),
      findings_(kRun, [dir = file_->dir()] { return index_file(dir); }, FindingOrder{&kinds_}),
      findings_index_(index_file(file_->dir())) {}

ResultSpill::ById::ById(std::unique_ptr<SpillFile> index) : slots_(kIndexBlock, kIndexCached) {
    slots_.to_file(std::move(index));
}

void ResultSpill::ById::put(uint64_t id, uint64_t offset) {
    ++count_;
    if (dense_ && id != 0 && id <= max_id_ + kMaxDenseGap && (id > max_id_ || slots_.at(id - 1) == 0)) {
        slots_.at(id - 1) = offset + 1;
        max_id_ = std::max(max_id_, id);
        return;
    }
    if (dense_)  // from now on pairs for all (rare: odd ids)
        slots_.each([&](uint64_t i, uint64_t slot) {
            if (slot && i < max_id_) sparse_.push_back({i + 1, slot - 1});
        });
    dense_ = false;
    sparse_.push_back({id, offset});
}

void ResultSpill::ById::seal() {
    if (!dense_) {
        std::stable_sort(sparse_.begin(), sparse_.end(), [](auto& a, auto& b) { return a.first < b.first; });
        return;
    }
    slots_.each([&](uint64_t i, uint64_t slot) {
        if (!slot && i < max_id_) missing_.push_back(i + 1);
    });
    slots_.flush();
}

uint64_t ResultSpill::ById::at(size_t i) const {
    if (i >= count_) throw std::out_of_range("ResultSpill: item " + std::to_string(i) + " of " + std::to_string(count_));
    if (!dense_) return sparse_[i].second;
    // The i-th present id is i + 1 + k, k = the missing ids below it: the
    // first k with missing_[k] - k > i + 1 (that difference never falls).
    size_t lo = 0, hi = missing_.size();
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (missing_[mid] - mid > i + 1) hi = mid;
        else lo = mid + 1;
    }
    return slots_.get(i + lo) - 1;
}

bool ResultSpill::ById::find(uint64_t id, uint64_t& offset) const {
    if (!dense_) {
        auto it = std::lower_bound(sparse_.begin(), sparse_.end(), id, [](auto& e, uint64_t k) { return e.first < k; });
        if (it == sparse_.end() || it->first != id) return false;
        offset = it->second;
        return true;
    }
    if (id == 0 || id > max_id_) return false;
    const uint64_t slot = slots_.get(id - 1);
    if (!slot) return false;
    offset = slot - 1;
    return true;
}

template <class Fn> void ResultSpill::ById::each(Fn&& fn) const {
    if (!dense_) {
        for (auto& [id, offset] : sparse_)
            if (!fn(offset)) return;
        return;
    }
    std::vector<uint64_t> chunk;
    for (uint64_t first = 0; first < max_id_; first += kIndexBlock) {
        slots_.read(first, size_t(std::min<uint64_t>(kIndexBlock, max_id_ - first)), chunk);
        for (uint64_t slot : chunk)
            if (slot && !fn(slot - 1)) return;
    }
}

uint64_t ResultSpill::put(std::string_view bytes) {
    const uint32_t len = uint32_t(bytes.size());
    char head[4];
    std::memcpy(head, &len, 4);
    uint64_t at = file_->append(std::string_view(head, 4));
    file_->append(bytes);
    return at;
}

void ResultSpill::add(const Connection& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    conns_.put(c.id, put(scratch_));
    capture_point_.add(c);
}

void ResultSpill::add(const Call& c) {
    scratch_.clear();
    spill_encode(c, scratch_);
    calls_.put(c.id, put(scratch_));
}

void ResultSpill::add(const Finding& f) {
    scratch_.clear();
    spill_encode(f, scratch_);
    auto k = std::find(kinds_.begin(), kinds_.end(), f.kind);
    const uint64_t kind = uint64_t(k - kinds_.begin());
    if (k == kinds_.end()) kinds_.push_back(f.kind);
    if (kind >= (1u << 16))
        throw SpillError("spill file in " + file_->dir() + ": more than 65536 kinds of finding");
    findings_.add({f.calls.empty() ? 0 : f.calls.front(), uint64_t(finding_count_++) << 16 | kind, put(scratch_)});
}

uint64_t ResultSpill::finding_offset(size_t i) const {
    if (i >= finding_count_)
        throw std::out_of_range("ResultSpill: finding " + std::to_string(i) + " of " + std::to_string(finding_count_));
    std::string bytes;
    findings_index_->read_written(8 * uint64_t(i), 8, bytes);
    uint64_t offset = 0;
    std::memcpy(&offset, bytes.data(), 8);
    return offset;
}

template <class T> void ResultSpill::read(uint64_t offset, T& out, SpillScan* scan, bool brief) const {
    decode(record(offset, scan), offset, out, brief);
}

std::string_view ResultSpill::record(uint64_t offset, SpillScan* scan) const {
    if (scan)
        if (auto record = scan->record(offset)) return *record;
    // Reused per thread: a new buffer per record was an allocation and a
    // 4 KiB zero-fill (resize) every time, 4 % of a run's instructions.
    thread_local std::string bytes;
    if (bytes.capacity() > kKeepReadBuffer) bytes = std::string();  // after a huge record
    const uint64_t size = file_->size();
    uint32_t len = 0;
    if (offset + 4 <= size) {
        file_->read(offset, uint32_t(std::min(kFirstRead, size - offset)), bytes);
        std::memcpy(&len, bytes.data(), 4);
    }
    if (offset + 4 > size || offset + 4 + len > size)
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) + " runs past the end");
    if (4 + len <= bytes.size()) return std::string_view(bytes).substr(4, len);
    file_->read(offset + 4, len, bytes);
    return bytes;
}

void ResultSpill::add_call_record(uint64_t id, std::string_view record) {
    call_records_ = true;
    calls_.put(id, put(record));
}

void ResultSpill::no_call_records() const {
    if (call_records_)
        throw SpillError("spill file in " + file_->dir() + ": its calls were stored for one report only");
}

void ResultSpill::each_call_record(const std::function<bool(std::string_view)>& fn) const {
    SpillScan scan(*file_);
    calls_.each([&](uint64_t offset) { return fn(record(offset, &scan)); });
}

bool ResultSpill::copy_call_record(uint64_t id, std::string& out) const {
    uint64_t offset = 0;
    if (!call_records_ || !calls_.find(id, offset)) return false;
    // Not through record(): its buffer may hold the record the walk is on.
    const uint64_t size = file_->size();
    if (offset + 4 > size)
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) + " runs past the end");
    file_->read(offset, 4, out);
    uint32_t len = 0;
    std::memcpy(&len, out.data(), 4);
    if (offset + 4 + len > size)
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) + " runs past the end");
    file_->read(offset + 4, len, out);
    return true;
}

template <class T> void ResultSpill::decode(std::string_view record, uint64_t offset, T& out, bool brief) const {
    // Into the caller's record, whose memory is reused (each_* and the row
    // views pass the same one each time); on SpillError it holds part of one.
    bool ok;
    if constexpr (std::is_same_v<T, Finding>) ok = brief ? spill_decode_brief(record, out) : spill_decode_into(record, out);
    else ok = spill_decode_into(record, out);
    if (!ok)
        throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(offset) +
                         " does not decode");
}

void ResultSpill::seal(const std::function<void(Finding&)>& each_finding,
                       const std::function<bool(const std::string& kind)>& changes_more) {
    conns_.seal();
    calls_.seal();
    // Rewrite the findings, final and in order, after everything else; their
    // new offsets, in that order, to the findings index.
    // Each read brief and written back with its text and frames copied as
    // they were: the callback needs neither (decoding and encoding them was
    // half of this round trip). A kind whose final touch sets counted_ms
    // only is read lean and its record copied with that field set: two
    // kinds of three on the bench file, whose round trip was 14.7 M.
    std::vector<char> lean(kinds_.size());
    if (changes_more)
        for (size_t k = 0; k < kinds_.size(); ++k) lean[k] = !changes_more(kinds_[k]);
    // One reused finding per kind: the kinds alternate, and decoding one
    // kind's details into another's freed and allocated their strings.
    std::vector<Finding> by_kind(kinds_.size());
    FindingText text;
    // Through the scan: the findings come in about the order they were
    // written (by first call), and a read of its own each was 5,853 preads
    // of 4 KiB on the bench file. The scan maps what is written only, so the
    // new records' appends stay buffered.
    SpillScan scan(*file_);
    findings_.each([&](const FindingEntry& e) {
        Finding& f = by_kind[e.kind()];
        const std::string_view rec = record(e.offset, &scan);
        const bool copy = lean[e.kind()];
        if (!(copy ? spill_decode_lean(rec, f) : spill_decode_brief(rec, f, text)))
            throw SpillError("spill file in " + file_->dir() + ": record at offset " + std::to_string(e.offset) +
                             " does not decode");
        each_finding(f);
        if (copy) {
            if (!f.details.empty())
                throw std::logic_error("ResultSpill::seal: details set in a finding of a kind said to change counted_ms only");
            scratch_.assign(rec);  // a view into the scan's window or record()'s buffer: neither changes on put()
            spill_set_counted_ms(scratch_, f.counted_ms);
        } else {
            scratch_.clear();
            spill_encode_brief(f, text, scratch_);
        }
        const uint64_t offset = put(scratch_);
        findings_index_->append(std::string_view(reinterpret_cast<const char*>(&offset), 8));
    });
    file_->flush();
    findings_index_->flush();
}

void ResultSpill::each_connection(const std::function<bool(const Connection&)>& fn) const {
    Connection c;
    SpillScan scan(*file_);
    conns_.each([&](uint64_t offset) {
        read(offset, c, &scan);
        return fn(c);
    });
}

void ResultSpill::each_call(const std::function<bool(const Call&)>& fn) const {
    no_call_records();
    Call c;
    SpillScan scan(*file_);
    calls_.each([&](uint64_t offset) {
        read(offset, c, &scan);
        return fn(c);
    });
}

size_t ResultSpill::kind_of(std::string_view record) const {
    // The record's tag byte, then its kind as a string (length < 128: one byte).
    if (record.size() >= 2 && uint8_t(record[1]) < 0x80) {
        const std::string_view kind = record.substr(2, uint8_t(record[1]));
        for (size_t k = 0; k < kinds_.size(); ++k)
            if (kinds_[k] == kind) return k;
    }
    return kinds_.size();
}

void ResultSpill::each_finding(const std::function<bool(const Finding&)>& fn, bool brief) const {
    // One reused finding per kind, as in seal().
    std::vector<Finding> by_kind(kinds_.size() + 1);
    std::string bytes;
    SpillScan scan(*file_);
    for (size_t first = 0; first < finding_count_; first += kIndexBlock) {
        const size_t n = std::min(kIndexBlock, finding_count_ - first);
        findings_index_->read_written(8 * uint64_t(first), uint32_t(8 * n), bytes);
        for (size_t i = 0; i < n; ++i) {
            uint64_t offset = 0;
            std::memcpy(&offset, bytes.data() + 8 * i, 8);
            const std::string_view rec = record(offset, &scan);
            Finding& f = by_kind[kind_of(rec)];
            decode(rec, offset, f, brief);
            if (!fn(f)) return;
        }
    }
}

// connection_at, call_at and finding_at (in the header) read through these.
template void ResultSpill::read(uint64_t, Connection&, SpillScan*, bool) const;
template void ResultSpill::read(uint64_t, Call&, SpillScan*, bool) const;
template void ResultSpill::read(uint64_t, Finding&, SpillScan*, bool) const;

bool ResultSpill::find_connection(uint64_t id, Connection& out) const {
    uint64_t offset = 0;
    if (!conns_.find(id, offset)) return false;
    read(offset, out);
    return true;
}

bool ResultSpill::find_call(uint64_t id, Call& out) const {
    no_call_records();
    uint64_t offset = 0;
    if (!calls_.find(id, offset)) return false;
    read(offset, out);
    return true;
}

size_t connection_count(const AnalysisResult& r) { return r.spill ? r.spill->connection_count() : r.connections.size(); }
size_t call_count(const AnalysisResult& r) {
    return size_t(r.calls_not_kept) + (r.spill ? r.spill->call_count() : r.calls.size());
}
size_t finding_count(const AnalysisResult& r) { return r.spill ? r.spill->finding_count() : r.findings.size(); }

// A result is either all in memory or all spilled (Analyzer moves what it
// held when it starts spilling).
void for_each_connection(const AnalysisResult& r, const std::function<bool(const Connection&)>& fn) {
    if (r.spill) return r.spill->each_connection(fn);
    for (const Connection& c : r.connections)
        if (!fn(c)) return;
}

void for_each_call(const AnalysisResult& r, const std::function<bool(const Call&)>& fn) {
    if (r.spill) return r.spill->each_call(fn);
    for (const Call& c : r.calls)
        if (!fn(c)) return;
}

void for_each_finding(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn) {
    if (r.spill) return r.spill->each_finding(fn);
    for (const Finding& f : r.findings)
        if (!fn(f)) return;
}

void for_each_finding_brief(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn) {
    if (r.spill) return r.spill->each_finding(fn, true);
    for (const Finding& f : r.findings)
        if (!fn(f)) return;
}

void finding_at(const AnalysisResult& r, size_t i, Finding& out) {
    if (r.spill) return r.spill->finding_at(i, out);
    out = r.findings.at(i);
}

} // namespace stallscope
