// Subcommands whose issues are still open (compare: #7, capture: #6,
// bench: #2's benchmark). They say so instead of pretending to work.
#include "app/cli/cli_args.h"

#include <cstdio>

namespace stallscope::cli {

static int pending(const char* cmd) {
    std::fprintf(stderr, "stallscope-cli %s: not available in this build yet\n", cmd);
    return kExitUsage;
}
int cmd_compare(Args&) { return pending("compare"); }
int cmd_capture(Args&) { return pending("capture"); }
int cmd_bench(Args&) { return pending("bench"); }

} // namespace stallscope::cli
