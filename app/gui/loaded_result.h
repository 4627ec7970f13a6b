#pragma once
// A finished (or live) analysis as the views read it. Big captures leave
// their calls, connections and findings in the analysis' spill file
// (analyzers/result/result_spill.h); this keeps only compact per-call and
// per-finding keys in memory, enough to sort, filter, group and plot, and
// fetches whole items on demand through a small cache. Small results keep
// everything in memory and are read the same way.
#include "analyzers/result/model.h"

#include <QString>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope::gui {

// What sorting, filtering and the charts need of one call (about 80 bytes).
struct CallKey {
    enum Flag : uint8_t { Complete = 1, Fault = 2, Stalled = 4 };  // Stalled: a stall of >= kMinStallBracketMs touches it
    uint64_t id = 0, connection_id = 0;
    int64_t start_ns = 0, end_ns = 0;     // the call
    int64_t span_start_ns = 0, span_end_ns = 0;  // with its phases (timeline rows)
    double latency_ms = 0, lost_ms = 0;   // lost: the call ledger's stall time
    uint64_t request_bytes = 0, response_bytes = 0;
    uint64_t kinds = 0;                   // bit i: a finding of kind i (LoadedResult::kinds())
    uint32_t operation = 0;               // index into LoadedResult::operations()
    int16_t status = 0;
    uint8_t flags = 0;
    bool complete() const { return flags & Complete; }
    bool fault() const { return flags & Fault; }
    bool stalled() const { return flags & Stalled; }
};

struct FindingKey {
    uint64_t connection_id = 0, first_call = 0, last_call = 0;
    uint64_t min_call = 0, max_call = 0;   // every call it names is in [min, max]
    int64_t start_ns = 0, end_ns = 0;
    double counted_ms = 0;   // the ledger's: its time counted once after overlaps ("time lost")
    uint32_t calls = 0;   // how many calls it names
    uint16_t kind = 0;    // index into LoadedResult::kinds()
    Side side = Side::Client;
};

class LoadedResult : public AnalysisResult {
public:
    // Takes the analysis over and reads every item once to build the keys.
    // Throws SpillError when the spill file cannot be read.
    explicit LoadedResult(AnalysisResult&& r);
    explicit LoadedResult(const AnalysisResult& r) : LoadedResult(AnalysisResult(r)) {}
    LoadedResult(const LoadedResult&) = delete;
    LoadedResult& operator=(const LoadedResult&) = delete;

    bool spilled() const { return spill != nullptr; }

    size_t callCount() const { return call_keys_.size(); }
    const CallKey& callKey(size_t row) const { return call_keys_[row]; }
    const std::vector<CallKey>& callKeys() const { return call_keys_; }
    // Rows are the calls in report order (by id). -1 when unknown.
    int rowOfCall(uint64_t id) const;
    // The whole call, segments included; nullptr for a bad row / unknown id.
    std::shared_ptr<const Call> call(size_t row) const;
    std::shared_ptr<const Call> callById(uint64_t id) const;

    size_t findingCount() const { return finding_keys_.size(); }
    const FindingKey& findingKey(size_t i) const { return finding_keys_[i]; }
    std::shared_ptr<const Finding> finding(size_t i) const;

    size_t connectionCount() const { return connection_count_; }
    std::shared_ptr<const Connection> connection(uint64_t id) const;

    const std::vector<std::string>& kinds() const { return kinds_; }
    // A stall (time lost), not server processing or a note: finding_kinds.h.
    bool isStall(const FindingKey& k) const;
    std::vector<std::string> kindsOf(const CallKey& k) const;   // in kinds() order
    const std::vector<QString>& operations() const { return operations_; }
    const QString& operationOf(const CallKey& k) const { return operations_[k.operation]; }
    double totalLatencyMs() const { return total_latency_ms_; }

    // One connection with its calls and the findings about them, in memory:
    // what an event trace (call_event_trace / connection_event_trace) or a
    // figure needs. With a call id, only that call and the findings that can
    // be about it (a keep-alive connection may carry 100,000 calls). Empty
    // when the connection is unknown.
    AnalysisResult slice(uint64_t connection_id, uint64_t only_call = 0) const;

    // Items decoded and cached at most (each view shows a screenful).
    static constexpr size_t kCacheItems = 256;

private:
    template <class T> struct Cache {
        std::list<std::pair<uint64_t, std::shared_ptr<const T>>> lru;   // most recent first
        std::unordered_map<uint64_t, typename decltype(lru)::iterator> at;
        std::shared_ptr<const T> get(uint64_t key);
        void put(uint64_t key, std::shared_ptr<const T> v);
    };
    template <class T, class Read>
    std::shared_ptr<const T> fetch(Cache<T>& cache, const std::vector<T>& in_memory, size_t i, Read&& read) const;
    void indexCall(const Call& c, std::unordered_map<std::string, uint32_t>& op_of);
    void indexFinding(const Finding& f);

    std::vector<CallKey> call_keys_;
    std::vector<FindingKey> finding_keys_;
    std::vector<std::string> kinds_;
    std::vector<QString> operations_;
    size_t connection_count_ = 0;
    double total_latency_ms_ = 0;
    bool ids_in_order_ = true;   // call ids are 1..n by row: no id map needed
    std::unordered_map<uint64_t, uint32_t> row_of_id_;
    mutable std::mutex mutex_;   // the caches (views read from the UI thread, exports maybe not)
    mutable Cache<Call> calls_cache_;
    mutable Cache<Finding> findings_cache_;
    mutable Cache<Connection> connections_cache_;
};

} // namespace stallscope::gui
