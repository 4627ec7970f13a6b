#include "analyzers/pipeline/sharded_analysis.h"

#include "analyzers/pipeline/back_stage.h"
#include "analyzers/pipeline/bounded_queue.h"
#include "analyzers/pipeline/call_digest.h"
#include "analyzers/pipeline/call_work.h"
#include "analyzers/result/call_reuse.h"
#include "analyzers/pipeline/flat_map.h"
#include "analyzers/pipeline/flow_table.h"
#include "analyzers/pipeline/merge_ids.h"
#include "analyzers/pipeline/sliding_id_map.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <thread>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace stallscope {

namespace {

// The cache lines of bytes [p, p + n) fetched ahead of their use (to be
// written: `write`). In asm: GCC (12, -O2) drops __builtin_prefetch as dead
// in an inlined loop.
inline void prefetch_bytes(const void* p, size_t n, bool write) {
    const char* from = static_cast<const char*>(p);
    for (size_t off = 0; off < n; off += 64) {
#if defined(__x86_64__) || defined(__i386__)
        if (write) asm volatile("prefetchw %0" : : "m"(from[off]));  // a no-op where the CPU lacks it
        else asm volatile("prefetcht0 %0" : : "m"(from[off]));
#else
        __builtin_prefetch(from + off, write ? 1 : 0);
#endif
    }
}
template <class T> void prefetch_object(const T* p, bool write) { prefetch_bytes(p, sizeof(T), write); }

// A batch is handed on after this many segments or payload bytes; a worker
// queues at most kInBatches of them and the merge at most kOutBatches per
// source, so memory in flight is bounded whatever the capture.
constexpr size_t kBatchSegments = 1024;
constexpr size_t kBatchBytes = 256 << 10;
// ... or once the frames read since the last batch span this much of the
// file, when payloads are lent (views into a mapped file): a worker then
// reads at most a few MB behind the reader, inside the window the reader's
// map gives back pages from (mapped_pcap_reader.cpp: every 8 MB).
constexpr uint64_t kBatchFileSpan = 1 << 20;
constexpr size_t kInBatches = 4;
// Eight, not two: with two, each worker of `--threads 2` waited about a third
// of a 1M-packet run for the merge to take its events (STALLSCOPE_THREAD_STATS),
// while the merge waited for the other worker; eight let them run apart.
constexpr size_t kOutBatches = 8;
// Both depths, or 0: the ones above (its test: 1, full on every side, with
// batches of kTestBatchSegments: many more hand-overs).
std::atomic<size_t> queue_depth_for_test{0};
constexpr size_t kTestBatchSegments = 16, kTestOutEvents = 2;
size_t in_depth() { return queue_depth_for_test.load() ? queue_depth_for_test.load() : kInBatches; }
size_t out_depth() { return queue_depth_for_test.load() ? queue_depth_for_test.load() : kOutBatches; }
// A worker hands its events on after this many, whatever the batch: one
// segment can finish dozens of pipelined calls.
constexpr size_t kOutEvents = 256;
// ... or once its calls hold this many bytes: a call answered behind
// thousands of pipelined responses carries thousands of segment records
// (70,000 pipelined HEADs: 224 KB a call, 57 MB for 256 of them).
constexpr size_t kOutBytes = 2 << 20;
// Finished calls the merge hands back emptied (their strings and vectors
// keep their memory), so a worker fills old records as one thread does
// instead of allocating a dozen buffers per call.
constexpr size_t kSpareCalls = 4 * kOutEvents;

// A call record waits among its worker's spares (up to kSpareCalls of them)
// until the worker empties it for its next call (clear_call, which frees
// buffers past 512 items). A call answered behind thousands of pipelined
// ones carries thousands of segment records: those buffers go before it
// waits, or 1,024 spares of 70,000 pipelined HEADs held 95 MB more.
constexpr size_t kSpareItems = 512;
template <class V>
void free_if_large(V& v) {
    if (v.capacity() > kSpareItems) V().swap(v);
}
void free_large_vectors(Call& c) {
    free_if_large(c.segments);
    free_if_large(c.phases);
    for (MessageInfo* m : {&c.request, &c.response}) {
        free_if_large(m->write_sizes);
        free_if_large(m->frames);
    }
}

// Where an event falls in single-thread order: the TCP segment it was made
// at (seq); then the front's events (phase 0: decoding the frame), the
// lingering connections closed before the segment (phase 1; also the end),
// the segment's own (phase 2); within phase 1 the connection being closed,
// in the order one table closes them (ctx_ns: the time it was queued
// under, 0 at the end; ctx: the seq it was opened at, which orders
// connections like their ids); then the order the source made them in.
struct Key {
    uint64_t seq = 0;
    uint32_t phase = 0;
    int64_t ctx_ns = 0;
    uint64_t ctx = 0, counter = 0;
    bool operator<(const Key& o) const {
        return std::tie(seq, phase, ctx_ns, ctx, counter) < std::tie(o.seq, o.phase, o.ctx_ns, o.ctx, o.counter);
    }
    bool operator<=(const Key& o) const { return !(o < *this); }
    bool operator==(const Key& o) const = default;
};

// Batches handed on while closing every connection at the end, in all (its test).
std::atomic<uint64_t> end_batches{0};
// Events the merge met with a lower key than the one before, in all (its test: none).
std::atomic<uint64_t> replayed_out_of_order{0};
// Segments handed to a worker as a view into the capture, and copied, in all (their test).
std::atomic<uint64_t> borrowed_total{0}, copied_total{0};
// Segments the reading thread's own shard got, and worker threads started, in all (their test).
std::atomic<uint64_t> inline_segments_total{0}, worker_threads_total{0};
// Calls CallWork ran on in a worker, in all (its test).
std::atomic<uint64_t> worked_total{0};
// Of those, handed on as a digest, in all (its test).
std::atomic<uint64_t> digested_total{0};
// Times the reading thread found a worker's queue full and ran the merge (or
// waited for either) instead of blocking on it, in all (its test).
std::atomic<uint64_t> full_queue_total{0};

// Wakes the reading thread, which runs the merge, when a worker makes room
// in its input queue or hands events on: it waits for either, never on one
// queue alone (a worker blocked on its full output queue waits for the
// merge, so the reader blocked on that worker's input would wait forever).
class Doorbell {
public:
    uint32_t rings() const { return rings_.load(std::memory_order_acquire); }
    void ring() {
        rings_.fetch_add(1, std::memory_order_acq_rel);
        rings_.notify_one();  // no system call while nobody waits
    }
    // Returns once rung after rings() gave `seen` (at once if it was already).
    void wait(uint32_t seen) const { rings_.wait(seen, std::memory_order_acquire); }

private:
    std::atomic<uint32_t> rings_{0};
};

// A source's watermark: no later event of it has a key <= this.
// Everything made at segment `seq` and before:
Key through_seq(uint64_t seq) { return Key{seq, UINT32_MAX, INT64_MAX, UINT64_MAX, UINT64_MAX}; }
// Everything, the source is done:
constexpr Key kDone{UINT64_MAX, UINT32_MAX, INT64_MAX, UINT64_MAX, UINT64_MAX};
// At the end, everything of the connections closed so far (they close in
// id order, which is the order of `ctx`, the seq each was opened at).
Key through_closed_at_end(uint64_t end_seq, uint64_t ctx) { return Key{end_seq, 1, 0, ctx, UINT64_MAX}; }

enum class EventKind : uint8_t { Warning, NewConnection, NewCall, CallReady, CallDigested, Closed };

// A finished call, its connection as it stood and what CallWork found on it
// (ids still the worker's), in one record that goes from a worker to the
// merge and back.
struct CallBox {
    Call call;
    Connection connection;
    std::vector<Finding> findings;
};

// One cache line an event: a worker writes it, the merge reads it and
// empties it, the worker writes it again (its list comes back). With a
// Warning and four pointers in line it was 168 bytes, nearly three lines.
struct alignas(64) Event {
    Key key;
    EventKind kind = EventKind::Warning;
    union Payload {
        struct Ids {
            uint64_t local, conn;  // NewConnection: the local id; NewCall: and its connection's
        } ids{};
        // What the event carries, by kind: Warning, CallBox (CallReady),
        // CallDigest (CallDigested: a call the report does not keep),
        // Connection (Closed); owned, null once taken.
        void* owned;
    } payload;

    Event() = default;
    Event(Event&& o) noexcept : key(o.key), kind(o.kind), payload(o.payload) { o.payload.ids = {}; }
    Event& operator=(Event&& o) noexcept {
        if (this != &o) {
            release();
            key = o.key, kind = o.kind, payload = o.payload;
            o.payload.ids = {};
        }
        return *this;
    }
    ~Event() { release(); }

    template <class T> void give(std::unique_ptr<T> p) { payload.owned = p.release(); }
    template <class T> T& get() { return *static_cast<T*>(payload.owned); }
    template <class T> std::unique_ptr<T> take() {
        return std::unique_ptr<T>(static_cast<T*>(std::exchange(payload.owned, nullptr)));
    }

private:
    bool owns() const { return kind != EventKind::NewConnection && kind != EventKind::NewCall; }
    void release() noexcept {
        if (!owns() || !payload.owned) return;
        switch (kind) {
        case EventKind::Warning: delete static_cast<Warning*>(payload.owned); break;
        case EventKind::CallReady: delete static_cast<CallBox*>(payload.owned); break;
        case EventKind::CallDigested: delete static_cast<CallDigest*>(payload.owned); break;
        case EventKind::Closed: delete static_cast<Connection*>(payload.owned); break;
        default: break;
        }
        payload.owned = nullptr;
    }
};
static_assert(sizeof(Event) == 64);

// What the merge hands back to a worker once it has replayed one of its
// batches: the emptied event list and the call records of its events, to be
// filled again. One lock a batch: each record going back through a queue of
// its own took a lock on both threads for every call (about 25 ms of a
// 1M-packet run's CPU in pthread_mutex_lock and unlock, perf).
struct Returned {
    std::vector<Event> events;
    std::vector<std::unique_ptr<CallBox>> boxes;
    std::vector<std::unique_ptr<CallDigest>> digests;
};

// `from`'s records added to `to` while it holds fewer than kSpareCalls (the
// rest are freed).
template <class T>
void keep_spares(std::vector<std::unique_ptr<T>>& to, std::vector<std::unique_ptr<T>>& from) {
    for (auto& r : from) {
        if (to.size() >= kSpareCalls) break;
        to.push_back(std::move(r));
    }
    from.clear();
}

struct OutBatch {
    unsigned source = 0;
    std::vector<Event> events;
    Key watermark;  // no later event of this source has a key <= this
};

// `payload_at` of a segment whose payload is a view into the capture's own
// bytes (they outlive the analysis: a memory-mapped file), not copied.
constexpr size_t kBorrowed = SIZE_MAX;

struct Item {
    uint64_t seq = 0;
    Frame frame;        // data empty
    TcpPacket packet;   // payload: at `payload_at` in the batch's bytes, or kBorrowed
    size_t payload_at = 0;
};

// The times of every TCP segment routed in one flush, to every worker: each
// closes its lingering connections at the segment one table would close
// them at, whoever gets that segment.
struct TimeWindow {
    uint64_t first_seq = 0;       // times[i] is segment first_seq + i's
    std::vector<int64_t> times;   // never decreasing (FrameClock)
};

struct InBatch {
    std::vector<Item> items;      // this worker's segments, by seq
    std::vector<uint8_t> bytes;
    std::shared_ptr<const TimeWindow> window;
    uint64_t upto = 0;   // every segment up to this seq was routed
    bool last = false;   // after the window: close every connection at seq `upto`
};

// STALLSCOPE_THREAD_STATS=1: each thread's CPU time and the stages' wall
// times on stderr (docs/performance.md, "Where the threads wait"), to see
// which thread the others wait for.
double thread_cpu_s() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}
double wall_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Eight address bytes as a number that orders like memcmp orders them.
uint64_t big_endian_word(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    return w;
}

}  // namespace

uint64_t sharding_detail::batches_handed_on_at_end() { return end_batches.load(std::memory_order_relaxed); }
uint64_t sharding_detail::events_replayed_out_of_order() { return replayed_out_of_order.load(std::memory_order_relaxed); }
uint64_t sharding_detail::payloads_borrowed() { return borrowed_total.load(std::memory_order_relaxed); }
uint64_t sharding_detail::payloads_copied() { return copied_total.load(std::memory_order_relaxed); }
uint64_t sharding_detail::calls_worked_on_workers() { return worked_total.load(std::memory_order_relaxed); }
uint64_t sharding_detail::calls_digested() { return digested_total.load(std::memory_order_relaxed); }
uint64_t sharding_detail::reader_found_queue_full() { return full_queue_total.load(std::memory_order_relaxed); }
void sharding_detail::set_queue_depth_for_test(size_t depth) { queue_depth_for_test.store(depth); }
uint64_t sharding_detail::segments_on_reading_thread() { return inline_segments_total.load(std::memory_order_relaxed); }
uint64_t sharding_detail::worker_threads_started() { return worker_threads_total.load(std::memory_order_relaxed); }

// The reading thread also reads, decodes, routes and merges: about 0.38 of
// one shard's work for all threads' shards at once (callgrind, 200k-packet
// default capture: 364 M instructions against 977 M for two workers). Its
// shard is smaller by that much, so that all N threads finish together:
// share s with r + s = (1 - s) / (N - 1), r = 0.38 of the whole shards' work.
// Decrypting, the same work of the reading thread is about 0.2 of the
// shards' (HTTPS twin of the 1M-packet bench file, --threads 2: at 0.38 the
// reading thread waited 0.28-0.96 s for room in the worker's queue, at 0.1
// the worker 0.24 s for segments; per-thread CPU at the two put the balance
// at 0.19). From 4 threads it has no share either way.
double sharding_detail::reading_thread_share(unsigned threads, bool decrypting) {
    if (threads <= 1) return 1;
    constexpr double kReaderOwnWork = 0.38, kReaderOwnWorkDecrypting = 0.2;
    const double plain = std::max(0.0, (1 - kReaderOwnWork * (threads - 1)) / threads);
    if (!decrypting || plain == 0) return plain;
    return (1 - kReaderOwnWorkDecrypting * (threads - 1)) / threads;
}

// a < b as Endpoint's defaulted <=> orders them (family, address bytes as
// memcmp orders them, port), with the bytes compared as two words instead
// of a memcmp call: once for every segment routed.
bool sharding_detail::endpoint_less(const Endpoint& a, const Endpoint& b) {
    if (a.addr.family != b.addr.family) return a.addr.family < b.addr.family;
    for (size_t at : {size_t(0), size_t(8)}) {
        const uint64_t x = big_endian_word(a.addr.bytes.data() + at), y = big_endian_word(b.addr.bytes.data() + at);
        if (x != y) return x < y;
    }
    return a.port < b.port;
}

namespace {

// A number for a connection, the same for both directions: its shard.
size_t pair_hash(const TcpPacket& p) {
    const bool src_first = sharding_detail::endpoint_less(p.src, p.dst);
    const Endpoint& a = src_first ? p.src : p.dst;
    const Endpoint& b = src_first ? p.dst : p.src;
    uint64_t h = EndpointHash{}(a) * 0x9E3779B97F4A7C15ULL ^ EndpointHash{}(b);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return size_t(h ^ (h >> 32));
}

} // namespace

// The merge, for the shard the reading thread runs itself: its batches go
// straight in, never through a queue it could find full.
struct MergeHere {
    virtual void from_own_shard(OutBatch&& b) = 0;

protected:
    ~MergeHere() = default;
};

// One shard: its FlowTable's output recorded as keyed events. On a thread
// of its own, fed through `in`; or run by the reading thread (`merge_here`
// set), fed batch by batch and handing its events straight to the merge.
struct Worker : FlowSink {
    unsigned index;
    BoundedQueue<InBatch> in{in_depth()};
    BoundedQueue<OutBatch> out{out_depth()};
    Doorbell& bell;  // the reading thread's: rung on room made in `in` and on events handed on
    // Emptied buffers going back for reuse (batches to the reading thread,
    // event lists from the merge): no allocation, page faults or mmap per
    // batch, and no buffer freed in another thread than the one that made it.
    BoundedQueue<InBatch> spare_in{in_depth() + 2};
    BoundedQueue<Returned> spare_out{out_depth() + 2};
    // This thread's: records the merge gave back, the last given back first.
    std::vector<std::unique_ptr<CallBox>> spare_calls;
    std::vector<std::unique_ptr<CallDigest>> spare_digests;
    template <class T>
    static std::unique_ptr<T> spare(std::vector<std::unique_ptr<T>>& from) {
        if (from.empty()) return {};
        std::unique_ptr<T> r = std::move(from.back());
        from.pop_back();
        return r;
    }
    FlowTable table;
    // The detectors whose on_call needs the call alone, and the ledger: run
    // here, where the call's segments are in this core's cache.
    std::vector<std::unique_ptr<Detector>> detectors = make_detectors();
    CallWork work{detectors};
    std::vector<Event> events;
    Key key;
    uint64_t conns = 0, calls = 0;
    uint64_t worked = 0;  // calls CallWork ran on (added to the total at the end)
    uint64_t digested = 0;  // of those, handed on as digests
    DigestPolicy digests;
    bool at_end = false;  // closing every connection (FlowTable::finish)
    const size_t out_events = queue_depth_for_test.load() ? kTestOutEvents : kOutEvents;
    SlidingIdMap<uint64_t> opened_at;  // n of a local connection id -> seq it was opened at
    std::exception_ptr error;
    std::thread thread;
    MergeHere* merge_here = nullptr;  // the reading thread's shard: no thread, no queues between
    // Its function is set before the first batch is handed over: called only after one was.
    const std::function<bool()>* idle_work = nullptr;
    double cpu_s = 0, end_s = 0;

    Worker(unsigned i, const AnalysisOptions& opt, Doorbell& d, size_t max_open, std::string cap_text)
        : index(i), bell(d), table(opt, *this, max_open, std::move(cap_text)), digests(opt) {}

    // Heap bytes of the calls in `events` (segments and write lists), to hand
    // them on by size as well as by count.
    size_t event_bytes = 0;

    Event& add(EventKind kind) {
        Event& e = events.emplace_back();
        e.key = key;
        ++key.counter;
        e.kind = kind;
        return e;
    }
    uint64_t new_connection_id() override {
        uint64_t id = local_id(index, ++conns);
        opened_at.add(conns, key.seq);
        add(EventKind::NewConnection).payload.ids.local = id;
        return id;
    }
    uint64_t new_call_id(uint64_t connection_id) override {
        uint64_t id = local_id(index, ++calls);
        Event& e = add(EventKind::NewCall);
        e.payload.ids = {id, connection_id};
        return id;
    }
    void warn(Warning w) override { add(EventKind::Warning).give(std::make_unique<Warning>(std::move(w))); }
    void call_ready(Call&& call, const Connection& conn) override {
        if (digests.may_digest(call, call.id - local_id(index, 0))) {
            // The call stays in the flow table's record (emptied and filled
            // again here, as one thread does); what the merge reads goes.
            Event& e = add(EventKind::CallDigested);
            std::unique_ptr<CallDigest> d = spare(spare_digests);
            if (!d) d = std::make_unique<CallDigest>();
            // Last written by the merge on its core: fetched while CallWork runs, not when digest_call writes it.
            else prefetch_object(d.get(), true);
            work.run(call, conn, d->findings);
            digest_call(call, *d);
            e.give(std::move(d));
            ++worked, ++digested;
            return;
        }
        Event& e = add(EventKind::CallReady);
        std::unique_ptr<CallBox> box = spare(spare_calls);
        if (box) clear_call(box->call);  // here, not on the merge's thread
        else box = std::make_unique<CallBox>();
        swap_calls(box->call, call);  // `call` gets an emptied one's memory (or a new Call's)
        box->connection = conn;
        work.run(box->call, conn, box->findings);
        ++worked;
        const Call& c = box->call;
        e.give(std::move(box));
        event_bytes += c.segments.size() * sizeof(SegmentInfo) +
                       (c.request.write_sizes.size() + c.response.write_sizes.size()) * sizeof(uint32_t) +
                       (c.request.frames.size() + c.response.frames.size()) * sizeof(uint64_t);
    }
    void closing(uint64_t id, int64_t order_ns) override {
        // At the end every open connection closes at once (thousands of
        // calls): what the connections closed so far made goes on in
        // batches, so the merge replays it while this worker closes the rest
        // instead of all of it after the last one.
        if (at_end && key.ctx != 0 && (events.size() >= out_events || event_bytes >= kOutBytes)) {
            hand_on(through_closed_at_end(key.seq, key.ctx));
            end_batches.fetch_add(1, std::memory_order_relaxed);
        }
        key.ctx_ns = order_ns;
        const uint64_t* at = opened_at.find(id - local_id(index, 0));
        key.ctx = at ? *at : 0;
    }
    void connection_closed(Connection&& conn) override {
        opened_at.erase(conn.id - local_id(index, 0));
        add(EventKind::Closed).give(std::make_unique<Connection>(std::move(conn)));
    }

    void run() {
        InBatch b;
        if (!in.pop(b)) return;
        do {
            bell.ring();  // room in `in`
            if (step(b)) {
                cpu_s = thread_cpu_s();
                return;
            }
            spare_in.try_push(b);
        } while (next_batch(b));
    }
    // The next batch; while there is none, the idle work first.
    bool next_batch(InBatch& b) {
        if (!*idle_work) return in.pop(b);
        while (!in.try_pop(b))
            if (!(*idle_work)()) return in.pop(b);
        return true;
    }
    // One batch processed and its events handed on; true after the last.
    // The batch comes back emptied, its buffers kept.
    bool step(InBatch& b) {
        guarded([&] { process(b); });
        return end_step(b);
    }
    // The reading thread's shard takes its segments one by one as they are
    // routed (at_segment), while the frame is still in this core's cache as
    // with one thread: a batch is only its end here.
    bool step_inline(InBatch& b) {
        guarded([&] {
            if (b.last) close_all(b.upto);
        });
        return end_step(b);
    }
    // Segment `seq` at time `ts`: the connections it closes, then the segment
    // itself when it is this shard's (p set), as process() takes each.
    void at_segment(uint64_t seq, int64_t ts, const Frame* f, const TcpPacket* p) {
        guarded([&] {
            key = Key{seq, 1, 0, 0, key.counter};
            table.expire_closed(ts);
            if (p) {
                key = Key{seq, 2, 0, 0, key.counter};
                table.on_segment(*f, *p);  // its own expire_closed: nothing left to close
            }
        });
    }
    template <class Work> void guarded(Work work) {
        if (error) return;
        try {
            work();
        } catch (...) {
            error = std::current_exception();  // rethrown by finish(); keep the pipeline draining
            events.clear();
            event_bytes = 0;
        }
    }
    bool end_step(InBatch& b) {
        hand_on(b.last ? kDone : through_seq(b.upto));
        if (b.last) {
            worked_total.fetch_add(worked, std::memory_order_relaxed);
            digested_total.fetch_add(digested, std::memory_order_relaxed);
            end_s = wall_s();
            return true;
        }
        b.items.clear();
        b.bytes.clear();
        b.window.reset();
        return false;
    }
    void hand_on(const Key& watermark) {
        if (merge_here) {
            merge_here->from_own_shard(OutBatch{index, std::move(events), watermark});
        } else {
            out.push(OutBatch{index, std::move(events), watermark});
            bell.ring();
        }
        events.clear();
        event_bytes = 0;
        if (Returned r; spare_out.try_pop(r)) {
            events = std::move(r.events);
            keep_spares(spare_calls, r.boxes);
            keep_spares(spare_digests, r.digests);
        } else {
            events.reserve(kOutEvents);
        }
    }
    void process(InBatch& b) {
        size_t next = 0;
        const TimeWindow& w = *b.window;
        for (size_t i = 0; i < w.times.size(); ++i) {
            const uint64_t seq = w.first_seq + i;
            key = Key{seq, 1, 0, 0, key.counter};
            table.expire_closed(w.times[i]);
            if (next < b.items.size() && b.items[next].seq == seq) {
                Item& it = b.items[next++];
                key = Key{seq, 2, 0, 0, key.counter};
                if (it.payload_at != kBorrowed)
                    it.packet.payload = std::span<const uint8_t>(b.bytes.data() + it.payload_at, it.packet.payload.size());
                table.on_segment(it.frame, it.packet);  // its own expire_closed: nothing left to close
            }
            if (events.size() >= out_events || event_bytes >= kOutBytes)
                hand_on(through_seq(seq));  // everything up to this segment is made
        }
        if (b.last) close_all(b.upto);
    }
    // The end: every connection still open closed, after segment `upto`.
    void close_all(uint64_t upto) {
        key = Key{upto, 1, 0, 0, key.counter};
        at_end = true;
        table.finish();
    }
};

struct ShardedAnalysis::Impl final : MergeHere {
    AnalysisOptions opt;
    size_t threaded;  // shards on threads of their own: workers[0, threaded); the last is the reading thread's
    // A connection whose pair hash's low 16 bits are below this is the
    // reading thread's; the others are spread over the threaded shards.
    uint32_t inline_cut;
    static uint32_t inline_cut_for(unsigned n, bool decrypting = false) {
        return uint32_t(std::clamp(sharding_detail::reading_thread_share(n, decrypting), 0.0, 1.0) * 65536);
    }
    // The split is decided at the first frame, when the secrets that come
    // before any packet (a key log, a pcapng's secrets block) are known.
    bool split_decided = false;
    void decide_split() {
        split_decided = true;
        const bool decrypting = opt.tls_keys && !opt.tls_keys->empty();
        const uint32_t cut = inline_cut_for(unsigned(workers.size()), decrypting);
        if (cut == inline_cut) return;
        inline_cut = cut;  // never from or to 0: the constructor's view of a shareless reading thread holds
        const ShardCaps caps = shard_caps(opt.max_open_connections, unsigned(workers.size()));
        for (size_t i = 0; i < workers.size(); ++i)  // no segment routed yet: the workers have no batch
            workers[i]->table.set_cap(i < threaded ? caps.threaded : caps.reading, caps.text);
    }
    // The cap on open connections split as the connections are: a threaded
    // shard's and the reading thread's (rounded up), and the warning's text.
    struct ShardCaps {
        size_t threaded = 0, reading = 0;
        std::string text;
    };
    ShardCaps shard_caps(size_t cap, unsigned n) const {
        ShardCaps c;
        c.text = std::to_string(cap);
        if (n <= 1) {
            c.reading = c.threaded = cap;
            return c;
        }
        const uint64_t rest = 65536 - inline_cut;
        c.threaded = size_t((uint64_t(cap) * rest + 65536 * threaded - 1) / (65536 * threaded));
        c.reading = size_t((uint64_t(cap) * inline_cut + 65535) / 65536);
        c.text += " over " + std::to_string(threaded) + " worker thread" + (threaded == 1 ? "" : "s") + ": " +
                  std::to_string(c.threaded) + " each";
        if (inline_cut) c.text += ", and " + std::to_string(c.reading) + " on the reading thread";
        return c;
    }
    size_t shard_of(size_t h) const {
        if ((h & 0xFFFF) < inline_cut) return threaded;
        return (h >> 16) % threaded;
    }
    // Each worker hands its events on in a queue of its own (Worker::out), so
    // a worker that runs ahead waits for room in it instead of piling its
    // calls up in the merge (issue 22: 70,000 pipelined calls took 99-129 MB
    // with one shared queue and a lagging thread). The reading thread's own
    // events go straight to the merge: it runs on that thread.
    Doorbell bell;
    std::vector<std::unique_ptr<Worker>> workers;
    std::vector<InBatch> batches;
    TimeWindow window;  // of the segments routed since the last flush
    std::vector<Event> front_events;
    uint64_t seq = 0, front_counter = 0;
    size_t batched = 0, batched_bytes = 0;
    const size_t batch_segments = queue_depth_for_test.load() ? kTestBatchSegments : kBatchSegments;
    uint64_t borrowed = 0, copied = 0;  // payloads, this analysis (added to the totals at the end)
    uint64_t inline_segments = 0;       // routed to the reading thread's shard, this analysis
    bool frames_outlive_next = false;   // the reader's frames stay valid: payloads go on as views
    std::function<bool()> idle_work;    // the workers' while they wait for segments (set_idle_work)
    uint64_t flushed_at = 0;            // file offset of the frame read at the last flush
    bool finished = false;
    double start_s = wall_s();
    // STALLSCOPE_THREAD_STATS=1: the merge's share of the reading thread's
    // CPU (two clock reads a drain: only then), and how long it waited.
    const bool stats = [] {
        const char* v = std::getenv("STALLSCOPE_THREAD_STATS");
        return v && *v == '1';
    }();
    double merge_cpu_s = 0, merge_end_s = 0, inline_cpu_s = 0;
    uint64_t full_waits = 0, waited_ns = 0;

    // The merge, run by the reading thread between batches and as its own
    // shard hands events on (no thread of its own): one AnalysisBack fed in
    // single-thread order.
    AnalysisBack back;
    std::exception_ptr merge_error;
    size_t missing_at = SIZE_MAX, backwards_at = SIZE_MAX;
    // Local -> final ids of the open connections and calls (a call's id is
    // never named again once it is handed on: only calls still in the tracker
    // are warned about), so it holds the open ones, not every call of a long
    // connection.
    MergeIds ids;
    // The merge's one record for the calls that come as digests: only their
    // fields are ever set (undigest), the rest stays Call{}'s.
    Call digested_call;
    // Per worker, the call records of its batch being replayed, going back with its list.
    std::vector<Returned> giving;

    // The merge's state: per source (each worker, then the reading thread),
    // its batches not yet replayed, where in the first one it is, and its
    // watermark.
    std::vector<std::deque<OutBatch>> pending;
    std::vector<size_t> at;
    std::vector<Key> watermark;
    size_t done = 0;  // sources whose last batch the merge has
    Key last_replayed;

    // n shards: n - 1 on threads of their own, the last run by the reading thread.
    Impl(const AnalysisOptions& o, unsigned n)
        : opt(o), threaded(n - 1), inline_cut(inline_cut_for(n)), back(opt), ids(n), giving(n), pending(n + 1), at(n + 1, 0),
          watermark(n + 1, Key{}) {
        window.first_seq = 1;
        const ShardCaps caps = shard_caps(o.max_open_connections, n);
        for (unsigned i = 0; i < n; ++i)
            workers.push_back(std::make_unique<Worker>(i, opt, bell, i + 1 < n ? caps.threaded : caps.reading, caps.text));
        batches.resize(n);
        workers.back()->merge_here = this;
        for (auto& w : workers) w->idle_work = &idle_work;
        for (size_t i = 0; i < threaded; ++i) workers[i]->thread = std::thread([w = workers[i].get()] { w->run(); });
        worker_threads_total.fetch_add(threaded, std::memory_order_relaxed);
        // From 4 threads the reading thread has no share: its shard is never
        // run (it would step through every flush's time window for nothing)
        // and has nothing to send the merge from the start.
        if (!inline_cut) {
            watermark[threaded] = kDone;
            ++done;
        }
    }

    ~Impl() {
        if (!finished) {
            flush(true);
            merge_to_end();  // or a worker blocked on its full output queue is never joined
        }
        for (auto& w : workers)
            if (w->thread.joinable()) w->thread.join();
    }

    // The reading thread's shard ends its batch here (it took the segments
    // as they were routed); its events go to the merge now, after the
    // threaded shards have this batch, so the merge can always replay them.
    void run_inline_shard() {
        if (!inline_cut) return;  // no share (the constructor marked it done)
        Worker& w = *workers.back();
        const double cpu0 = stats ? thread_cpu_s() : 0, merge0 = merge_cpu_s;
        w.step_inline(batches.back());
        if (stats) inline_cpu_s += thread_cpu_s() - cpu0 - (merge_cpu_s - merge0);
    }
    // A segment for the reading thread's shard, right as it is routed (its
    // CPU is the reading thread's: a clock read per segment would cost more
    // than the segment).
    void inline_segment(const Frame& f, const TcpPacket& p, bool mine) {
        workers.back()->at_segment(seq, f.ts_ns, &f, mine ? &p : nullptr);
    }
    // The reading thread's shard holds its events until the batch ends (the
    // threaded shards must have every segment the merge replays up to), so
    // once they are this many, or kOutBytes, the batch ends early.
    bool inline_events_full() const {
        if (!inline_cut) return false;
        const Worker& w = *workers.back();
        return w.events.size() >= 4 * w.out_events || w.event_bytes >= kOutBytes;
    }

    // Hands worker i its batch without ever blocking on its queue: while the
    // queue is full the merge runs (the worker may be waiting for it), and
    // when the merge has nothing either, the thread sleeps until a worker
    // makes room or hands events on (Doorbell).
    void hand_to_worker(size_t i, InBatch& b) {
        for (bool counted = false;;) {
            const uint32_t seen = bell.rings();
            if (workers[i]->in.try_push(b)) return;
            if (!counted) ++full_waits, counted = true;
            if (!drain()) sleep_until_rung(seen);
        }
    }
    void sleep_until_rung(uint32_t seen) {
        const auto t0 = std::chrono::steady_clock::now();
        bell.wait(seen);
        waited_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    }
    // The end: every worker's last batch replayed.
    void merge_to_end() {
        while (done < pending.size()) {
            const uint32_t seen = bell.rings();
            if (!drain()) sleep_until_rung(seen);
        }
        merge_end_s = wall_s();
    }

    void flush(bool last) {
        auto shared = std::make_shared<const TimeWindow>(std::move(window));
        window = TimeWindow{};
        window.first_seq = seq + 1;
        if (last) ++seq;  // the end: one step, for every worker
        for (size_t i = 0; i < workers.size(); ++i) {
            batches[i].window = shared;
            batches[i].upto = seq;
            batches[i].last = last;
        }
        // The threaded shards first, so they work while this thread runs its own.
        for (size_t i = 0; i < threaded; ++i) {
            InBatch b = std::move(batches[i]);
            batches[i] = InBatch{};
            hand_to_worker(i, b);
            workers[i]->spare_in.try_pop(batches[i]);
        }
        // The front's events first: the own shard's are replayed past them.
        take(OutBatch{unsigned(workers.size()), std::move(front_events), last ? kDone : through_seq(seq)});
        front_events.clear();
        run_inline_shard();
        drain();
        batched = batched_bytes = 0;
        if (last) finished = true;
    }

    // Worker-local call ids (4000...) become the final ones; the back stage
    // writes the final number into the text.
    uint64_t final_call(uint64_t local) { return ids.call(local); }
    uint64_t final_conn(uint64_t local) { return ids.connection(local); }

    // A finished call's ids, and those of the findings made of it on its
    // worker, from local to final; the merge forgets the local call id.
    void finish_ids(uint64_t& call, uint64_t& conn, std::vector<Finding>& findings) {
        const uint64_t local = call;
        call = ids.finish_call(local);
        conn = final_conn(conn);
        for (Finding& f : findings) {  // made of this call alone: its ids are the call's
            f.connection_id = conn;
            for (uint64_t& named : f.calls)
                if (named == local) named = call;
        }
    }

    void replay(Event& e, size_t source) {
        switch (e.kind) {
        case EventKind::Warning: {
            Warning w = std::move(e.get<Warning>());
            if (w.call_id) w.call_id = final_call(w.call_id);
            if (w.connection_id) w.connection_id = final_conn(w.connection_id);
            const WarningCode code = w.code;
            size_t at = back.add_warning(std::move(w));
            if (code == WarningCode::MissingTimestamp) missing_at = at;
            if (code == WarningCode::BackwardsTimestamp) backwards_at = at;
            break;
        }
        case EventKind::NewConnection: ids.new_connection(e.payload.ids.local, back.new_connection_id()); break;
        case EventKind::NewCall: ids.new_call(e.payload.ids.local, e.payload.ids.conn, back.new_call_id()); break;
        case EventKind::CallReady: {
            CallBox& box = e.get<CallBox>();
            Call& c = box.call;
            finish_ids(c.id, c.connection_id, box.findings);
            box.connection.id = c.connection_id;
            back.call_worked(std::move(c), box.connection, box.findings);
            // The record goes back to its worker with the batch, which empties it (clear_call) when it takes it.
            if (source < workers.size() && giving[source].boxes.size() < kSpareCalls) {
                free_large_vectors(c);
                giving[source].boxes.push_back(e.take<CallBox>());
            }
            break;
        }
        case EventKind::CallDigested: {
            CallDigest& d = e.get<CallDigest>();
            finish_ids(d.id, d.connection_id, d.findings);
            undigest(d, digested_call);
            back.call_digested(digested_call, d.findings);
            // Back to its worker with the batch, filled again there.
            if (giving[source].digests.size() < kSpareCalls) giving[source].digests.push_back(e.take<CallDigest>());
            break;
        }
        case EventKind::Closed: {
            Connection& conn = e.get<Connection>();
            uint64_t local = conn.id;
            conn.id = final_conn(local);
            back.connection_closed(std::move(conn));
            ids.connection_closed(local);
            break;
        }
        }
    }

    // Source s's next event not replayed yet, if the merge has it.
    Event* head(size_t s) {
        auto& q = pending[s];
        while (!q.empty() && at[s] >= q.front().events.size()) {
            if (s < workers.size()) {  // the list goes back to its worker, with the records of its calls
                Returned& g = giving[s];
                q.front().events.clear();
                g.events = std::move(q.front().events);
                if (workers[s]->spare_out.try_push(g)) g = Returned{};
                else std::vector<Event>().swap(g.events);  // its records go with the next list
            }
            q.pop_front();
            at[s] = 0;
        }
        return q.empty() ? nullptr : &q.front().events[at[s]];
    }
    // The source the merge has seen least of: the events it owes come next
    // in order, and it can always make them. A worker that is blocked (its
    // output queue full, or waiting for segments) is ahead of a worker it
    // waits for, so it is never the one with the lowest watermark.
    size_t lagging() const { return size_t(std::min_element(watermark.begin(), watermark.end()) - watermark.begin()); }

    // Without waiting: takes what the lagging workers have handed on and
    // replays what is ready; false when it took nothing. Every worker at the
    // lowest watermark counts as lagging, not only the first: stretches of
    // file without a TCP segment (1 MB each ends a batch) hand on batches
    // that do not raise a watermark, so a worker idle for segments can tie
    // with one blocked on its full output queue, and waiting on the idle
    // one alone (as the merge thread did) hung --threads 2 on 17 MB of UDP.
    bool drain() {
        bool took = false;
        OutBatch b;
        for (bool again = true; again && done < pending.size();) {
            again = false;
            const Key low = watermark[lagging()];
            for (size_t s = 0; s < threaded && !again; ++s)
                if (watermark[s] == low && workers[s]->out.try_pop(b)) {
                    take(std::move(b));
                    took = again = true;
                }
        }
        return took;
    }

    // A source's batch: its events are replayed as far as every source's
    // watermark allows.
    // The reading thread's shard hands events on: the merge takes them, and
    // while more than a worker's output queue of them wait (for a worker
    // behind them) it takes the workers' and, with none there, sleeps until a
    // worker hands some on. A worker never waits for this shard (it has its
    // batch, the front's events are taken), so the waiting ends; without it
    // 70,000 pipelined calls closed at the end piled up in the merge (599 MiB).
    void from_own_shard(OutBatch&& b) override {
        take(std::move(b));
        drain();
        while (pending[threaded].size() > out_depth()) {
            const uint32_t seen = bell.rings();
            if (!drain()) sleep_until_rung(seen);
        }
    }
    void take(OutBatch&& b) {
        const double cpu0 = stats ? thread_cpu_s() : 0;
        replay_ready(std::move(b));
        if (stats) merge_cpu_s += thread_cpu_s() - cpu0;
    }
    // A digest two events on is fetched into this core's cache while the
    // merge replays this one: it was written on its worker's core, and the
    // first read of each (finish_ids: its ids) waited for it on every call.
    static void prefetch_payload(const Event& e) {
        // What the merge reads of every digest: up to its findings (the
        // connection_setup facts after them are set only when it opened one).
        if (e.kind == EventKind::CallDigested && e.payload.owned)
            prefetch_bytes(e.payload.owned, offsetof(CallDigest, http_version), false);
    }
    // ... and one event before it is replayed, what its vectors and operation
    // hold (the record itself is here by then) and its id's slot in the merge's table.
    void prefetch_payload_buffers(const Event& e) {
        if (e.kind != EventKind::CallDigested || !e.payload.owned) return;
        const CallDigest& d = *static_cast<const CallDigest*>(e.payload.owned);
        if (const void* slot = ids.call_slot(d.id)) prefetch_bytes(slot, 1, false);
        prefetch_bytes(d.attribution.data(), d.attribution.size() * sizeof(TimeShare), false);
        prefetch_bytes(d.savings.data(), d.savings.size() * sizeof(FixSaving), false);
        if (d.operation.size() >= 16) prefetch_bytes(d.operation.data(), d.operation.size(), false);
    }
    void replay_ready(OutBatch&& b) {
        const size_t sources = pending.size();
        const size_t src = b.source;
        watermark[src] = b.watermark;
        if (b.watermark == kDone) ++done;
        pending[src].push_back(std::move(b));
        const Key ready = *std::min_element(watermark.begin(), watermark.end());
        for (;;) {
            // The source whose next event comes first (ties: the lower
            // index), and the first of the others' next events: the first
            // source's events are replayed in a run until they pass it,
            // without looking at every source again for each one.
            size_t best = sources, second = sources;
            Event* best_event = nullptr;
            const Key* second_key = nullptr;
            for (size_t s = 0; s < sources; ++s) {
                Event* e = head(s);
                if (!e) continue;
                if (!best_event || e->key < best_event->key) {
                    if (best_event) second = best, second_key = &best_event->key;
                    best = s, best_event = e;
                } else if (!second_key || e->key < *second_key) {
                    second = s, second_key = &e->key;
                }
            }
            auto still_first = [&](const Event* e) {
                return e && e->key <= ready &&
                       (!second_key || e->key < *second_key || (e->key == *second_key && best < second));
            };
            if (!still_first(best_event)) break;
            do {
                // Single-thread order means rising keys; a watermark that
                // promised too much shows here (counted for the tests).
                if (best_event->key < last_replayed) replayed_out_of_order.fetch_add(1, std::memory_order_relaxed);
                last_replayed = best_event->key;
                if (!merge_error) {
                    try {
                        replay(*best_event, best);
                    } catch (...) {
                        merge_error = std::current_exception();  // keep draining so no thread waits forever
                    }
                }
                // The next event of the same batch, most often, without head()'s look at the queue.
                std::vector<Event>& run = pending[best].front().events;
                if (at[best] + 4 < run.size()) prefetch_object(&run[at[best] + 4], false);  // its kind read at + 2
                if (at[best] + 2 < run.size()) prefetch_payload(run[at[best] + 2]);
                if (at[best] + 1 < run.size()) prefetch_payload_buffers(run[at[best] + 1]);
                best_event = ++at[best] < run.size() ? &run[at[best]] : head(best);
            } while (still_first(best_event));
        }
    }

    void print_stats(double read_end_s, double front_cpu_s) {
        std::fprintf(stderr,
                     "threads: reading done at %.2f s, %.2f s CPU (with the merge's so far); it found a worker's queue "
                     "full %llu times and waited %.2f s for room or events\n",
                     read_end_s - start_s, front_cpu_s, (unsigned long long)full_waits, double(waited_ns) / 1e9);
        for (size_t i = 0; i < threaded; ++i) {
            Worker* w = workers[i].get();
            std::fprintf(stderr,
                         "threads: worker %u done at %.2f s, %.2f s CPU; it waited %.2f s for segments, %.2f s for "
                         "room in its output queue\n",
                         w->index, w->end_s - start_s, w->cpu_s, double(w->in.empty_wait_ns()) / 1e9,
                         double(w->out.full_wait_ns()) / 1e9);
        }
        std::fprintf(stderr,
                     "threads: the reading thread's own shard: with each segment read (in the reading CPU above), "
                     "and %.2f s CPU at batch ends and closing at the end\n",
                     inline_cpu_s);
        std::fprintf(stderr, "threads: merge (on the reading thread) done at %.2f s, %.2f s CPU in all\n",
                     merge_end_s - start_s, merge_cpu_s);
    }
};

ShardedAnalysis::ShardedAnalysis(const AnalysisOptions& options, std::string file_name, unsigned threads)
    : impl_(std::make_unique<Impl>(options, threads ? threads : 1)) {
    front_.capture().file = std::move(file_name);
}

ShardedAnalysis::~ShardedAnalysis() = default;

void ShardedAnalysis::on_frame(const Frame& f) {
    Impl& m = *impl_;
    if (!m.split_decided) m.decide_split();
    front_.on_frame(f);
    const bool far = m.frames_outlive_next && f.file_offset >= m.flushed_at + kBatchFileSpan;
    if (m.batched >= m.batch_segments || m.batched_bytes >= kBatchBytes || far || m.inline_events_full()) {
        m.flush(false);
        m.flushed_at = f.file_offset;
    }
}

void ShardedAnalysis::front_warning(Warning w) {
    Event e;
    e.key = Key{impl_->seq + 1, 0, 0, 0, impl_->front_counter++};  // before the next segment's events
    e.give(std::make_unique<Warning>(std::move(w)));
    impl_->front_events.push_back(std::move(e));
}

void ShardedAnalysis::segment(const Frame& f, const TcpPacket& p) {
    Impl& m = *impl_;
    const size_t shard = m.shard_of(pair_hash(p));
    m.window.times.push_back(f.ts_ns);
    ++m.seq;
    ++m.batched;
    if (m.inline_cut) m.inline_segment(f, p, shard == m.threaded);
    if (shard == m.threaded) {
        ++m.inline_segments;
        return;
    }
    InBatch& b = m.batches[shard];
    // Built in place once (default-constructing it, then assigning, wrote it twice).
    // A payload inside the frame's bytes (not one the front reassembled from
    // IP fragments) of a reader whose frames outlive the next read is handed
    // on as it is: no copy made here and read again on the worker's core.
    const bool borrow = m.frames_outlive_next && !p.payload.empty() && p.payload.data() >= f.data.data() &&
                        p.payload.data() + p.payload.size() <= f.data.data() + f.data.size();
    Item& it = b.items.emplace_back(Item{m.seq, f, p, borrow ? kBorrowed : b.bytes.size()});
    it.frame.data = {};
    if (borrow) {
        ++m.borrowed;  // no bytes held: its batch is bounded by kBatchFileSpan instead
    } else if (!p.payload.empty()) {
        b.bytes.insert(b.bytes.end(), p.payload.begin(), p.payload.end());
        m.batched_bytes += p.payload.size();
        ++m.copied;
    }
}

void ShardedAnalysis::set_frames_outlive_next(bool yes) { impl_->frames_outlive_next = yes; }
void ShardedAnalysis::set_idle_work(std::function<bool()> work) { impl_->idle_work = std::move(work); }

AnalysisResult ShardedAnalysis::finish() {
    const double read_end = wall_s(), front_cpu = thread_cpu_s();
    front_.finish();
    Impl& m = *impl_;
    borrowed_total.fetch_add(m.borrowed, std::memory_order_relaxed);
    copied_total.fetch_add(m.copied, std::memory_order_relaxed);
    inline_segments_total.fetch_add(m.inline_segments, std::memory_order_relaxed);
    m.flush(true);
    m.merge_to_end();
    full_queue_total.fetch_add(m.full_waits, std::memory_order_relaxed);
    for (auto& w : m.workers)
        if (w->thread.joinable()) w->thread.join();
    for (auto& w : m.workers)
        if (w->error) std::rethrow_exception(w->error);
    if (m.merge_error) std::rethrow_exception(m.merge_error);
    AnalysisResult r =
        m.back.finish(front_.capture(), m.missing_at, front_.missing_times(), m.backwards_at, front_.backwards_times());
    if (m.stats) {
        m.print_stats(read_end, front_cpu);
        std::fprintf(stderr, "threads: analysis finished at %.2f s\n", wall_s() - m.start_s);
    }
    return r;
}

} // namespace stallscope
