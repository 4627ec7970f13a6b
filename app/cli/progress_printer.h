#pragma once
// Progress on stderr for long files: a bar on a terminal, a line every
// 10% otherwise. Silent for small files so scripts see clean stderr.
#include "analyzers/pipeline/analyze_capture.h"

namespace stallscope::cli {

class ProgressPrinter {
public:
    explicit ProgressPrinter(bool enabled);
    bool operator()(const Progress& p);
    void done();
private:
    bool enabled_, tty_, shown_ = false;
    int last_decile_ = -1;
};

} // namespace stallscope::cli
