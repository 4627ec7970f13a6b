#pragma once
// The ExchangeHost of tests that drive the call trackers directly: call ids
// 1, 2, 3, ... and warnings ignored.
#include "analyzers/calls/exchange_tracker.h"

#include <string>

namespace stallscope::testing {

struct CountingHost : ExchangeHost {
    uint64_t next = 0;
    uint64_t new_call_id() override { return ++next; }
    void warn(WarningCode, const std::string&, uint64_t, uint64_t) override {}
};

} // namespace stallscope::testing
