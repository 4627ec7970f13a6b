#pragma once
// A detector looks at each finished call (with its segments and timeline)
// and reports findings. It never touches Qt, files, clocks or other
// detectors. The list of detectors is one explicit function, not static
// registration magic.
#include "analyzers/model.h"

#include <memory>
#include <vector>

namespace stallscope {

class Detector {
public:
    virtual ~Detector() = default;
    virtual const char* kind() const = 0;
    // `call.segments` holds the call's segments; `conn` is the connection as
    // known so far (complete when call.closed_connection).
    virtual void on_call(const Call& call, const Connection& conn, std::vector<Finding>& out) {}
    // After the last call: findings that need the whole capture.
    virtual void finish(const std::vector<Call>& calls, const std::vector<Connection>& connections,
                        std::vector<Finding>& out) {}
};

std::vector<std::unique_ptr<Detector>> make_detectors();

} // namespace stallscope
