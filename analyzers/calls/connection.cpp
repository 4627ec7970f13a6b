#include "analyzers/calls/connection.h"

#include "analyzers/calls/call_timeline.h"
#include "dissectors/http/http_stream_parser.h"
#include "dissectors/tls/tls_handshake.h"
#include "dissectors/tls/tls_record.h"

#include <algorithm>
#include <cstdint>

namespace stallscope {

namespace {
constexpr size_t kSegmentCap = 200000;   // per connection, see docs/limits.md
constexpr size_t kUnackedCap = 100000;
bool has(uint8_t flags, uint8_t f) { return (flags & f) != 0; }
}

// Where a direction's stream goes: decided on its first bytes. A TLS
// record header sends it (and the other direction) to the TLS session;
// anything else to the HTTP exchange tracker, as before.
struct ConnectionAnalyzer::DirSink : StreamReassembler::Sink {
    enum class Route : uint8_t { Undecided, Http, Tls };
    DirSink(ConnectionAnalyzer& c, Side dir) : conn(c), dir(dir) {}
    void on_stream_data(uint64_t offset, std::span<const uint8_t> data, uint64_t tag) override {
        // Bytes are placed in time by the segment that carried them. One held
        // behind a hole until the stream ended (far ahead in sequence space: a
        // corrupt sequence number) may have outlived its record, handed on with
        // the calls before it: without a frame and a time it cannot be placed,
        // and is dropped as a gap rather than made a call at frame 0, time 0.
        if (!conn.segs_.at(tag)) {
            if (!unplaced)
                conn.host_.warn({WarningCode::BytesUnplaced,
                                 std::to_string(data.size()) + " " + side_name(dir) +
                                     " bytes at stream offset " + std::to_string(offset) +
                                     ", held behind a hole until frame " + std::to_string(conn.info_.last_frame) +
                                     ", could not be placed (their segment is no longer known): dropped as a gap",
                                 conn.info_.last_frame, 0, conn.info_.id});
            ++unplaced;
            on_stream_gap(offset, data.size());
            return;
        }
        any_data = true;
        if (route == Route::Undecided) decide(data);
        if (route == Route::Tls) conn.tls_->on_data(dir, offset, data, tag);
        else conn.tracker_.on_data(dir, offset, data, tag);
    }
    void on_stream_gap(uint64_t offset, uint64_t len) override {
        if (offset == 0 && !any_data) before_capture = len;  // bytes sent before the capture began
        if (route == Route::Tls) conn.tls_->on_gap(dir, offset, len);
        else conn.tracker_.on_gap(dir, offset, len);
        gaps += len;
    }
    void decide(std::span<const uint8_t> first) {
        bool tls = conn.sinks_[other_side(dir)]->route == Route::Tls || sniff_tls_record(first) != TlsSniff::No;
        route = tls ? Route::Tls : Route::Http;
        if (tls) conn.tls_session();
    }
    ConnectionAnalyzer& conn;
    Side dir;
    Route route = Route::Undecided;
    uint64_t gaps = 0, unplaced = 0;
    bool any_data = false;
    uint64_t before_capture = 0;
};

ConnectionAnalyzer::ConnectionAnalyzer(uint64_t id, const TcpPacket& first, const AnalysisOptions& options,
                                       ConnectionHost& host)
    : opt_(options), host_(host), segs_(kSegmentCap), tracker_(id, segs_, *this, options) {
    info_.id = id;
    if (has(first.flags, tcpflag::kSyn)) {
        bool synack = has(first.flags, tcpflag::kAck);
        info_.client = synack ? first.dst : first.src;
        info_.server = synack ? first.src : first.dst;
        orientation_known_ = true;
    } else {
        // Began mid-connection: guess the ephemeral (higher) port is the
        // client until the first payload tells us for sure.
        bool src_client = first.src.port >= first.dst.port;
        info_.client = src_client ? first.src : first.dst;
        info_.server = src_client ? first.dst : first.src;
    }
    for (Side d : kSides) {
        sinks_[d] = std::make_unique<DirSink>(*this, d);
        reasm_[d] = std::make_unique<StreamReassembler>(*sinks_[d], options.max_out_of_order_bytes);
    }
}

ConnectionAnalyzer::~ConnectionAnalyzer() = default;

// The one place a connection becomes TLS (keyless models attach here).
TlsSession& ConnectionAnalyzer::tls_session() {
    if (!tls_) {
        tls_ = std::make_unique<TlsSession>(segs_, static_cast<ExchangeHost&>(*this), tracker_, opt_.tls_keys);
        keyless_ = std::make_unique<TlsKeylessCalls>(info_.id, segs_, static_cast<ExchangeHost&>(*this), *tls_);
        tls_->set_observer(keyless_.get());
    }
    return *tls_;
}

void ConnectionAnalyzer::end_of_stream(Side dir) {
    if (sinks_[dir]->route == DirSink::Route::Tls) tls_->on_end_of_stream(dir);
    else tracker_.on_end_of_stream(dir);
}

bool ConnectionAnalyzer::accepts(const TcpPacket& p) const {
    bool syn_only = has(p.flags, tcpflag::kSyn) && !has(p.flags, tcpflag::kAck);
    if (!syn_only) return true;
    if (closed()) return false;
    if (info_.saw_syn) return p.src == info_.client && p.seq == client_isn_;  // a retransmitted SYN
    return !any_payload_;
}

void ConnectionAnalyzer::settle_orientation(const TcpPacket& p) {
    if (orientation_known_ || p.payload.empty()) return;
    orientation_known_ = true;
    bool src_is_client;
    // A TLS record starting a handshake message says who sent it: the client sends the ClientHello.
    bool tls_hello = sniff_tls_record(p.payload) == TlsSniff::Yes && p.payload[0] == tls::kHandshake &&
                     p.payload.size() > tls::kHeaderBytes;
    uint8_t hs = tls_hello ? p.payload[tls::kHeaderBytes] : 0xff;
    if (HttpStreamParser::looks_like_request(p.payload) || hs == tls::kClientHello) src_is_client = true;
    else if (HttpStreamParser::looks_like_response(p.payload) || hs == tls::kServerHello) src_is_client = false;
    else return;  // keep the port guess
    if ((p.src == info_.client) == src_is_client) return;
    std::swap(info_.client, info_.server);
    std::swap(info_.client_mss, info_.server_mss);
    std::swap(info_.client_wscale, info_.server_wscale);
    std::swap(info_.client_ttl, info_.server_ttl);
    for (uint64_t i = segs_.begin_index(); i < segs_.end_index(); ++i)
        if (SegmentInfo* s = segs_.at(i)) s->from = s->from == Side::Client ? Side::Server : Side::Client;
}

void ConnectionAnalyzer::on_handshake(const Frame& f, const TcpPacket& p, Side dir) {
    bool syn = has(p.flags, tcpflag::kSyn), ack = has(p.flags, tcpflag::kAck);
    if (syn && !ack) {
        if (!info_.saw_syn) {
            info_.saw_syn = true;
            info_.syn_ns = f.ts_ns;
            info_.syn_frame = f.number;
            client_isn_ = p.seq;
            client_syn_data_ = p.payload_len;
            info_.client_mss = p.mss;
            info_.client_wscale = p.wscale;
            reasm_[Side::Client]->on_syn(p.seq);
        } else {
            ++info_.syn_retransmissions;
        }
    } else if (syn && ack) {
        if (!info_.synack_frame) {
            info_.synack_ns = f.ts_ns;
            info_.synack_frame = f.number;
            info_.server_mss = p.mss;
            info_.server_wscale = p.wscale;
        }
        if (!have_server_isn_) { server_isn_ = p.seq; have_server_isn_ = true; reasm_[Side::Server]->on_syn(p.seq); }
    } else if (dir == Side::Client && info_.synack_frame && !info_.ack_frame && is_handshake_ack(p)) {
        info_.ack_ns = f.ts_ns;
        info_.ack_frame = f.number;
    } else {
        return;  // no handshake time changed (most packets): handshake_ms stands as it was
    }
    // SYN -> final ACK, or SYN -> SYN-ACK while the ACK is not seen; never
    // from frames in the wrong order (a SYN-ACK captured before its SYN).
    info_.handshake_ms.reset();
    if (info_.syn_frame && info_.synack_frame && info_.synack_ns >= info_.syn_ns) {
        bool acked = info_.ack_frame && info_.ack_ns >= info_.synack_ns;
        info_.handshake_ms = double((acked ? info_.ack_ns : info_.synack_ns) - info_.syn_ns) / 1e6;
    }
}

// The handshake's last step is a pure ACK of the SYN-ACK, in order: no data
// (early data captured first is not the handshake), no SYN/FIN/RST.
bool ConnectionAnalyzer::is_handshake_ack(const TcpPacket& p) const {
    if (!has(p.flags, tcpflag::kAck) || has(p.flags, tcpflag::kSyn | tcpflag::kFin | tcpflag::kRst)) return false;
    if (p.payload_len != 0 || !have_server_isn_ || p.ack != server_isn_ + 1) return false;
    // After a Fast Open SYN the client's next byte is past the SYN's data.
    return !info_.saw_syn || p.seq == client_isn_ + 1 || p.seq == client_isn_ + 1 + client_syn_data_;
}

// Wireshark's rules (tcp.analysis.keep_alive, .zero_window_probe): a
// keep-alive is 0 or 1 byte at the next expected sequence number - 1; a
// zero-window probe is 1 byte at the next expected number while the peer
// advertises a zero window.
uint8_t ConnectionAnalyzer::classify_probe(const TcpPacket& p, Side dir) const {
    if (has(p.flags, tcpflag::kSyn | tcpflag::kFin | tcpflag::kRst) || p.payload_len > 1) return probe::kNone;
    if (!reasm_[dir]->has_origin()) return probe::kNone;
    int64_t at = reasm_[dir]->offset_of(p.seq);
    // A repeated probe (its byte was not accepted) is still a probe.
    if (p.payload_len == 1 && zero_window_[other_side(dir)] && (at == next_seq_[dir] || at == zwp_at_[dir]))
        return probe::kZeroWindowProbe;
    if (at == next_seq_[dir] - 1) return probe::kKeepAlive;
    return probe::kNone;
}

// A data segment and the ACK that covered it: at least the round trip from
// the capture point to the acknowledging side and back (more when that side
// delayed its ACK), so the least of them is that side's share of the path.
void ConnectionAnalyzer::note_path_sample(const SegmentInfo& s, int64_t ack_ns, Side ack_dir) {
    if (s.retransmission || s.len == 0 || ack_ns < s.ts_ns) return;
    int64_t& least = ack_dir == Side::Client ? info_.client_path_ns : info_.server_path_ns;
    int64_t d = ack_ns - s.ts_ns;
    if (least < 0 || d < least) least = d;
    ++info_.path_samples;
}

void ConnectionAnalyzer::track_acks(const Frame& f, const TcpPacket& p, Side dir, uint64_t seg) {
    if (!has(p.flags, tcpflag::kAck)) return;
    const Side other = other_side(dir);
    reasm_[other]->on_peer_ack(p.ack);
    int64_t acked = reasm_[other]->offset_of(p.ack);
    if (acked < 0) return;
    bool pure = p.payload_len == 0 && !has(p.flags, tcpflag::kSyn | tcpflag::kFin | tcpflag::kRst);
    auto& q = unacked_[other];
    while (!q.empty() && int64_t(q.front().end) <= acked) {
        if (SegmentInfo* s = segs_.at(q.front().seg); s && s->acked_ns < 0) {
            s->acked_ns = f.ts_ns;
            s->acked_frame = f.number;
            s->acked_by_pure_ack = pure;
            note_path_sample(*s, f.ts_ns, dir);
        }
        q.pop_front();
    }
}

SegmentInfo ConnectionAnalyzer::segment_record(const Frame& f, const TcpPacket& p, Side dir) {
    SegmentInfo s;
    s.frame = f.number;
    s.ts_ns = f.ts_ns;
    s.from = dir;
    s.flags = p.flags;
    s.len = p.payload_len;
    int64_t rel = reasm_[dir]->offset_of(p.seq);
    s.seq = rel >= 0 ? uint32_t(rel + 1) : 0;
    int64_t arel = reasm_[other_side(dir)]->offset_of(p.ack);
    s.ack = has(p.flags, tcpflag::kAck) && arel >= 0 ? uint32_t(arel + 1) : 0;
    auto own_ws = dir == Side::Client ? info_.client_wscale : info_.server_wscale;
    bool scaled = info_.client_wscale && info_.server_wscale && !has(p.flags, tcpflag::kSyn);
    s.window = scaled ? uint32_t(p.window) << std::min<uint8_t>(*own_ws, 14) : p.window;
    s.probe = classify_probe(p, dir);
    if (has(p.flags, tcpflag::kAck) && !has(p.flags, tcpflag::kSyn | tcpflag::kRst)) zero_window_[dir] = p.window == 0;
    return s;
}

void ConnectionAnalyzer::take_payload(const Frame& f, const TcpPacket& p, Side dir, uint64_t idx, uint8_t probe_kind) {
    // A keep-alive's byte is an old one, sent again only to get an ACK: not data.
    if (p.payload_len == 0 || ended_[dir] || probe_kind == probe::kKeepAlive) return;
    any_payload_ = true;
    (dir == Side::Client ? info_.client_bytes : info_.server_bytes) += p.payload_len;
    // Data on a SYN or SYN-ACK (TCP Fast Open, RFC 7413) follows the SYN's
    // own sequence number: its first byte is ISN+1, stream offset 0.
    const uint32_t data_seq = p.seq + (has(p.flags, tcpflag::kSyn) ? 1 : 0);
    int64_t at = reasm_[dir]->has_origin() ? reasm_[dir]->offset_of(data_seq) : -1;
    auto kind = reasm_[dir]->on_segment(data_seq, p.payload, p.payload_len, idx);
    if (reasm_[dir]->has_origin())
        next_seq_[dir] = std::max(next_seq_[dir], reasm_[dir]->offset_of(data_seq) + int64_t(p.payload_len));
    if (probe_kind == probe::kZeroWindowProbe) zwp_at_[dir] = at;
    // The segment that follows a zero-window probe repeats the probe's byte: not a retransmission.
    bool after_probe = kind == StreamReassembler::SegmentKind::PartialOverlap && at >= 0 && at == zwp_at_[dir];
    if (probe_kind == probe::kNone) zwp_at_[dir] = -1;
    SegmentInfo* rec = segs_.at(idx);
    if ((kind == StreamReassembler::SegmentKind::Retransmission ||
         kind == StreamReassembler::SegmentKind::PartialOverlap) && !after_probe && probe_kind == probe::kNone) {
        ++info_.retransmissions;
        if (rec) rec->retransmission = true;
    } else if (kind == StreamReassembler::SegmentKind::OutOfOrder && rec) {
        rec->out_of_order = true;
    }
    if (kind != StreamReassembler::SegmentKind::Retransmission && unacked_[dir].size() < kUnackedCap) {
        int64_t end = reasm_[dir]->offset_of(data_seq + p.payload_len);
        if (end >= 0) unacked_[dir].push_back({idx, uint64_t(end)});
    } else if (kind != StreamReassembler::SegmentKind::Retransmission && !unacked_cap_frame_) {
        unacked_cap_frame_ = f.number;
        host_.warn({WarningCode::UnackedSegmentCap,
                    "unacknowledged-segment cap (" + std::to_string(kUnackedCap) + ") hit at frame " +
                        std::to_string(f.number) + ": ACK times of later segments are not tracked",
                    f.number, 0, info_.id});
    }
    if (!reorder_cap_warned_[dir] && reasm_[dir]->stats().cap_hit) {
        reorder_cap_warned_[dir] = true;
        host_.warn({WarningCode::OutOfOrderCap,
                    "out-of-order buffer cap (" + std::to_string(opt_.max_out_of_order_bytes) +
                        " bytes per direction) hit at frame " + std::to_string(f.number) + ": " +
                        side_name(dir) +
                        " bytes held behind a hole were released, the hole becomes a gap",
                    f.number, 0, info_.id});
    }
}

void ConnectionAnalyzer::take_close_flags(const TcpPacket& p, Side dir) {
    if (has(p.flags, tcpflag::kFin) && !ended_[dir]) {
        (dir == Side::Client ? info_.fin_client : info_.fin_server) = true;
        ended_[dir] = true;
        reasm_[dir]->flush();
        end_of_stream(dir);
    }
    if (has(p.flags, tcpflag::kRst)) {
        info_.rst = true;
        for (Side d : kSides) {
            if (ended_[d]) continue;
            ended_[d] = true;
            reasm_[d]->flush();
            end_of_stream(d);
        }
    }
}

void ConnectionAnalyzer::on_packet(const Frame& f, const TcpPacket& p) {
    if (info_.first_frame == 0) { info_.first_frame = f.number; info_.first_ns = f.ts_ns; }
    info_.last_frame = f.number;
    info_.last_ns = std::max(info_.last_ns, f.ts_ns);
    ++info_.packets;
    tracker_.begin_packet();
    settle_orientation(p);
    Side dir = dir_of(p);
    uint8_t& ttl = dir == Side::Client ? info_.client_ttl : info_.server_ttl;
    ttl = std::max(ttl, p.ttl);
    PerSide<int64_t> origin_before;
    for (Side d : kSides) origin_before[d] = reasm_[d]->has_origin() ? reasm_[d]->origin() : INT64_MIN;
    on_handshake(f, p, dir);

    const SegmentInfo s = segment_record(f, p, dir);
    uint64_t idx = segs_.push(s);
    if (!segment_cap_frame_ && segs_.dropped()) segment_cap_frame_ = f.number;

    track_acks(f, p, dir, idx);

    take_payload(f, p, dir, idx, s.probe);
    take_close_flags(p, dir);
    for (Side d : kSides)
        if (origin_before[d] != INT64_MIN && reasm_[d]->origin() != origin_before[d])
            shift_offsets(d, origin_before[d] - reasm_[d]->origin());
    if (SegmentInfo* rec = segs_.at(idx)) {
        if (rec->seq == 0 && reasm_[dir]->has_origin())
            rec->seq = uint32_t(reasm_[dir]->offset_of(p.seq) + 1);  // this segment set the origin
        if (rec->ack == 0 && has(p.flags, tcpflag::kAck)) {
            const int64_t acked = reasm_[other_side(dir)]->offset_of(p.ack);
            if (acked >= 0) rec->ack = uint32_t(acked + 1);  // its ACK placed the peer's origin
        }
    }
    const bool is_closed = closed();  // hand_on does not change the flags
    if (is_closed) { close_frame_ = f.number; close_ns_ = f.ts_ns; }  // the last packet of the close
    info_.http = tracker_.any_http();
    hand_on(false);
    if (is_closed && !shrunk_) {
        // No more bytes come: a lingering connection keeps its calls (parked)
        // and segments, with buffers cut to what they hold.
        shrunk_ = true;
        tracker_.park();
        segs_.shrink();
        for (auto& q : unacked_) q.shrink();
        if (keyless_) keyless_->release_spare();
    }
}

// Direction `dir`'s stream origin moved back by `by` bytes (a segment
// captured late carried earlier bytes, or a late SYN): offsets kept so far
// grow by that much.
void ConnectionAnalyzer::shift_offsets(Side dir, int64_t by) {
    for (uint64_t i = segs_.begin_index(); i < segs_.end_index(); ++i) {
        SegmentInfo* s = segs_.at(i);
        if (!s) continue;
        if (s->from == dir && s->seq) s->seq += uint32_t(by);
        if (s->from != dir && s->ack) s->ack += uint32_t(by);
    }
    for (auto& u : unacked_[dir]) u.end += uint64_t(by);
    next_seq_[dir] += by;
    if (zwp_at_[dir] >= 0) zwp_at_[dir] += by;
}

void ConnectionAnalyzer::hand_on(bool all) {
    // One vector per thread, not per connection (most connections linger
    // closed with nothing to hand on), used in place (moving it out and back
    // cost more than the rest of a packet's hand_on); a nested call, should
    // there be one, gets its own.
    thread_local std::vector<ExchangeTracker::Ready> spare;
    thread_local bool spare_in_use = false;
    std::vector<ExchangeTracker::Ready> nested;
    const bool outer = !spare_in_use;
    std::vector<ExchangeTracker::Ready>& ready = outer ? spare : nested;
    struct InUse {
        bool outer;
        explicit InUse(bool o) : outer(o) { if (outer) spare_in_use = true; }
        ~InUse() { if (outer) spare_in_use = false; }
    } in_use(outer);
    tracker_.take_ready(all, ready);
    for (size_t i = 0; i < ready.size(); ++i) {
        auto& r = ready[i];
        Call& c = r.call();
        ++info_.calls;
        c.opened_connection = c.index_on_connection == 0 && info_.saw_syn;
        bool last = all && i + 1 == ready.size();
        c.closed_connection = last && closed();
        segs_.copy(r.seg_first, r.seg_end, c.segments);
        order_call_times(c);
        build_phases(c, info_, close_ns_, close_frame_);
        host_.call_ready(std::move(c), info_);
    }
    ready.clear();  // the calls' states go back for the next calls
    hand_on_tls(all);
    // Segments no open call needs any more. A connection that never carried
    // HTTP keeps none (after its first packets, in case HTTP starts late).
    if (keyless_) {  // TLS: decrypted calls (tracker) and keyless ones may both need segments
        uint64_t keep = tracker_.calls_started() > 0 ? tracker_.oldest_needed_segment() : segs_.end_index();
        segs_.release_before(std::min(keep, keyless_->oldest_needed_segment()));
    } else if (tracker_.calls_started() > 0) segs_.release_before(tracker_.oldest_needed_segment());
    else if (tracker_.http_state(Side::Client) == 0 && tracker_.http_state(Side::Server) == 0) segs_.release_before(segs_.end_index());
    else if (tls_ && !tls_->needs_segments()) segs_.release_before(segs_.end_index());
}

// The calls the TLS records made (no keys), with the connection's TLS facts
// set first: the detectors read them from the Connection they are given.
void ConnectionAnalyzer::hand_on_tls(bool all) {
    if (!keyless_) return;
    keyless_->describe(info_.tls ? *info_.tls : info_.tls.emplace());
    thread_local std::vector<TlsKeylessCalls::Ready> ready;
    keyless_->take_ready(all, ready);
    for (size_t i = 0; i < ready.size(); ++i) {
        Call& c = ready[i].call;
        ++info_.calls;
        c.opened_connection = c.index_on_connection == 0 && info_.saw_syn;
        c.closed_connection = all && i + 1 == ready.size() && closed();
        segs_.copy(ready[i].seg_first, ready[i].seg_end, c.segments);
        order_call_times(c);
        build_phases(c, info_, close_ns_, close_frame_);
        host_.call_ready(std::move(c), info_);
    }
    ready.clear();
}

// A connection whose handshake was not captured: say so, with how much of
// each stream (placed by the peer's first ACK) came before the first
// captured byte, so an incomplete first call is not read as a slow one.
void ConnectionAnalyzer::warn_began_before_capture() {
    if (info_.saw_syn || info_.synack_frame || !info_.http) return;
    const PerSide<uint64_t> missed = {sinks_[Side::Client]->before_capture, sinks_[Side::Server]->before_capture};
    std::string what = "connection " + info_.client.to_string() + " -> " + info_.server.to_string() +
                       " began before the capture (no handshake): ";
    if (missed[Side::Client] == 0 && missed[Side::Server] == 0)
        what += "no bytes missed before the first captured ones (by each side's first ACK)";
    else
        what += std::to_string(missed[Side::Client]) + " client and " + std::to_string(missed[Side::Server]) +
                " server bytes missed between each side's first ACK and its first captured bytes";
    for (Side d : kSides) {
        const uint64_t first = tracker_.first_message_offset(d);
        if (first != UINT64_MAX && first > missed[d])
            what += std::string("; the ") + side_name(d) + "'s first " + std::to_string(first - missed[d]) +
                    " captured bytes end a message begun before the capture (not parsed)";
    }
    what += "; a call whose message began before the capture is reported incomplete, not timed";
    host_.warn({WarningCode::BeganBeforeCapture, what, info_.first_frame, 0, info_.id});
}

void ConnectionAnalyzer::finish() {
    // Held segments are released with gaps; a stream that did not end stays
    // open (its last message is incomplete, not ended by the capture's end).
    tracker_.begin_packet();
    for (Side d : kSides) reasm_[d]->flush();
    info_.gap_bytes = sinks_[Side::Client]->gaps + sinks_[Side::Server]->gaps;
    info_.http = tracker_.any_http();
    warn_began_before_capture();
    hand_on(true);
    if (segs_.dropped())
        host_.warn({WarningCode::SegmentHistoryCap,
                    "segment history cap (" + std::to_string(kSegmentCap) + " per connection) hit at frame " +
                        std::to_string(segment_cap_frame_) + ": " + std::to_string(segs_.dropped()) +
                        " oldest segments not kept for diagrams and detectors",
                    segment_cap_frame_, 0, info_.id});
}

} // namespace stallscope
