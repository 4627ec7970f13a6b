// stallscope-cli capture (placeholder until its issue lands: it says so).
#include "app/cli/cli_args.h"

#include <cstdio>

namespace stallscope::cli {

int cmd_capture(Args&) {
    std::fprintf(stderr, "stallscope-cli capture: not available in this build yet\n");
    return kExitUsage;
}

} // namespace stallscope::cli
