#pragma once
// Which waiting request a response answers, decided from the TCP sequence
// space rather than by counting (one lost response header would otherwise
// shift every later pair on the connection).
//
// Two facts from TCP:
//  - a response can only answer a request whose head the server had
//    received when it sent the response's first segment (that segment's
//    ACK covers the request's head; the head, not the body, because a
//    server may answer before the body: 417, 413, 401);
//  - a response cannot answer a request the client sent after it had
//    already received the response's first byte (the request's own ACK
//    covers the response's start).
// Together they give the requests a response MAY answer (a prefix of the
// waiting ones). When a hole (a gap, or a message dropped by one) lies
// before the response in the server's stream, responses may be missing: at
// least one unless a dropped message already accounts for it, and more when
// a sequential client shows it received hole bytes between two of its
// requests (request i+1's ACK moved into the hole after request i was sent:
// it waited for a response there). Pipelining (requests sent back to back,
// the same ACK) leaves that open; then the fewest missing responses that fit
// are assumed.
#include <cstddef>
#include <cstdint>
#include <span>

namespace stallscope {

struct WaitingRequest {
    uint64_t head_end = 0;     // client stream offset just past the request's head
    uint32_t ack = 0;          // the ACK its first segment carried (SegmentInfo::ack; 0 = unknown)
};

struct ResponseStart {
    uint64_t offset = 0;       // server stream offset of the status line
    uint32_t ack = 0;          // the ACK of the segment carrying it (0 = unknown)
    bool hole = false;         // server bytes before it (since the last message) were never captured
    uint64_t hole_from = 0;    // where that hole began
    bool hole_explained = false;  // a response dropped in the hole accounts for one missing response
};

struct PairingChoice {
    bool answers_one = false;  // false: the response answers none of the waiting requests
    size_t index = 0;          // the one it answers; every waiting request before it lost its response
    size_t may_answer = 0;     // how many of the waiting requests TCP allowed
};

PairingChoice choose_request(std::span<const WaitingRequest> waiting, const ResponseStart& r);

// Does `ack` (1-based, relative to the peer's ISN; 0 = unknown) acknowledge
// every byte before stream offset `offset`? Unknown counts as yes. Compared in
// the 32-bit sequence space (streams over 4 GiB wrap).
bool ack_covers(uint32_t ack, uint64_t offset);

} // namespace stallscope
