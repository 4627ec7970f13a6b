// stallscope-cli bench (placeholder until its issue lands: it says so).
#include "app/cli/cli_args.h"

#include <cstdio>

namespace stallscope::cli {

int cmd_bench(Args&) {
    std::fprintf(stderr, "stallscope-cli bench: not available in this build yet\n");
    return kExitUsage;
}

} // namespace stallscope::cli
