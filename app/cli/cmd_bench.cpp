// stallscope-cli bench: generates a large synthetic SOAP capture and
// measures the full analysis against a bare libpcap read loop over the same
// file (packets/s, MB/s, peak RSS). Each measurement runs in its own child
// process so its peak RSS is its own.
#include "analyzers/analyze.h"
#include "analyzers/report.h"
#include "analyzers/result_spill.h"
#include "app/cli/analyze_defaults.h"
#include "app/cli/cli_args.h"
#include "app/cli/synthetic_capture.h"
#include "capture/pcap/pcap_read_loop.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace stallscope::cli {

namespace {

const char* kHelp =
    "usage: stallscope-cli bench [--packets N] [--dir DIR] [--keep] [--capture FILE]\n"
    "  Generates a synthetic SOAP capture (default 1,000,000 packets; many concurrent\n"
    "  connections, keep-alive and HTTP/1.0) in DIR (default: the temp dir), then times\n"
    "  a bare libpcap read loop and `analyze --json` (report dropped) over it, each in its\n"
    "  own process, and prints packets/s, MB/s and peak RSS. --capture FILE measures an\n"
    "  existing file.\n";

struct Measure {
    double seconds = 0;
    long peak_rss_kb = 0;
    uint64_t packets = 0;
    uint64_t calls = 0;
    bool ok = false;
};

// Runs fn in a child; the child reports packets/calls, the parent times it
// and reads the child's peak RSS from wait4().
Measure in_child(const std::function<bool(uint64_t&, uint64_t&)>& fn) {
    Measure m;
    int fds[2];
    if (pipe(fds) != 0) return m;
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        uint64_t out[2] = {0, 0};
        bool ok = fn(out[0], out[1]);
        if (write(fds[1], out, sizeof out) != sizeof out) _exit(3);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0) { close(fds[0]); return m; }
    uint64_t got[2] = {0, 0};
    ssize_t n = read(fds[0], got, sizeof got);
    close(fds[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.peak_rss_kb = ru.ru_maxrss;
    m.packets = got[0];
    m.calls = got[1];
    m.ok = n == sizeof got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return m;
}

void print_row(const char* name, const Measure& m, uint64_t file_bytes) {
    std::printf("%-16s %10llu %9.2f %12.0f %9.1f %12.1f\n", name, (unsigned long long)m.packets, m.seconds,
                m.seconds > 0 ? double(m.packets) / m.seconds : 0,
                m.seconds > 0 ? double(file_bytes) / 1e6 / m.seconds : 0, double(m.peak_rss_kb) / 1024.0);
}

} // namespace

int cmd_bench(Args& a) {
    uint64_t packets = 1'000'000;
    std::string dir = std::filesystem::temp_directory_path().string(), existing;
    bool keep = false;
    while (!a.done()) {
        std::string s = a.next(), v;
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        else if (s == "--packets") {
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, packets) || packets < 1000 || packets > 2'000'000'000ull)
                return usage_error("bench", "--packets needs a number from 1000 to 2e9");
        }
        else if (s == "--dir") { if (!a.value(s, dir)) return kExitUsage; }
        else if (s == "--capture") { if (!a.value(s, existing)) return kExitUsage; }
        else if (s == "--keep") keep = true;
        else return usage_error("bench", "unknown option " + s);
    }
    std::string path = existing;
    if (path.empty()) {
        path = dir + "/stallscope-bench-" + std::to_string(getpid()) + ".pcap";
        SyntheticStats st;
        std::string err;
        auto t0 = std::chrono::steady_clock::now();
        if (!write_synthetic_capture(path, packets, st, err)) {
            std::fprintf(stderr, "stallscope-cli bench: error: %s\n", err.c_str());
            std::remove(path.c_str());
            return kExitInput;
        }
        double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("synthetic capture: %s\n  %llu packets, %.1f MB, %llu connections, %llu calls (written in %.1f s)\n",
                    path.c_str(), (unsigned long long)st.packets, double(st.bytes) / 1e6,
                    (unsigned long long)st.connections, (unsigned long long)st.calls, gen);
    }
    std::error_code ec;
    uint64_t file_bytes = std::filesystem::file_size(path, ec);
    if (ec) {
        std::fprintf(stderr, "stallscope-cli bench: error: %s: %s\n", path.c_str(), ec.message().c_str());
        return kExitInput;
    }

    Measure bare = in_child([&](uint64_t& p, uint64_t&) {
        ReadLoopStats s = bare_pcap_read(path);
        p = s.packets;
        return s.ok;
    });
    // What `analyze --json` does: the analysis with its spill file and the
    // whole report written (here to a stream that drops it).
    Measure full = in_child([&](uint64_t& p, uint64_t& calls) {
        AnalysisOptions opt;
        opt.spill_after_calls = kDefaultSpillAfterCalls;
        AnalyzeOutcome o = analyze_file(path, opt);
        p = o.result.capture.packets;
        calls = call_count(o.result);
        if (!o.ok) return false;
        std::ofstream sink;  // never opened: every write is dropped
        write_report_json(o.result, sink);
        return true;
    });
    std::printf("\n%-16s %10s %9s %12s %9s %12s\n", "measurement", "packets", "seconds", "packets/s", "MB/s",
                "peak RSS MB");
    print_row("libpcap read", bare, file_bytes);
    print_row("analyze --json", full, file_bytes);
    std::printf("\nthe analysis found %llu calls; %.1fx the bare read time\n", (unsigned long long)full.calls,
                bare.seconds > 0 ? full.seconds / bare.seconds : 0);
    if (!keep && existing.empty()) std::remove(path.c_str());
    else if (existing.empty()) std::printf("kept %s\n", path.c_str());
    return bare.ok && full.ok ? kExitOk : kExitInput;
}

} // namespace stallscope::cli
