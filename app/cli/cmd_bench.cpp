// stallscope-cli bench: generates a large synthetic SOAP capture and
// measures the full analysis against a bare libpcap read loop over the same
// file (packets/s, MB/s, peak RSS). Each measurement runs in its own child
// process so its peak RSS is its own.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "app/cli/analyze_defaults.h"
#include "app/cli/analyze_report.h"
#include "app/cli/cli_args.h"
#include "app/cli/synthetic_capture.h"
#include "capture/pcap/pcap_read_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <vector>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace stallscope::cli {

namespace {

const char* kHelp =
    "usage: stallscope-cli bench [--packets N] [--dir DIR] [--keep] [--capture FILE] [--tools]\n"
    "                            [--threads N] [--repeat K] [--envelope BYTES]\n"
    "  Generates a synthetic SOAP capture (default 1,000,000 packets; many concurrent\n"
    "  connections, keep-alive and HTTP/1.0) in DIR (default: the temp dir), then times\n"
    "  a bare libpcap read loop, the analysis's reading and decoding alone (the floor of\n"
    "  any analysis of the segments), `analyze` (text) and `analyze --json` (reports written\n"
    "  to /dev/null) over it, each in its own process, and prints packets/s, MB/s, peak\n"
    "  RSS and each time as a multiple of the read loop's. Each analysis runs with\n"
    "  --threads 1 and with --threads N (default: the machine's cores, analyze's default);\n"
    "  with N > 1, N one-thread analyses also run at once: the most N threads could gain here.\n"
    "  --capture FILE measures an existing file. --tools also times `tcptrace -l -n` and\n"
    "  `tshark -q -z http,tree` over the same file, where they are installed.\n"
    "  --repeat K runs every row K times (default 3) and prints its fastest run and\n"
    "  its highest peak RSS: a shared machine only ever makes a run slower.\n"
    "  The HTTPS rows: the same connections and calls over TLS 1.3 (AES-128-GCM, each\n"
    "  write one record) in a second capture with its key log, analysed with the key\n"
    "  log (every record decrypted), against that file's own read loop. Not with --capture.\n"
    "  --envelope BYTES: every request and response envelope an array of doubles of\n"
    "  about BYTES (seed 002's echoDoubles; at most 60000, each write one segment as with\n"
    "  TSO/GRO) instead of the small getString envelopes; the last line gives the time a\n"
    "  call on one thread, to compare across envelope sizes.\n";

struct Measure {
    double seconds = 0;
    long peak_rss_kb = 0;
    uint64_t packets = 0;
    uint64_t calls = 0;
    bool ok = false;
};

// Waits for a child started at t0: its time, peak RSS (wait4) and exit.
Measure wait_child(pid_t pid, std::chrono::steady_clock::time_point t0, int& exit_code) {
    Measure m;
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.peak_rss_kb = ru.ru_maxrss;
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    m.ok = exit_code == 0;
    return m;
}

// Runs fn in `n` children at once (forked one after the other from this
// thread, which starts no threads of its own); each reports packets/calls,
// the parent times them until the last one ends. The packets and calls are
// the last child's, the peak RSS the highest; ok only if every child was.
Measure in_children(unsigned n, const std::function<bool(uint64_t&, uint64_t&)>& fn) {
    struct Child {
        pid_t pid;
        int fd;
    };
    std::vector<Child> kids;
    const auto t0 = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < n; ++i) {
        int fds[2];
        if (pipe(fds) != 0) break;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            uint64_t out[2] = {0, 0};
            bool ok = fn(out[0], out[1]);
            if (write(fds[1], out, sizeof out) != sizeof out) _exit(3);
            _exit(ok ? 0 : 1);
        }
        close(fds[1]);
        if (pid < 0) {
            close(fds[0]);
            break;
        }
        kids.push_back({pid, fds[0]});
    }
    Measure all;
    all.ok = kids.size() == n;
    for (const Child& k : kids) {
        uint64_t got[2] = {0, 0};
        ssize_t r = read(k.fd, got, sizeof got);
        close(k.fd);
        int exit_code = 0;
        const Measure m = wait_child(k.pid, t0, exit_code);
        all.seconds = std::max(all.seconds, m.seconds);
        all.peak_rss_kb = std::max(all.peak_rss_kb, m.peak_rss_kb);
        all.packets = got[0];
        all.calls = got[1];
        all.ok = all.ok && m.ok && r == sizeof got;
    }
    return all;
}
Measure in_child(const std::function<bool(uint64_t&, uint64_t&)>& fn) { return in_children(1, fn); }

// Runs another tool with stdout and stderr to /dev/null, measured the same
// way as ours. exit_code 127: the tool is not installed.
Measure run_tool(const std::vector<std::string>& argv, int& exit_code) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, 1); dup2(null, 2); }
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    if (pid < 0) { exit_code = -1; return {}; }
    return wait_child(pid, t0, exit_code);
}

// The fastest of k runs (noise only adds time), the highest peak RSS, and
// ok only if every run was.
Measure best_of(unsigned k, const std::function<Measure()>& run) {
    Measure best = run();
    for (unsigned i = 1; i < k && best.ok; ++i) {
        Measure m = run();
        long rss = std::max(best.peak_rss_kb, m.peak_rss_kb);
        if (!m.ok) { best.ok = false; break; }
        if (m.seconds < best.seconds) best = m;
        best.peak_rss_kb = rss;
    }
    return best;
}

void print_row(const std::string& name, const Measure& m, uint64_t file_bytes, const Measure& bare) {
    std::printf("%-26s %10llu %9.2f %12.0f %9.1f %12.1f %9.1fx\n", name.c_str(), (unsigned long long)m.packets, m.seconds,
                m.seconds > 0 ? double(m.packets) / m.seconds : 0,
                m.seconds > 0 ? double(file_bytes) / 1e6 / m.seconds : 0, double(m.peak_rss_kb) / 1024.0,
                bare.seconds > 0 ? m.seconds / bare.seconds : 0);
}

// What `bench` was asked for.
struct BenchOptions {
    uint64_t packets = 1'000'000;
    std::string dir, existing;
    bool keep = false, tools = false;
    unsigned threads = 1, repeat = 3;
    uint64_t envelope = 0;  // bytes; 0: the small envelopes
};

// -1: go on; else the exit code (help, usage error).
int parse_bench_options(Args& a, BenchOptions& o) {
    o.dir = std::filesystem::temp_directory_path().string();
    o.threads = default_threads();
    while (!a.done()) {
        std::string s = a.next(), v;
        if (s == "-h" || s == "--help") { std::fputs(kHelp, stdout); return kExitOk; }
        else if (s == "--packets") {
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, o.packets) || o.packets < 1000 || o.packets > 2'000'000'000ull)
                return usage_error("bench", "--packets needs a number from 1000 to 2e9");
        }
        else if (s == "--dir") { if (!a.value(s, o.dir)) return kExitUsage; }
        else if (s == "--capture") { if (!a.value(s, o.existing)) return kExitUsage; }
        else if (s == "--keep") o.keep = true;
        else if (s == "--tools") o.tools = true;
        else if (s == "--threads") {
            uint64_t n = 0;
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, n) || n < 1 || n > kMaxThreads)
                return usage_error("bench", "--threads needs a number from 1 to " + std::to_string(kMaxThreads));
            o.threads = unsigned(n);
        }
        else if (s == "--repeat") {
            uint64_t n = 0;
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, n) || n < 1 || n > 100) return usage_error("bench", "--repeat needs a number from 1 to 100");
            o.repeat = unsigned(n);
        }
        else if (s == "--envelope") {
            if (!a.value(s, v)) return kExitUsage;
            if (!parse_u64(v, o.envelope) || o.envelope < 400 || o.envelope > kMaxEnvelope)
                return usage_error("bench", "--envelope needs a number of bytes from 400 to " + std::to_string(kMaxEnvelope));
        }
        else return usage_error("bench", "unknown option " + s);
    }
    if (o.envelope && !o.existing.empty()) return usage_error("bench", "--envelope makes a capture; not with --capture");
    return -1;
}

// The files measured: --capture, or a synthetic capture and its HTTPS twin
// (with the twin's key log) written now.
struct BenchFiles {
    std::string path;
    uint64_t file_bytes = 0;
    std::string tls_path, tls_keys;  // empty with --capture
};

// -1: go on; else the exit code.
int prepare_capture(const BenchOptions& o, BenchFiles& files) {
    std::string& path = files.path;
    path = o.existing;
    uint64_t plain_connections = 0;
    if (path.empty()) {
        path = o.dir + "/stallscope-bench-" + std::to_string(getpid()) + ".pcap";
        SyntheticStats st;
        std::string err;
        auto t0 = std::chrono::steady_clock::now();
        if (!write_synthetic_capture(path, o.packets, st, err, {}, 0, o.envelope)) {
            std::fprintf(stderr, "stallscope-cli bench: error: %s\n", err.c_str());
            std::remove(path.c_str());
            return kExitInput;
        }
        double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        plain_connections = st.connections;
        std::printf("synthetic capture: %s\n  %llu packets, %.1f MB, %llu connections, %llu calls (written in %.1f s)\n",
                    path.c_str(), (unsigned long long)st.packets, double(st.bytes) / 1e6,
                    (unsigned long long)st.connections, (unsigned long long)st.calls, gen);
    }
    // The HTTPS twin: the same traffic over TLS, and its key log.
    std::string &tls_path = files.tls_path, &tls_keys = files.tls_keys;
    if (o.existing.empty()) {
        tls_path = o.dir + "/stallscope-bench-" + std::to_string(getpid()) + "-https.pcap";
        tls_keys = o.dir + "/stallscope-bench-" + std::to_string(getpid()) + "-https.keys";
        SyntheticStats st;
        std::string err;
        if (!write_synthetic_capture(tls_path, o.packets, st, err, tls_keys, plain_connections, o.envelope)) {
            std::fprintf(stderr, "stallscope-cli bench: error: %s\n", err.c_str());
            std::remove(tls_path.c_str());
            std::remove(tls_keys.c_str());
            std::remove(path.c_str());
            return kExitInput;
        }
        std::printf("HTTPS twin: %s\n  %llu packets, %.1f MB, %llu connections, %llu calls, key log %s\n",
                    tls_path.c_str(), (unsigned long long)st.packets, double(st.bytes) / 1e6,
                    (unsigned long long)st.connections, (unsigned long long)st.calls, tls_keys.c_str());
    }
    std::error_code ec;
    files.file_bytes = std::filesystem::file_size(path, ec);
    if (ec) {
        std::fprintf(stderr, "stallscope-cli bench: error: %s: %s\n", path.c_str(), ec.message().c_str());
        return kExitInput;
    }

    return -1;
}

// Every row measured and printed; false when a run failed or thread counts disagreed.
struct BenchRows {
    std::vector<std::pair<std::string, Measure>> rows;
    std::vector<unsigned> counts;
    Measure bare;                                            // the plaintext read loop
    Measure tls_bare;                                        // the HTTPS twin's read loop
    std::vector<std::pair<std::string, Measure>> tls_rows;   // empty with --capture
    Measure tcptrace;                                        // ok only with --tools, where it is installed
    Measure at_once;  // N one-thread text analyses at once (N > 1): what N threads could gain here at best
    bool ok = true;
};

Measure measure_read_loop(unsigned repeat, const std::string& path) {
    return best_of(repeat, [&] {
        return in_child([&](uint64_t& p, uint64_t&) {
            ReadLoopStats s = bare_pcap_read(path);
            p = s.packets;
            return s.ok;
        });
    });
}

// What `analyze --threads N` and `analyze --json --threads N -o /dev/null`
// do: the analysis with its spill file, then the whole report written.
// `copies` of it at once: the time until the last ends.
Measure measure_analysis(unsigned repeat, const std::string& target, bool json, unsigned n, const std::string& keylog = {},
                         unsigned copies = 1) {
    return best_of(repeat, [&, json, n] { return in_children(copies, [&, json, n](uint64_t& p, uint64_t& calls) {
        AnalysisOptions opt;
        opt.spill_after_calls = kDefaultSpillAfterCalls;
        opt.threads = n;
        opt.keylog_path = keylog;
        const std::string format = json ? "json" : "text";
        set_options_for_report(opt, format);
        AnalyzeOutcome o = analyze_file(target, opt);
        p = o.result.capture.packets;
        calls = call_count(o.result);
        if (!o.ok) return false;
        // With a key log every connection must decrypt: a keyless fallback would time something else.
        for (const Warning& w : o.result.capture.warnings)
            if (w.code == WarningCode::TlsUndecrypted) return false;
        std::ofstream sink("/dev/null");
        write_report(o.result, format, sink, n);
        return true;
    }); });
}

// tcptrace and tshark on the same file, where they are installed; returns
// tcptrace's measure (not ok when it is not installed or failed).
Measure measure_tools(unsigned repeat, const std::string& path, uint64_t file_bytes, const Measure& bare) {
    struct Tool { const char* name; std::vector<std::string> argv; };
    Measure tcptrace;
    for (const Tool& t : {Tool{"tcptrace -l -n", {"tcptrace", "-l", "-n", path}},
                          Tool{"tshark -q -z http,tree", {"tshark", "-n", "-q", "-z", "http,tree", "-r", path}}}) {
        int exit_code = 0;
        Measure m = best_of(repeat, [&] { return run_tool(t.argv, exit_code); });
        m.packets = bare.packets;
        if (m.ok) print_row(t.name, m, file_bytes, bare);
        else std::printf("%-26s (%s)\n", t.name, exit_code == 127 ? "not installed" : "failed");
        if (t.argv.front() == "tcptrace") tcptrace = m;
    }
    return tcptrace;
}

// Issue 26's questions in one place: each analysis row as a multiple of
// tcptrace's time on the same file in the same run, and --json against text.
void print_comparisons(const BenchRows& out) {
    auto ratio = [](const Measure& a, const Measure& b) { return a.ok && b.ok && b.seconds > 0 ? a.seconds / b.seconds : 0.0; };
    const auto& rows = out.rows;  // text rows (one per thread count), then --json rows
    const size_t n = out.counts.size();
    if (rows.size() != 2 * n) return;
    std::printf("--json against text:");
    for (size_t i = 0; i < n; ++i)
        std::printf("%s %.2fx (%u thread%s)", i ? "," : "", ratio(rows[n + i].second, rows[i].second), out.counts[i],
                    out.counts[i] == 1 ? "" : "s");
    std::printf("\n");
    if (!out.tcptrace.ok) return;
    std::printf("against tcptrace -l -n (same file, same run):");
    for (size_t i = 0; i < rows.size(); ++i)
        std::printf("%s %s %.2fx", i ? "," : "", rows[i].first.c_str(), ratio(rows[i].second, out.tcptrace));
    std::printf("\n");
}

// The table; false when a row failed or found other calls than the first.
bool print_rows(const BenchRows& out, const BenchFiles& files, const Measure& decoded) {
    std::printf("\n%-26s %10s %9s %12s %9s %12s %10s\n", "measurement", "packets", "seconds", "packets/s", "MB/s",
                "peak RSS MB", "x read");
    print_row("libpcap read", out.bare, files.file_bytes, out.bare);
    print_row("read + decode (floor)", decoded, files.file_bytes, out.bare);
    bool ok = out.bare.ok && decoded.ok;
    for (auto& [name, m] : out.rows) {
        print_row(name, m, files.file_bytes, out.bare);
        ok = ok && m.ok && m.calls == out.rows.front().second.calls;  // every N finds the same calls
    }
    if (!files.tls_path.empty()) {
        std::error_code ec;
        const uint64_t tls_bytes = std::filesystem::file_size(files.tls_path, ec);
        print_row("HTTPS libpcap read", out.tls_bare, tls_bytes, out.tls_bare);
        ok = ok && out.tls_bare.ok;
        for (auto& [name, m] : out.tls_rows) {
            print_row(name, m, tls_bytes, out.tls_bare);
            ok = ok && m.ok && m.calls == out.rows.front().second.calls;  // the same calls as in plaintext, all decrypted
        }
    }
    return ok;
}

BenchRows measure_rows(const BenchOptions& o, const BenchFiles& files) {
    BenchRows out;
    out.bare = measure_read_loop(o.repeat, files.path);
    // The floor of any analysis of TCP segments: our reader and the first
    // stage's decoding of every frame, nothing analysed.
    Measure decoded = best_of(o.repeat, [&] {
        return in_child([&](uint64_t& p, uint64_t&) {
            uint64_t segments = 0;
            std::string error;
            return decode_only(files.path, p, segments, error);
        });
    });
    // One thread, then N (once when N is 1).
    out.counts = o.threads > 1 ? std::vector<unsigned>{1, o.threads} : std::vector<unsigned>{1};
    for (bool json : {false, true})
        for (unsigned n : out.counts)
            out.rows.push_back({std::string(json ? "analyze --json" : "analyze") + " --threads " + std::to_string(n),
                                measure_analysis(o.repeat, files.path, json, n)});
    // HTTPS: its own read loop (a larger file), then the keyed analysis.
    if (!files.tls_path.empty()) {
        out.tls_bare = measure_read_loop(o.repeat, files.tls_path);
        for (unsigned n : out.counts)
            out.tls_rows.push_back({"HTTPS analyze --keylog --threads " + std::to_string(n),
                                    measure_analysis(o.repeat, files.tls_path, false, n, files.tls_keys)});
    }
    out.ok = print_rows(out, files, decoded);
    // N copies of the one-thread analysis share the cores, caches and memory
    // as N threads of one would: N x its time over theirs is the most N
    // threads could gain on this machine, whatever the code.
    if (out.counts.size() == 2) {
        out.at_once = measure_analysis(o.repeat, files.path, false, 1, {}, o.threads);
        out.ok = out.ok && out.at_once.ok && out.at_once.calls == out.rows.front().second.calls;
    }
    if (o.tools) out.tcptrace = measure_tools(o.repeat, files.path, files.file_bytes, out.bare);
    return out;
}

} // namespace

int cmd_bench(Args& a) {
    BenchOptions o;
    if (int rc = parse_bench_options(a, o); rc >= 0) return rc;
    BenchFiles files;
    if (int rc = prepare_capture(o, files); rc >= 0) return rc;
    const BenchRows measured = measure_rows(o, files);
    const auto& rows = measured.rows;
    const auto& tls_rows = measured.tls_rows;
    const Measure &bare = measured.bare, &tls_bare = measured.tls_bare;
    const std::string &path = files.path, &tls_path = files.tls_path, &tls_keys = files.tls_keys;
    const auto& counts = measured.counts;
    const unsigned threads = o.threads;
    const bool keep = o.keep, ok = measured.ok;
    const std::string& existing = o.existing;
    std::printf("\nthe analysis found %llu calls", (unsigned long long)rows.front().second.calls);
    if (counts.size() == 2)
        std::printf("; %u threads: %.2fx faster than 1 (text), %.2fx (--json)", threads,
                    rows[1].second.seconds > 0 ? rows[0].second.seconds / rows[1].second.seconds : 0,
                    rows[3].second.seconds > 0 ? rows[2].second.seconds / rows[3].second.seconds : 0);
    std::printf("\n");
    // N copies cannot do more than N times one's work: a figure above N is
    // the fastest lone run having been slowed (noise), and is shown as N.
    if (const Measure& all = measured.at_once; all.ok && all.seconds > 0)
        std::printf("%u one-thread analyses at once: %.2fx the work of one in the same time (the most %u threads could "
                    "gain on this machine)\n",
                    threads, std::min(double(threads), double(threads) * rows[0].second.seconds / all.seconds), threads);
    print_comparisons(measured);
    // Beyond the read loop: what the analysis adds per call, the figure that
    // should stay flat as envelopes grow (the bare read grows with the bytes).
    if (const Measure& one = rows.front().second; one.calls) {
        const std::string what = !existing.empty() ? "on " + existing
                                 : o.envelope      ? "envelopes of about " + std::to_string(o.envelope) + " bytes"
                                                   : "envelopes of ~250 and ~430 bytes";
        std::printf("one thread (text): %.1f us a call, %.1f us beyond the read loop, %s\n", one.seconds * 1e6 / double(one.calls),
                    std::max(0.0, one.seconds - bare.seconds) * 1e6 / double(one.calls), what.c_str());
    }
    if (!tls_rows.empty() && rows.front().second.seconds > 0 && bare.seconds > 0 && tls_bare.seconds > 0)
        std::printf("HTTPS (keyed, --threads 1): %.1fx its read loop, against %.1fx for plaintext; %.2fx the plaintext "
                    "analysis's time\n",
                    tls_rows.front().second.seconds / tls_bare.seconds, rows.front().second.seconds / bare.seconds,
                    tls_rows.front().second.seconds / rows.front().second.seconds);
    if (!keep && existing.empty()) {
        std::remove(path.c_str());
        std::remove(tls_path.c_str());
        std::remove(tls_keys.c_str());
    } else if (existing.empty()) {
        std::printf("kept %s, %s, %s\n", path.c_str(), tls_path.c_str(), tls_keys.c_str());
    }
    return ok ? kExitOk : kExitInput;
}

} // namespace stallscope::cli
