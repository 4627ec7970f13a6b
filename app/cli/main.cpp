// stallscope-cli: the command-line front end (no Qt).
#include "app/cli/cli_args.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stallscope::cli {

bool parse_u64(const std::string& s, uint64_t& out) {
    if (s.empty() || s[0] == '-') return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno || *end) return false;
    out = v;
    return true;
}

bool parse_double(const std::string& s, double& out) {
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (errno || end == s.c_str() || *end) return false;
    out = v;
    return true;
}

int usage_error(const char* cmd, const std::string& message) {
    std::fprintf(stderr, "stallscope-cli %s: %s\nTry 'stallscope-cli %s --help'.\n", cmd, message.c_str(), cmd);
    return kExitUsage;
}

} // namespace stallscope::cli

namespace {

const char* kUsage =
    "usage: stallscope-cli <command> [options]\n"
    "\n"
    "Finds why SOAP / HTTP/1.x calls are slow from a packet capture.\n"
    "\n"
    "commands:\n"
    "  analyze CAPTURE [--json|--csv|--csv-summary] [-o FILE]\n"
    "                      every call's timeline and the stalls that delayed it\n"
    "  export CAPTURE (--call N | --connection N | --timeline | --report) --format F -o FILE\n"
    "                      event-trace diagram (svg|pdf|png), timeline (svg|png), report (html|json|csv)\n"
    "  compare BEFORE AFTER [--json] [--expect-fixed KIND] [--expect-no-regression]\n"
    "                      did a toolkit fix remove the stall?\n"
    "  capture --iface IF [--filter EXPR] [--server CMD] [--run CMD] [--duration S] -w OUT.pcapng\n"
    "                      live capture with a running report\n"
    "  bench [--packets N] [--dir DIR]\n"
    "                      generate a large synthetic capture and measure analysis speed\n"
    "\n"
    "exit status: 0 analysed, 1 input could not be analysed (or an expectation failed), 2 usage error\n"
    "'stallscope-cli <command> --help' shows a command's options.\n";

} // namespace

int main(int argc, char** argv) {
    using namespace stallscope::cli;
    Args a;
    for (int i = 1; i < argc; ++i) a.items.emplace_back(argv[i]);
    if (a.done()) {
        std::fputs(kUsage, stderr);
        return kExitUsage;
    }
    std::string cmd = a.next();
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    if (cmd == "--version") {
        std::puts("stallscope-cli 0.1.0");
        return kExitOk;
    }
    if (cmd == "analyze") return cmd_analyze(a);
    if (cmd == "export") return cmd_export(a);
    if (cmd == "compare") return cmd_compare(a);
    if (cmd == "capture") return cmd_capture(a);
    if (cmd == "bench") return cmd_bench(a);
    std::fprintf(stderr, "stallscope-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return kExitUsage;
}
