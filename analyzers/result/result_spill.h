#pragma once
// Where a result's connections, calls and findings live: in the vectors of
// AnalysisResult, or, for captures with more calls than the analysis keeps
// in memory, in a spill file (analyzers/spill/spill_file.h) with only a small
// index in memory. Reports read items through the for_each_* functions and
// so work the same either way.
#include "analyzers/result/capture_point_tally.h"
#include "analyzers/result/model.h"
#include "analyzers/spill/external_sort.h"
#include "analyzers/spill/spill_array.h"
#include "analyzers/spill/spill_file.h"
#include "analyzers/spill/spill_scan.h"

#include <functional>
#include <memory>
#include <vector>

namespace stallscope {

class ResultSpill {
public:
    // Its index files go in the same directory. Throws SpillError when they
    // cannot be created.
    explicit ResultSpill(std::unique_ptr<SpillFile> file);
    ResultSpill(const ResultSpill&) = delete;  // the findings' order points at kinds_
    ResultSpill& operator=(const ResultSpill&) = delete;

    // While analysing, in any order. Throws SpillError.
    void add(const Connection& c);
    void add(const Call& c);
    void add(const Finding& f);
    // A call stored as a report's own record (AnalysisOptions::spill_call_as),
    // not decodable as a Call: once one is added, each_call, call_at and
    // find_call throw, and each_call_record reads them.
    void add_call_record(uint64_t id, std::string_view record);
    bool calls_are_records() const { return call_records_; }

    // Puts everything in report order: connections and calls by id, findings
    // by (first call, kind, arrival) like Analyzer::finish sorts them.
    // `each_finding` sees every finding once, in that order, and may change
    // it (finalize) before it is stored for good. It sees each one brief
    // (spill_decode_brief: without its text and evidence frames, which are
    // stored as they were; what it writes there is not kept).
    // `changes_more(kind)`, when given, says whether each_finding may change
    // more than counted_ms in a finding of that kind. Where it says no, the
    // finding comes lean (spill_decode_lean: without its details either) and
    // its record is copied with only counted_ms set, not encoded again.
    // Throws SpillError, and std::logic_error when each_finding set details
    // in a lean finding (they would be lost).
    void seal(const std::function<void(Finding&)>& each_finding,
              const std::function<bool(const std::string& kind)>& changes_more = nullptr);

    size_t connection_count() const { return conns_.size(); }
    size_t call_count() const { return calls_.size(); }
    size_t finding_count() const { return finding_count_; }
    uint64_t file_bytes() const { return file_->size(); }
    // Where the capture was taken, from the connections added so far
    // (tallied as they came, not read back).
    CapturePointSummary capture_point() const { return capture_point_.done(); }
    const std::string& dir() const { return file_->dir(); }  // where its files are

    // Read back in report order; `fn` returns false to stop. Throws SpillError.
    void each_connection(const std::function<bool(const Connection&)>& fn) const;
    void each_call(const std::function<bool(const Call&)>& fn) const;
    // The records of add_call_record, by call id (the view lasts the call).
    void each_call_record(const std::function<bool(std::string_view)>& fn) const;
    // The record of add_call_record for call `id`, copied into `out` (false
    // when there is none): one record another refers to, read while
    // each_call_record walks. After seal(). Throws SpillError.
    bool copy_call_record(uint64_t id, std::string& out) const;
    // `brief`: without their text and evidence frames (spill_decode_brief).
    void each_finding(const std::function<bool(const Finding&)>& fn, bool brief = false) const;

    // One item by its place in report order (i < the count), or a connection /
    // call by id (false when there is none): two reads (index, record), for
    // views that fetch rows on demand. After seal(), reads only: safe from
    // several threads. Throws SpillError.
    void connection_at(size_t i, Connection& out) const { read(conns_.at(i), out); }
    void call_at(size_t i, Call& out) const { no_call_records(); read(calls_.at(i), out); }
    void finding_at(size_t i, Finding& out) const { read(finding_offset(i), out); }
    bool find_connection(uint64_t id, Connection& out) const;
    bool find_call(uint64_t id, Call& out) const;

private:
    // Connections and calls by id: ids are dense (1, 2, 3, ...), so the
    // index is the record's offset at slot id - 1, in an index file (8 bytes
    // an item on disk, a few blocks cached); odd ids (0, repeated, far
    // apart) fall back to (id, offset) pairs in memory.
    class ById {
    public:
        explicit ById(std::unique_ptr<SpillFile> index);
        void put(uint64_t id, uint64_t offset);
        void seal();  // ids with no item leave; after it, items are in id order
        size_t size() const { return count_; }
        uint64_t at(size_t i) const;  // the offset of the i-th item in id order (after seal)
        bool find(uint64_t id, uint64_t& offset) const;
        template <class Fn> void each(Fn&& fn) const;  // fn(offset), in id order (after seal)
    private:
        SpillArray<uint64_t> slots_;     // offset + 1; 0 = no item
        uint64_t max_id_ = 0;
        bool dense_ = true;
        std::vector<uint64_t> missing_;  // after seal: ids below max_id_ with no item, ascending
        std::vector<std::pair<uint64_t, uint64_t>> sparse_;
        size_t count_ = 0;
    };
    // Findings are put in report order at seal by an external merge sort
    // (runs of 16k entries); their final offsets, in that order, go to an
    // index file.
    struct FindingEntry {  // 24 bytes
        uint64_t first_call = 0;
        uint64_t seq = 0;   // arrival << 16 | index into kinds_
        uint64_t offset = 0;
        uint16_t kind() const { return uint16_t(seq & 0xffff); }
    };
    // Report order: (first call, kind name, arrival), as Analyzer::finish sorts.
    struct FindingOrder {
        const std::vector<std::string>* kinds;
        bool operator()(const FindingEntry& a, const FindingEntry& b) const {
            if (a.first_call != b.first_call) return a.first_call < b.first_call;
            if (a.kind() != b.kind()) return (*kinds)[a.kind()] < (*kinds)[b.kind()];
            return a.seq < b.seq;
        }
    };
    uint64_t put(std::string_view bytes);  // a record: 4-byte length, then the bytes
    // `scan`: a walk's block cache (each_*), else one read per record.
    template <class T> void read(uint64_t offset, T& out, SpillScan* scan = nullptr, bool brief = false) const;
    std::string_view record(uint64_t offset, SpillScan* scan) const;  // valid until the next read
    void no_call_records() const;  // throws when calls_are_records()
    template <class T> void decode(std::string_view record, uint64_t offset, T& out, bool brief) const;
    uint64_t finding_offset(size_t i) const;
    size_t kind_of(std::string_view finding_record) const;  // its index in kinds_, kinds_.size() when not there

    std::unique_ptr<SpillFile> file_;
    ById conns_, calls_;
    CapturePointTally capture_point_;
    std::vector<std::string> kinds_;
    ExternalSort<FindingEntry, FindingOrder> findings_;
    std::unique_ptr<SpillFile> findings_index_;  // after seal: each finding's offset, in report order
    size_t finding_count_ = 0;
    bool call_records_ = false;
    mutable std::string scratch_;
};

// The items of a result, wherever they are.
size_t connection_count(const AnalysisResult& r);
size_t call_count(const AnalysisResult& r);
size_t finding_count(const AnalysisResult& r);
void for_each_connection(const AnalysisResult& r, const std::function<bool(const Connection&)>& fn);
void for_each_call(const AnalysisResult& r, const std::function<bool(const Call&)>& fn);
void for_each_finding(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn);
// Every finding for a reader that needs only kinds, sides, calls, costs and
// details: a spilled one comes without cost_method, explanation, fix,
// toolkit, toolkit_fix and frames (empty; a fifth of the decoding), an
// in-memory one whole. Fetch the few whole ones needed with finding_at.
void for_each_finding_brief(const AnalysisResult& r, const std::function<bool(const Finding&)>& fn);
// The i-th finding in report order, whole (i < finding_count(r)). Throws
// std::out_of_range, SpillError.
void finding_at(const AnalysisResult& r, size_t i, Finding& out);

} // namespace stallscope
