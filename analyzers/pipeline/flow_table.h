#pragma once
// The open TCP connections of one analysis (or of one worker's share of
// them): finds a segment's connection, opens, evicts and closes them, and
// hands what they produce to a FlowSink. Nothing depends on hash order
// (lingering connections close in (last packet, id) order, the end in id
// order, the cap evicts by (last packet, id)), so a table holding a subset
// of the connections produces, for each of them, exactly what a table
// holding all of them would, given the same frame times (expire_closed).
#include "analyzers/calls/connection.h"
#include "analyzers/detectors/deflate_sampler.h"
#include "analyzers/pipeline/flat_map.h"

#include <cstring>
#include <memory>
#include <queue>
#include <string>

namespace stallscope {

// A connection that ended (FIN both ways or RST) is closed once the capture
// is this far past its last packet: late ACKs of a closed connection still count.
constexpr int64_t kClosedLingerNs = 1'000'000'000;

class FlowSink {
public:
    virtual ~FlowSink() = default;
    virtual uint64_t new_connection_id() = 0;
    virtual uint64_t new_call_id(uint64_t connection_id) = 0;
    virtual void warn(Warning w) = 0;
    virtual void call_ready(Call&& call, const Connection& conn) = 0;
    // Connection `id` is about to be closed because its linger ran out
    // (`order_ns`: the time it is queued under) or at the end (order_ns 0);
    // not called for eviction or address-pair reuse.
    virtual void closing(uint64_t id, int64_t order_ns) {}
    virtual void connection_closed(Connection&& conn) = 0;
};

class FlowTable : private ConnectionHost {
public:
    // The whole analysis' table: max_open_connections open at most.
    FlowTable(const AnalysisOptions& options, FlowSink& sink);
    // One shard of a sharded analysis: its share of the cap on open
    // connections, and the cap as the warning names it (sharded_analysis.cpp).
    FlowTable(const AnalysisOptions& options, FlowSink& sink, size_t max_open, std::string cap_text);
    ~FlowTable() override;

    // Closes what expire_closed(f.ts_ns) closes, then analyses the segment.
    void on_segment(const Frame& f, const TcpPacket& p);
    // Closes the closed connections whose linger ran out by `now_ns` (the
    // time of a TCP frame; a worker is told the times of the frames other
    // workers get, so its connections close where one table would close them).
    void expire_closed(int64_t now_ns) {
        if (!lingering_.empty() && now_ns - lingering_.top().last_ns > kClosedLingerNs) expire_due(now_ns);
    }
    // Its cap on open connections, set again before its first segment (a
    // sharded analysis decides its split at the first frame).
    void set_cap(size_t max_open, std::string cap_text) {
        max_open_ = max_open;
        cap_text_ = std::move(cap_text);
    }
    void finish();  // close every connection, in id order
    // Live view: open connections and their calls so far.
    void provisional(std::vector<Connection>& conns, std::vector<Call>& calls) const;

private:
    struct FlowKey {
        Endpoint a, b;  // a < b
        // Field by field as the defaulted == would, with the address bytes
        // compared as two words each instead of a memcmp call (every lookup).
        friend bool operator==(const FlowKey& x, const FlowKey& y) { return same(x.a, y.a) && same(x.b, y.b); }
        static bool same(const Endpoint& x, const Endpoint& y) {
            uint64_t u[2], v[2];
            std::memcpy(u, x.addr.bytes.data(), 16);
            std::memcpy(v, y.addr.bytes.data(), 16);
            return x.port == y.port && x.addr.family == y.addr.family && ((u[0] ^ v[0]) | (u[1] ^ v[1])) == 0;
        }
    };
    struct FlowKeyHash {
        size_t operator()(const FlowKey& k) const { return EndpointHash{}(k.a) * 31 + EndpointHash{}(k.b); }
    };
    // Open and lingering connections; nothing depends on its order (see above).
    using Flows = FlatMap<FlowKey, std::unique_ptr<ConnectionAnalyzer>, FlowKeyHash>;

    uint64_t new_call_id() override { return sink_.new_call_id(current_); }
    void warn(Warning w) override;
    void call_ready(Call&& call, const Connection& conn) override { sink_.call_ready(std::move(call), conn); }
    DeflateSampler* deflate_sampler() override { return &deflate_sampler_; }
    DeflateSampler* xml_sampler() override { return &xml_sampler_; }
    void close_flow(const FlowKey& key, ConnectionAnalyzer& conn);  // `key` not in the table's own slot
    void expire_due(int64_t now_ns);

    const AnalysisOptions& opt_;
    FlowSink& sink_;
    DeflateSampler deflate_sampler_;
    DeflateSampler xml_sampler_;  // its picks: the calls read whole (AnalysisOptions::full_xml)
    Flows flows_;
    // Closed connections waiting out their linger, earliest last packet first
    // (lazy: an entry whose connection saw a later packet is pushed again).
    struct Lingering {
        int64_t last_ns;
        uint64_t id;
        FlowKey key;
        bool operator>(const Lingering& o) const { return last_ns != o.last_ns ? last_ns > o.last_ns : id > o.id; }
    };
    std::priority_queue<Lingering, std::vector<Lingering>, std::greater<Lingering>> lingering_;
    size_t max_open_;
    std::string cap_text_;  // "100000", or "100000 over 2 workers: 50000 each"
    bool cap_warned_ = false;
    uint64_t current_ = 0;  // the connection at work (its calls get ids)
};

} // namespace stallscope
