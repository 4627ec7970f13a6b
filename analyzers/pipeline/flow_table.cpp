#include "analyzers/pipeline/flow_table.h"

#include <algorithm>

namespace stallscope {

FlowTable::FlowTable(const AnalysisOptions& options, FlowSink& sink, unsigned shards)
    : opt_(options), sink_(sink), // --full-xml: every body compressed whole, the exact gzip estimate.
      deflate_sampler_(options.full_xml ? 0 : options.deflate_sample_first, options.full_xml ? 0 : options.deflate_sample_every,
                       options.full_xml),
      xml_sampler_(options.xml_sample_first, options.xml_sample_every),
      max_open_(shards > 1 ? (options.max_open_connections + shards - 1) / shards : options.max_open_connections),
      cap_text_(std::to_string(options.max_open_connections)) {
    if (shards > 1) cap_text_ += " over " + std::to_string(shards) + " workers: " + std::to_string(max_open_) + " each";
}

FlowTable::~FlowTable() = default;

void FlowTable::warn(Warning w) { sink_.warn(std::move(w)); }

void FlowTable::close_flow(Flows::iterator it) {
    current_ = it->second->info().id;
    it->second->finish();
    Connection info = it->second->info();
    flows_.erase(it);
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
        auto it = flows_.find(l.key);
        if (it == flows_.end() || it->second->info().id != l.id) continue;  // already closed (reuse, cap)
        if (now_ns - it->second->last_ns() > kClosedLingerNs) {
            sink_.closing(l.id, l.last_ns);
            close_flow(it);
        } else {
            lingering_.push({it->second->last_ns(), l.id, l.key});  // a packet came since
        }
    }
}

void FlowTable::finish() {
    std::vector<std::pair<uint64_t, FlowKey>> order;
    for (auto& [key, conn] : flows_) order.push_back({conn->info().id, key});
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [id, key] : order) {
        sink_.closing(id, 0);
        close_flow(flows_.find(key));
    }
}

void FlowTable::on_segment(const Frame& f, const TcpPacket& p) {
    expire_closed(f.ts_ns);  // first: a packet past a closed connection's linger is not its own
    FlowKey key = p.src < p.dst ? FlowKey{p.src, p.dst} : FlowKey{p.dst, p.src};
    auto it = flows_.find(key);
    if (it != flows_.end() && !it->second->accepts(p)) {
        close_flow(it);  // the address pair is reused by a new connection
        it = flows_.end();
    }
    if (it == flows_.end()) {
        if (flows_.size() >= max_open_) {
            // Over the cap: the least recently active connection is finished
            // early (the lowest id of those, not whichever the hash puts first).
            auto oldest = std::min_element(flows_.begin(), flows_.end(), [](auto& a, auto& b) {
                return a.second->last_ns() != b.second->last_ns() ? a.second->last_ns() < b.second->last_ns()
                                                                  : a.second->info().id < b.second->info().id;
            });
            if (!cap_warned_) {
                cap_warned_ = true;
                sink_.warn({WarningCode::OpenConnectionCap, "open-connection cap (" + cap_text_ + ") hit at frame " + std::to_string(f.number) +
                                ": least recently active connections are finished early",
                            f.number, f.file_offset, 0});
            }
            close_flow(oldest);
        }
        uint64_t id = sink_.new_connection_id();
        it = flows_.emplace(key, std::make_unique<ConnectionAnalyzer>(id, p, opt_, static_cast<ConnectionHost&>(*this))).first;
    }
    current_ = it->second->info().id;
    const bool was_closed = it->second->closed();
    it->second->on_packet(f, p);
    if (!was_closed && it->second->closed()) lingering_.push({it->second->last_ns(), it->second->info().id, key});
}

void FlowTable::provisional(std::vector<Connection>& conns, std::vector<Call>& calls) const {
    for (auto& [key, conn] : flows_) {
        conns.push_back(conn->info());
        for (Call& c : conn->provisional_calls()) calls.push_back(std::move(c));
    }
}

} // namespace stallscope
