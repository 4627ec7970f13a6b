#pragma once
// Turns the two reassembled byte streams of one connection into HTTP
// exchanges (request, optional interim 100 Continue, final response) and
// calls: drives the sniffer and the parser of each direction, builds the
// calls, pairs responses with requests (response_pairing), handles gaps and
// tunnels. Its helpers each do one job: which segment carried which bytes
// (segment_attribution), call-state recycling (call_state_pool), a closed
// connection's calls kept encoded (parked_calls), what messages say
// (message_content).
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/detectors/deflate_sampler.h"
#include "analyzers/calls/call_state_pool.h"
#include "analyzers/calls/fifo.h"
#include "analyzers/calls/parked_calls.h"
#include "analyzers/result/model.h"
#include "analyzers/calls/segment_store.h"
#include "dissectors/http/http_stream_parser.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace stallscope {

// What the tracker needs from the connection that owns it.
class ExchangeHost {
public:
    virtual ~ExchangeHost() = default;
    virtual uint64_t new_call_id() = 0;
    // message may hold "{call}" for call_id's number (analyzers/result/model.h).
    virtual void warn(WarningCode code, const std::string& message, uint64_t frame, uint64_t call_id = 0) = 0;
    // Chooses the bodies compressed for the gzip estimate; null: all of them.
    virtual DeflateSampler* deflate_sampler() { return nullptr; }
    // Chooses the calls whose bodies are read whole (analyzers/accounting/xml_sample.h); null: all.
    virtual DeflateSampler* xml_sampler() { return nullptr; }
    // A segment's ACK (SegmentInfo::ack, 1-based in the TCP stream of
    // direction `acked_dir`) in the tracker's stream space: the same, except
    // for decrypted TLS, whose plaintext stream is shorter than the wire's.
    virtual uint32_t stream_ack(Side acked_dir, uint32_t ack) { return ack; }
};

class ExchangeTracker {
public:
    ExchangeTracker(uint64_t connection_id, SegmentStore& segments, ExchangeHost& host, const AnalysisOptions& options);
    ~ExchangeTracker();

    // Stream bytes of one direction (named by its sender), carried by the
    // segment with index `seg`.
    void on_data(Side dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg);
    // A new packet: bytes it delivers are timed from the latest segment
    // delivered with them (see SegmentAttribution::delivery_ns).
    void begin_packet();
    void on_gap(Side dir, uint64_t offset, uint64_t len);
    void on_end_of_stream(Side dir);

    // Did the direction's first bytes look like HTTP? (-1 unknown, 0 no, 1 yes)
    int http_state(Side dir) const;
    bool any_http() const { return http_state(Side::Client) == 1 || http_state(Side::Server) == 1; }

    // Calls that are finished and safe to hand on: every call before the
    // last completed one, or all of them when `all` (connection closed or
    // capture ended). Each gets its segment window [first, end). The call
    // lives in the state it was assembled in, reused when the Ready goes.
    using Ready = ReadyCall;
    // Into `out` (cleared first; the caller keeps it to reuse its memory).
    void take_ready(bool all, std::vector<Ready>& out);
    // Copies of calls still open (for live snapshots).
    std::vector<Call> provisional() const;
    // Oldest segment index any open call still needs.
    uint64_t oldest_needed_segment() const;
    uint32_t calls_started() const { return calls_started_; }
    // Stream offset of the first HTTP message of a direction (UINT64_MAX:
    // none found): captured bytes before it ended a message begun earlier.
    uint64_t first_message_offset(Side dir) const { return first_message_[dir]; }
    // Both directions ended and the finished calls were taken: what is left
    // waits only for take_ready(true). The parsers and per-direction state
    // go, and the calls left are kept encoded (ParkedCalls) while the closed
    // connection lingers.
    void park();

private:
    struct Dir;
    class Listener;
    // The bytes just fed are about to go: bodies that only reference them copy them (MessageBody::keep).
    void keep_bodies(Side dir);
    void finish_soap(CallState& c, bool response);
    void set_done(CallState& cs);
    void discard_method(CallState& cs);
    void request_waits(CallState& cs, uint64_t head_end, const std::string& method);
    CallState* pair_response(uint64_t offset, const SegmentInfo* seg);
    void gap_dropped(Side dir, bool rejected);
    void enter_tunnel(bool both);

    // A response that acknowledged client bytes not captured yet: the request
    // it answers comes later in the capture and must not be paired with another.
    struct EarlyResponse { uint32_t ack; uint64_t frame; };
    static constexpr size_t kMaxEarlyResponses = 64;

    uint64_t conn_id_;
    SegmentStore& segs_;
    ExchangeHost& host_;
    const AnalysisOptions& opt_;
    PerSide<std::unique_ptr<Dir>> dirs_;
    Fifo<CallStatePtr> calls_;
    uint32_t calls_started_ = 0;
    size_t waiting_ = 0;               // calls whose request waits for a response
    bool pending_cap_warned_ = false;
    Fifo<EarlyResponse> early_;
    bool parked_ = false;
    bool borrowed_ = false;            // a body references bytes fed in this on_data (keep_bodies)
    ParkedCalls parked_calls_;
    PerSide<int> parked_http_ = {-1, -1};
    PerSide<uint64_t> first_message_ = {UINT64_MAX, UINT64_MAX};
    friend class Listener;
};

} // namespace stallscope
