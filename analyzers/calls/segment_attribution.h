#pragma once
// Which segment carried which bytes of which message, for one direction of
// a connection: as the HTTP parser moves through the stream, the bytes up to
// where it is go to the message being parsed (its write sizes, frames, body
// start, last byte's time) and mark what the segment carries (headers, body,
// 100 Continue, other). The exchange tracker says which message is active.
#include "analyzers/calls/call_state_pool.h"
#include "analyzers/calls/segment_store.h"
#include "analyzers/result/model.h"

#include <cstdint>

namespace stallscope {

// Where the bytes of the message being parsed in one direction go.
struct MsgTrack {
    CallState* call = nullptr;    // nullptr: bytes of no known message
    MessageInfo* info = nullptr;
    uint16_t head_bit = carries::kOther, body_bit = carries::kOther;
    bool in_body = false;
    bool interim = false;
    uint64_t begin_frame = 0;
    int64_t begin_ns = 0;
    uint64_t last_seg = UINT64_MAX;
    // Where the message began and what that segment carried before it, so a
    // head that turns out to be an interim 1xx can be relabelled.
    uint64_t begin_seg = 0;
    uint16_t begin_seg_prior = 0;
    uint64_t begin_offset = 0;    // stream offset of its first byte
};

// One direction's attribution: the segment whose bytes are being parsed,
// how far the stream is attributed, and the active message.
struct SegmentAttribution {
    uint64_t cur_seg = 0;
    uint64_t cursor = 0;           // stream offset attributed so far
    MsgTrack active;
    bool have_active = false;
    // The latest segment whose bytes this packet delivered. Bytes held behind
    // a hole arrive only when a later segment fills it: a message they end is
    // over then, not when its highest-sequence segment was captured.
    int64_t delivery_ns = INT64_MIN;
    uint64_t delivery_frame = 0;

    // A new packet: nothing delivered by it yet.
    void begin_packet() { delivery_ns = INT64_MIN; delivery_frame = 0; }
    // Segment `seg` delivers bytes now.
    void deliver(SegmentStore& segs, uint64_t seg);
    // Attribute stream bytes [cursor, upto) to the active message (or to
    // "other"), marking what the current segment carries.
    void attribute(SegmentStore& segs, uint64_t upto);
};

// The head's earlier server segments in [begin_seg, cur_seg) were marked as
// response headers before the status line could say 1xx (a status line and
// its CRLF written apart): they carried the interim response.
void relabel_interim_head(SegmentStore& segs, uint64_t begin_seg, uint16_t begin_prior, uint64_t cur_seg);

} // namespace stallscope
