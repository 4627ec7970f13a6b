#pragma once
// The ids a sharded analysis' workers hand out before the merge numbers
// connections and calls in single-thread order, and the merge's table from
// those local ids to the final ones.
//
// A worker's ids are dense (its n-th connection, its n-th call) and most
// connections and calls finish soon after they open, nearly in order: per
// worker, one SlidingIdMap for connections and one for calls instead of hash
// maps (an insert, a find or two and an erase per event: a few percent of the
// merge on the reading thread, most of it cache misses).
#include "analyzers/pipeline/sliding_id_map.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stallscope {

// 19 decimal digits starting 4000 (never a frame number or offset in a real
// capture), so the merge can find them in warning texts and put the final
// number in; the worker in bits 40 and up, its n below.
constexpr uint64_t kLocalIdBase = 4'000'000'000'000'000'000ULL;
constexpr uint64_t local_id(unsigned worker, uint64_t n) { return kLocalIdBase + (uint64_t(worker) << 40) + n; }

class MergeIds {
public:
    // Workers 0 to workers - 1; an array spans at most max_span ids
    // (SlidingIdMap). 2^17: on the 1M-packet bench file a worker's open calls
    // (30,000 at most: a call is handed on once its connection has lingered)
    // spread over more than 2^16 ids, and the oldest went to the hash map.
    explicit MergeIds(size_t workers, size_t max_span = size_t(1) << 17);

    void new_connection(uint64_t local, uint64_t final_id);
    inline void new_call(uint64_t local, uint64_t local_connection, uint64_t final_id);
    // The final id, or `local` as it is when it is not a local id held (a
    // connection closed, a call finished: never named again).
    inline uint64_t connection(uint64_t local);
    inline uint64_t call(uint64_t local);
    // A call handed on: its final id; the call is forgotten. Throws
    // std::logic_error for a call never told of.
    inline uint64_t finish_call(uint64_t local);
    // Where the merge keeps `local`'s final id, if in an array: a call about
    // to be handed on is fetched ahead (opened long before, its slot is cold).
    const void* call_slot(uint64_t local) {
        uint64_t n = 0;
        Worker* w = worker_of(local, n);
        return w ? w->calls.slot_address(n) : nullptr;
    }
    // A connection closed: forgotten, with its calls not handed on.
    void connection_closed(uint64_t local);

    // Ids held, and of those, held outside the arrays (SlidingIdMap::moved), over all workers: for the tests.
    size_t held() const;
    size_t held_outside_arrays() const;
    // Array slots allocated over all workers: for the tests (memory bounded).
    size_t slots() const;

private:
    struct Connection {
        uint64_t final_id = 0;
        uint64_t open_calls = 0;  // its calls not handed on: most close with none
    };
    struct Call {
        uint64_t final_id = 0;
        uint64_t connection = 0;  // the n of its connection's local id
    };
    struct Worker {
        SlidingIdMap<Connection> connections;
        SlidingIdMap<Call> calls;
    };
    static constexpr unsigned kWorkerShift = 40;
    static constexpr uint64_t kNMask = (uint64_t(1) << kWorkerShift) - 1;
    // The worker whose id `local` is, with n set; nullptr for an id no worker made.
    Worker* worker_of(uint64_t local, uint64_t& n) {
        if (local < kLocalIdBase) return nullptr;
        const uint64_t w = (local - kLocalIdBase) >> kWorkerShift;
        if (w >= workers_.size()) return nullptr;
        n = local & kNMask;
        return &workers_[w];
    }
    [[noreturn]] static void never_told_of();

    std::vector<Worker> workers_;
};

// Per event of the merge: here, to be inlined.
void MergeIds::new_call(uint64_t local, uint64_t local_connection, uint64_t final_id) {
    uint64_t n = 0;
    Worker* w = worker_of(local, n);
    if (!w) return;
    uint64_t conn = local_connection - (local - n);  // its n, if its worker's (a call is its connection's worker's)
    if (conn > kNMask) conn = 0;
    if (Connection* c = conn ? w->connections.find(conn) : nullptr) ++c->open_calls;
    w->calls.add(n, Call{final_id, conn});
}

uint64_t MergeIds::connection(uint64_t local) {
    uint64_t n = 0;
    Worker* w = worker_of(local, n);
    const Connection* c = w ? w->connections.find(n) : nullptr;
    return c ? c->final_id : local;
}

uint64_t MergeIds::call(uint64_t local) {
    uint64_t n = 0;
    Worker* w = worker_of(local, n);
    const Call* c = w ? w->calls.find(n) : nullptr;
    return c ? c->final_id : local;
}

uint64_t MergeIds::finish_call(uint64_t local) {
    uint64_t n = 0;
    Worker* w = worker_of(local, n);
    const Call* c = w ? w->calls.find(n) : nullptr;
    if (!c) never_told_of();
    const uint64_t final_id = c->final_id;
    if (Connection* conn = c->connection ? w->connections.find(c->connection) : nullptr; conn && conn->open_calls)
        --conn->open_calls;
    w->calls.erase(n);
    return final_id;
}

} // namespace stallscope
