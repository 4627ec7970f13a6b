#pragma once
// The state of one call being assembled (the call and what is known of it so
// far) and the per-thread pool it is recycled through: a finished call's
// state is emptied and kept, with the memory of its strings, vectors and body
// buffers, for the next call on the same thread, so calls are assembled
// without allocating once a few have passed.
#include "analyzers/calls/message_content.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <memory>

namespace stallscope {

// What is known of one call being assembled, besides the call itself.
struct CallProgress {
    uint64_t seg_first = 0, seg_last = 0;
    bool have_request_head = false;
    bool start_line = false;      // the request line was valid HTTP/1.x (never a phantom call)
    bool done = false;            // final response complete (or given up)
    bool final_head = false;      // its final response's head was parsed (the response parser used its method)
    uint64_t req_head_end = 0;    // client stream offset just past the request head
    uint32_t req_ack = 0;         // ACK of the request's first segment (SegmentInfo::ack)
    bool request_ended = false;   // the request message ended (its envelope, if any, decoded)
    int8_t whole_xml = -1;        // in the whole-XML sample: -1 not asked yet, 0 no, 1 yes
    bool waiting() const { return have_request_head && !done; }
};

// One call being assembled.
struct CallState : CallProgress {
    Call call;
    PerSide<MessageBody> bodies;  // request (client), response (server): each decoded with its own message's coding

    // Back to a new CallState's values, keeping the memory of the call's
    // strings and vectors and of the body buffers.
    void clear();
};

// Owns a CallState; "deleting" it gives it back to this thread's pool.
struct CallStateRecycler { void operator()(CallState* cs) const; };
using CallStatePtr = std::unique_ptr<CallState, CallStateRecycler>;

// An empty CallState: one from this thread's pool when it has one.
CallStatePtr new_call_state();

// A call ready to be handed on, in the state it was assembled in (back to
// the pool when this goes), with its segment window [seg_first, seg_end).
struct ReadyCall {
    CallStatePtr state;
    uint64_t seg_first, seg_end;
    Call& call() { return state->call; }
};

} // namespace stallscope
