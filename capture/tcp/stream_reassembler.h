#pragma once
// Reassembles one direction of a TCP connection into an in-order byte
// stream. Bytes are handed on exactly once, attributed to the segment that
// carried them (its tag); retransmitted and overlapping bytes are dropped
// (first copy wins, as most receivers do); segments that arrive early are
// held up to a byte cap; holes that can no longer be filled are reported as
// gaps so the consumer can resynchronise. Memory: the held segments only.
// Without a SYN the origin is a guess (the first segment seen) until the
// peer's first ACK places it: at that ACK when it is at or before the first
// byte seen (the bytes between were sent before the capture: a gap), else
// the first byte seen stands. Until then (or the stream ends, or the cap is
// hit) nothing is delivered and a segment captured later with earlier bytes
// moves the origin back to it.
#include "capture/tcp/seq_unwrapper.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

namespace stallscope {

class StreamReassembler {
public:
    // `tag` identifies the segment (the caller's index); `offset` is the
    // stream offset (0 = first data byte after the SYN, or the first byte
    // seen when the capture began mid-connection).
    struct Sink {
        virtual ~Sink() = default;
        virtual void on_stream_data(uint64_t offset, std::span<const uint8_t> data, uint64_t tag) = 0;
        virtual void on_stream_gap(uint64_t offset, uint64_t len) = 0;
    };

    enum class SegmentKind { New, InOrder, OutOfOrder, Retransmission, PartialOverlap, Empty };

    struct Stats {
        uint64_t gap_bytes = 0, retransmitted_bytes = 0, out_of_order_segments = 0;
        bool cap_hit = false;
    };

    StreamReassembler(Sink& sink, size_t max_buffered_bytes) : sink_(sink), cap_(max_buffered_bytes) {}

    // A SYN fixes the initial sequence number (also after data, while
    // nothing has been delivered).
    void on_syn(uint32_t isn);
    // A segment with payload (captured bytes may be fewer than `wire_len`;
    // the missing tail becomes a gap). Returns how it was classified.
    SegmentKind on_segment(uint32_t seq, std::span<const uint8_t> captured, uint32_t wire_len, uint64_t tag);
    // The peer acknowledged up to `ack`: bytes below it that we never saw
    // will never come, so held segments beyond a hole are released. Without
    // a SYN, the first ACK also places the stream's origin (see above).
    void on_peer_ack(uint32_t ack);
    // End of stream or of the capture: release everything held, with gaps.
    void flush();

    // Stream offset of a sequence number (for ACK mapping); nullopt-like -1
    // when the stream has no reference point yet.
    int64_t offset_of(uint32_t seq) const {  // here, not in the .cpp: several calls a packet
        return origin_set_ ? unwrap_.peek(seq) - origin_ : -1;
    }
    uint64_t delivered() const { return next_; }
    bool has_origin() const { return origin_set_; }
    // Unwrapped position of stream offset 0: it moves back (never forward)
    // while the origin is a guess; callers that keep offsets shift them.
    int64_t origin() const { return origin_; }
    const Stats& stats() const { return stats_; }

private:
    struct Held { std::vector<uint8_t> bytes; uint32_t missing_tail; uint64_t tag; };
    void set_origin(int64_t pos);
    void place_origin_at_ack(uint32_t ack);
    void move_origin_back(int64_t pos);
    void settle();
    void deliver(uint64_t offset, std::span<const uint8_t> data, uint32_t missing_tail, uint64_t tag);
    void drain();
    void release_until(uint64_t offset);

    Sink& sink_;
    size_t cap_;
    SeqUnwrapper unwrap_;
    int64_t origin_ = 0;        // unwrapped position of stream offset 0
    bool origin_set_ = false;
    bool settled_ = false;      // origin from a SYN, or data delivered: it no longer moves
    uint64_t next_ = 0;         // next stream offset to deliver
    std::map<uint64_t, Held> held_;
    size_t held_bytes_ = 0;
    Stats stats_;
};

} // namespace stallscope
