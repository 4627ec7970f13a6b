#include "analyzers/pipeline/merge_ids.h"

#include <stdexcept>

namespace stallscope {

MergeIds::MergeIds(size_t workers, size_t max_span) {
    workers_.reserve(workers);
    for (size_t i = 0; i < workers; ++i)
        workers_.push_back(Worker{SlidingIdMap<Connection>(max_span), SlidingIdMap<Call>(max_span)});
}

void MergeIds::never_told_of() {
    throw std::logic_error("sharded analysis: a finished call the merge was never told of");
}

void MergeIds::new_connection(uint64_t local, uint64_t final_id) {
    uint64_t n = 0;
    if (Worker* w = worker_of(local, n)) w->connections.add(n, Connection{final_id, 0});
}

void MergeIds::connection_closed(uint64_t local) {
    uint64_t n = 0;
    Worker* w = worker_of(local, n);
    if (!w) return;
    if (const Connection* c = w->connections.find(n); c && c->open_calls)
        w->calls.erase_if([n](uint64_t, const Call& call) { return call.connection == n; });
    w->connections.erase(n);
}

size_t MergeIds::held() const {
    size_t n = 0;
    for (const Worker& w : workers_) n += w.connections.size() + w.calls.size();
    return n;
}

size_t MergeIds::held_outside_arrays() const {
    size_t n = 0;
    for (const Worker& w : workers_) n += w.connections.moved() + w.calls.moved();
    return n;
}

size_t MergeIds::slots() const {
    size_t n = 0;
    for (const Worker& w : workers_) n += w.connections.capacity() + w.calls.capacity();
    return n;
}

} // namespace stallscope
