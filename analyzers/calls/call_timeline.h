#pragma once
// A call's timeline: its phases, each with start/end times and frames.
#include "analyzers/result/model.h"

namespace stallscope {

// Puts a call's times in order before anything is computed from them: in
// each message first <= headers end <= body start <= last, a response
// no earlier than its request's start, end >= start, latency >= 0. Out-of-
// order capture makes the segment that carries a message's last byte older
// than the one that carries its first; such a boundary is moved to the
// boundary before it (a time of 0, a segment no longer kept, likewise).
void order_call_times(Call& call);

// Fills call.phases from the call's message facts and its connection.
// `close_ns/close_frame` is where the connection finished closing (used
// only when call.closed_connection).
void build_phases(Call& call, const Connection& conn, int64_t close_ns, uint64_t close_frame);

} // namespace stallscope
