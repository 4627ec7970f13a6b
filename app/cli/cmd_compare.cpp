// stallscope-cli compare (placeholder until its issue lands: it says so).
#include "app/cli/cli_args.h"

#include <cstdio>

namespace stallscope::cli {

int cmd_compare(Args&) {
    std::fprintf(stderr, "stallscope-cli compare: not available in this build yet\n");
    return kExitUsage;
}

} // namespace stallscope::cli
