#pragma once
// Reusing a finished call's memory for the next one: the analysis assembles
// calls in a few recycled records (analyzers/calls/call_state_pool.h)
// instead of allocating a dozen strings and vectors for each. Part of the
// model library: it knows only Call, and the ledger uses it too.
#include "analyzers/result/model.h"

#include <string>

namespace stallscope {

// `c` becomes what Call{} is, field for field, in place: its strings and
// vectors are emptied but keep their memory (those holding more than a few
// KiB, or items, are freed), so filling it again allocates nothing.
void clear_call(Call& c);

// a and b trade every field, member by member: each vector and each string
// trades its buffer (two empty strings are left as they are). std::swap(Call&, Call&) moves each of the 21 strings three
// times (a temporary and two assignments): about 3,000 instructions a call
// where the threads hand calls over (analyzers/pipeline/sharded_analysis.cpp).
void swap_calls(Call& a, Call& b) noexcept;

// An empty string with memory from a cleared call's attribution causes and
// saving kinds ("response_transfer" is past std::string's inline 15 bytes):
// the call ledger fills them again without allocating. Per thread.
std::string reused_string();

} // namespace stallscope
