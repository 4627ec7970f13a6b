#pragma once
// Small argument helpers shared by the stallscope-cli subcommands.
#include <cstdio>
#include <string>
#include <vector>

namespace stallscope::cli {

// Exit codes are a contract (docs/cli.md): 0 analysed, 1 input could not
// be analysed / expectation failed, 2 usage error.
constexpr int kExitOk = 0;
constexpr int kExitInput = 1;
constexpr int kExitUsage = 2;

struct Args {
    std::vector<std::string> items;
    size_t pos = 0;
    bool done() const { return pos >= items.size(); }
    const std::string& peek() const { return items[pos]; }
    std::string next() { return items[pos++]; }
    // Value of an option that takes one ("--call 3"); sets ok=false if missing.
    bool value(const std::string& opt, std::string& out) {
        if (pos >= items.size()) {
            std::fprintf(stderr, "stallscope-cli: %s needs a value\n", opt.c_str());
            return false;
        }
        out = items[pos++];
        return true;
    }
};

bool parse_u64(const std::string& s, uint64_t& out);
bool parse_double(const std::string& s, double& out);
int usage_error(const char* cmd, const std::string& message);

int cmd_analyze(Args& a);
int cmd_export(Args& a);
int cmd_compare(Args& a);
int cmd_capture(Args& a);
int cmd_bench(Args& a);

} // namespace stallscope::cli
