#pragma once
// Where a result's connections, calls and findings live: in the vectors of
// AnalysisResult, or, for captures with more calls than the analysis keeps
// in memory, in a spill file (analyzers/spill_file.h) with only a small
// index in memory. Reports read items through the for_each_* functions and
// so work the same either way.
#include "analyzers/model.h"
#include "analyzers/spill_file.h"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace stallscope {

class ResultSpill {
public:
    explicit ResultSpill(std::unique_ptr<SpillFile> file);

    // While analysing, in any order. Throws SpillError.
    void add(const Connection& c);
    void add(const Call& c);
    void add(const Finding& f);

    // Puts everything in report order: connections and calls by id, findings
    // by (first call, kind, arrival) like Analyzer::finish sorts them.
    // `each_finding` sees every finding once, in that order, and may change
    // it (finalize) before it is stored for good. Throws SpillError.
    void seal(const std::function<void(Finding&)>& each_finding);

    size_t connection_count() const { return conns_.size(); }
    size_t call_count() const { return calls_.size(); }
    size_t finding_count() const { return findings_.size(); }
    uint64_t file_bytes() const { return file_->size(); }

    // Read back in report order; `fn` returns false to stop. Throws SpillError.
    void each_connection(const std::function<bool(const Connection&)>& fn) const;
    void each_call(const std::function<bool(const Call&)>& fn) const;
    void each_finding(const std::function<bool(const Finding&)>& fn) const;

    // One item by its place in report order (i < the count), or a connection /
    // call by id (false when there is none): one read, for views that fetch
    // rows on demand. After seal(). Throws SpillError.
    void connection_at(size_t i, Connection& out) const { read(conns_.at(i), out); }
    void call_at(size_t i, Call& out) const { read(calls_.at(i), out); }
    void finding_at(size_t i, Finding& out) const { read(findings_.at(i).offset, out); }
    bool find_connection(uint64_t id, Connection& out) const;
    bool find_call(uint64_t id, Call& out) const;

private:
    // Connections and calls by id: ids are dense (1, 2, 3, ...), so the
    // index is the record's offset at slot id - 1 (8 bytes an item); odd
    // ids (0, repeated, far apart) fall back to (id, offset) pairs.
    class ById {
    public:
        void put(uint64_t id, uint64_t offset);
        void seal();  // ids with no item leave the slots; after it, items are in id order
        size_t size() const { return count_; }
        uint64_t at(size_t i) const { return sparse_.empty() ? slots_.at(i) - 1 : sparse_.at(i).second; }
        bool find(uint64_t id, uint64_t& offset) const;
    private:
        std::deque<uint64_t> slots_;     // offset + 1; 0 = no item (until seal)
        std::vector<uint64_t> missing_;  // after seal: ids below the last with no item, ascending
        std::vector<std::pair<uint64_t, uint64_t>> sparse_;
        size_t count_ = 0;
    };
    struct FindingEntry {  // 16 bytes
        uint64_t key_kind = 0;  // first call << 16 | index into kinds_
        uint64_t offset = 0;
    };
    uint64_t put(const std::string& bytes);  // a record: 4-byte length, then the bytes
    template <class T> void read(uint64_t offset, T& out) const;

    std::unique_ptr<SpillFile> file_;
    ById conns_, calls_;
    std::deque<FindingEntry> findings_;  // deques: growing never copies (no freed old copies left in the heap)
    std::vector<std::string> kinds_;
    mutable std::string scratch_;
};

// The items of a result, wherever they are.
size_t connection_count(const AnalysisResult& r);
size_t call_count(const AnalysisResult& r);
size_t finding_count(const AnalysisResult& r);
void for_each_connection(const AnalysisResult& r, const std::function<bool(const Connection&)>& fn);
void for_each_call(const AnalysisResult& r, const std::function<bool(const Call&)>& fn);
void for_each_finding(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn);

} // namespace stallscope
