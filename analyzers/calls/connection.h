#pragma once
// One TCP connection: handshake, both directions reassembled, ACK timing
// of every data segment, and the HTTP calls it carried. Memory: the
// reassembly buffers plus the segments of calls not yet handed on.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/calls/fifo.h"
#include "analyzers/calls/segment_store.h"
#include "analyzers/calls/tls_keyless_calls.h"
#include "analyzers/calls/tls_session.h"
#include "capture/frame.h"
#include "capture/packet_decoder.h"
#include "capture/tcp/stream_reassembler.h"

#include <memory>

namespace stallscope {

class ConnectionHost {
public:
    virtual ~ConnectionHost() = default;
    virtual uint64_t new_call_id() = 0;
    virtual void warn(Warning w) = 0;
    // A finished call with its segments and phases filled in.
    virtual void call_ready(Call&& call, const Connection& conn) = 0;
    // One per analysis, shared by its connections; null: compress every body.
    virtual DeflateSampler* deflate_sampler() { return nullptr; }
    // One per analysis: the calls whose SOAP bodies are read whole; null: all.
    virtual DeflateSampler* xml_sampler() { return nullptr; }
};

class ConnectionAnalyzer : private ExchangeHost {
public:
    ConnectionAnalyzer(uint64_t id, const TcpPacket& first, const AnalysisOptions& options, ConnectionHost& host);
    ~ConnectionAnalyzer() override;

    // False when `p` opens a new connection on the same address pair (port
    // reuse): the caller closes this one and starts another.
    bool accepts(const TcpPacket& p) const;
    void on_packet(const Frame& f, const TcpPacket& p);
    // End of capture, eviction or reuse: hand on every call.
    void finish();

    bool closed() const { return info_.rst || (info_.fin_client && info_.fin_server); }
    int64_t last_ns() const { return info_.last_ns; }
    const Connection& info() const { return info_; }
    std::vector<Call> provisional_calls() const { return tracker_.provisional(); }
    // The TLS side, once a direction's first bytes were a TLS record (else null).
    const TlsSession* tls() const { return tls_.get(); }

private:
    struct DirSink;
    struct Unacked { uint64_t seg; uint64_t end; };

    uint64_t new_call_id() override { return host_.new_call_id(); }
    void warn(WarningCode code, const std::string& message, uint64_t frame, uint64_t call_id) override {
        host_.warn({code, message, frame, 0, info_.id, call_id});
    }
    DeflateSampler* deflate_sampler() override { return host_.deflate_sampler(); }
    DeflateSampler* xml_sampler() override { return host_.xml_sampler(); }
    uint32_t stream_ack(Side acked_dir, uint32_t ack) override { return tls_ ? tls_->plain_ack(acked_dir, ack) : ack; }

    Side dir_of(const TcpPacket& p) const { return p.src == info_.client ? Side::Client : Side::Server; }
    void settle_orientation(const TcpPacket& p);
    void on_handshake(const Frame& f, const TcpPacket& p, Side dir);
    bool is_handshake_ack(const TcpPacket& p) const;
    uint8_t classify_probe(const TcpPacket& p, Side dir) const;
    void track_acks(const Frame& f, const TcpPacket& p, Side dir, uint64_t seg);
    // on_packet's steps: the segment's record (and whether its window is 0); its payload into the
    // reassembler (retransmission, out of order, unacked, caps); FIN and RST.
    SegmentInfo segment_record(const Frame& f, const TcpPacket& p, Side dir);
    void take_payload(const Frame& f, const TcpPacket& p, Side dir, uint64_t idx, uint8_t probe_kind);
    void take_close_flags(const TcpPacket& p, Side dir);
    void note_path_sample(const SegmentInfo& s, int64_t ack_ns, Side ack_dir);
    void hand_on(bool all);
    void hand_on_tls(bool all);
    void warn_began_before_capture();
    void shift_offsets(Side dir, int64_t by);
    TlsSession& tls_session();
    void end_of_stream(Side dir);

    const AnalysisOptions& opt_;
    ConnectionHost& host_;
    Connection info_;
    SegmentStore segs_;
    ExchangeTracker tracker_;
    PerSide<std::unique_ptr<DirSink>> sinks_;
    std::unique_ptr<TlsSession> tls_;
    std::unique_ptr<TlsKeylessCalls> keyless_;  // calls from the TLS records (no keys)
    PerSide<std::unique_ptr<StreamReassembler>> reasm_;
    PerSide<Fifo<Unacked>> unacked_;
    bool orientation_known_ = false;
    bool any_payload_ = false;
    uint32_t client_isn_ = 0, server_isn_ = 0;
    uint32_t client_syn_data_ = 0;  // bytes on the first SYN (TCP Fast Open)
    bool have_server_isn_ = false;
    PerSide<bool> ended_ = {false, false};
    bool shrunk_ = false;  // closed: buffers cut to what they hold
    uint64_t close_frame_ = 0;
    // Frames where a per-connection cap was first hit (0 = not hit), for the warnings.
    uint64_t segment_cap_frame_ = 0, unacked_cap_frame_ = 0;
    PerSide<bool> reorder_cap_warned_ = {false, false};
    int64_t close_ns_ = 0;
    // Probe classification, per direction: the next expected stream offset,
    // whether that side's last advertised window was 0, the last zero-window probe's offset.
    PerSide<int64_t> next_seq_ = {0, 0};
    PerSide<bool> zero_window_ = {false, false};
    PerSide<int64_t> zwp_at_ = {-1, -1};
};

} // namespace stallscope
