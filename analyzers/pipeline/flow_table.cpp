#include "analyzers/pipeline/flow_table.h"

#include <algorithm>

namespace stallscope {

FlowTable::FlowTable(const AnalysisOptions& options, FlowSink& sink)
    : FlowTable(options, sink, options.max_open_connections, std::to_string(options.max_open_connections)) {}

FlowTable::FlowTable(const AnalysisOptions& options, FlowSink& sink, size_t max_open, std::string cap_text)
    : opt_(options), sink_(sink), // --full-xml: every body compressed whole, the exact gzip estimate.
      deflate_sampler_(options.full_xml ? 0 : options.deflate_sample_first, options.full_xml ? 0 : options.deflate_sample_every,
                       options.full_xml),
      xml_sampler_(options.xml_sample_first, options.xml_sample_every),
      max_open_(max_open),
      cap_text_(std::move(cap_text)) {}

FlowTable::~FlowTable() = default;

void FlowTable::warn(Warning w) { sink_.warn(std::move(w)); }

void FlowTable::close_flow(const FlowKey& key, ConnectionAnalyzer& conn) {
    current_ = conn.info().id;
    conn.finish();
    Connection info = conn.info();
    flows_.erase(key);  // `conn` with it
    sink_.connection_closed(std::move(info));
}

// A closed connection lingers kClosedLingerNs of capture time after its last
// packet (late ACKs still belong to its last call), then is closed at the
// first TCP frame past that: memory holds the connections closed in the
// last second, not every connection since the last sweep.
void FlowTable::expire_due(int64_t now_ns) {
    while (!lingering_.empty() && now_ns - lingering_.top().last_ns > kClosedLingerNs) {
        Lingering l = lingering_.top();
        lingering_.pop();
        auto* conn = flows_.find(l.key);
        if (!conn || (*conn)->info().id != l.id) continue;  // already closed (reuse, cap)
        if (now_ns - (*conn)->last_ns() > kClosedLingerNs) {
            sink_.closing(l.id, l.last_ns);
            close_flow(l.key, **conn);
        } else {
            lingering_.push({(*conn)->last_ns(), l.id, l.key});  // a packet came since
        }
    }
}

void FlowTable::finish() {
    std::vector<std::pair<uint64_t, FlowKey>> order;
    flows_.each([&](const FlowKey& key, auto& conn) { order.push_back({conn->info().id, key}); });
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [id, key] : order) {
        sink_.closing(id, 0);
        close_flow(key, **flows_.find(key));
    }
}

void FlowTable::on_segment(const Frame& f, const TcpPacket& p) {
    expire_closed(f.ts_ns);  // first: a packet past a closed connection's linger is not its own
    FlowKey key = p.src < p.dst ? FlowKey{p.src, p.dst} : FlowKey{p.dst, p.src};
    ConnectionAnalyzer* conn = nullptr;
    if (auto* found = flows_.find(key)) {
        conn = found->get();
        if (!conn->accepts(p)) {
            close_flow(key, *conn);  // the address pair is reused by a new connection
            conn = nullptr;
        }
    }
    if (!conn) {
        if (flows_.size() >= max_open_) {
            // Over the cap: the least recently active connection is finished
            // early (the lowest id of those, not whichever the hash puts first).
            const FlowKey* oldest_key = nullptr;
            ConnectionAnalyzer* oldest = nullptr;
            flows_.each([&](const FlowKey& k, auto& c) {
                if (!oldest || (c->last_ns() != oldest->last_ns() ? c->last_ns() < oldest->last_ns()
                                                                   : c->info().id < oldest->info().id)) {
                    oldest = c.get();
                    oldest_key = &k;
                }
            });
            if (!cap_warned_) {
                cap_warned_ = true;
                sink_.warn({WarningCode::OpenConnectionCap, "open-connection cap (" + cap_text_ + ") hit at frame " + std::to_string(f.number) +
                                ": least recently active connections are finished early",
                            f.number, f.file_offset, 0});
            }
            const FlowKey victim = *oldest_key;  // the slot moves when erased
            close_flow(victim, *oldest);
        }
        uint64_t id = sink_.new_connection_id();
        conn = flows_.insert(key, std::make_unique<ConnectionAnalyzer>(id, p, opt_, static_cast<ConnectionHost&>(*this))).get();
    }
    current_ = conn->info().id;
    const bool was_closed = conn->closed();
    conn->on_packet(f, p);
    if (!was_closed && conn->closed()) lingering_.push({conn->last_ns(), conn->info().id, key});
}

void FlowTable::provisional(std::vector<Connection>& conns, std::vector<Call>& calls) const {
    flows_.each([&](const FlowKey&, const auto& conn) {
        conns.push_back(conn->info());
        for (Call& c : conn->provisional_calls()) calls.push_back(std::move(c));
    });
}

} // namespace stallscope
