#include "analyzers/calls/call_state_pool.h"

#include "analyzers/result/call_reuse.h"

#include <vector>

namespace stallscope {

void CallState::clear() {
    static_cast<CallProgress&>(*this) = CallProgress{};
    clear_call(call);
    for (MessageBody& b : bodies) b.clear();
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kSpareStates = 0;   // ASan builds free every state, so a stale pointer is still caught
#else
constexpr size_t kSpareStates = 16;  // per thread: calls handed on at once are few
#endif

// CallStates of finished calls, per thread, for the next calls.
struct SpareStates {
    std::vector<CallState*> states;
    ~SpareStates();
};
thread_local SpareStates spare_states;
thread_local bool spare_states_gone = false;  // trivially destructible: safe to read at thread exit

SpareStates::~SpareStates() {
    spare_states_gone = true;
    for (CallState* cs : states) delete cs;
}

} // namespace

CallStatePtr new_call_state() {
    if (spare_states_gone || spare_states.states.empty()) return CallStatePtr(new CallState);
    CallState* cs = spare_states.states.back();
    spare_states.states.pop_back();
    return CallStatePtr(cs);
}

void CallStateRecycler::operator()(CallState* cs) const {
    if (spare_states_gone || spare_states.states.size() >= kSpareStates) {
        delete cs;
        return;
    }
    cs->clear();
    spare_states.states.push_back(cs);
}

} // namespace stallscope
