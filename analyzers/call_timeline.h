#pragma once
// A call's timeline: its phases, each with start/end times and frames.
#include "analyzers/model.h"

namespace stallscope {

// Fills call.phases from the call's message facts and its connection.
// `close_ns/close_frame` is where the connection finished closing (used
// only when call.closed_connection).
void build_phases(Call& call, const Connection& conn, int64_t close_ns, uint64_t close_frame);

} // namespace stallscope
