// `stallscope-cli capture` end to end on loopback, with the reference server
// and client (needs root / CAP_NET_RAW; skipped otherwise). Paths of the
// binaries come from CMake (STALLSCOPE_CLI, STALLSCOPE_REFSERVER, ...).
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/capture_writers.h"
#include "capture/tests/live_test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace stallscope;
using json = nlohmann::json;
using test::TempDir;

namespace {

struct Proc {
    pid_t pid = -1;
    std::string out_path, err_path;
};

struct Result {
    int exit_code = -1;       // -1: killed by a signal
    int signal = 0;
    bool timed_out = false;
    double seconds = 0;
    std::string out, err;
};

std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Starts argv with stdout/stderr going to files (own process group, so a
// stuck run can be killed with everything it started).
Proc spawn(const std::vector<std::string>& argv, const TempDir& dir, const std::string& tag) {
    Proc p;
    p.out_path = dir.file(tag + ".stdout");
    p.err_path = dir.file(tag + ".stderr");
    std::vector<char*> av;
    for (auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    p.pid = fork();
    if (p.pid == 0) {
        setpgid(0, 0);
        int o = ::open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = ::open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int n = ::open("/dev/null", O_RDONLY);
        dup2(n, 0);
        dup2(o, 1);
        dup2(e, 2);
        execv(av[0], av.data());
        _exit(126);
    }
    setpgid(p.pid, p.pid);
    return p;
}

Result wait_for(const Proc& p, int timeout_s) {
    Result r;
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
        pid_t w = waitpid(p.pid, &status, WNOHANG);
        if (w == p.pid) break;
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(timeout_s)) {
            r.timed_out = true;
            kill(-p.pid, SIGKILL);
            waitpid(p.pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = slurp(p.out_path);
    r.err = slurp(p.err_path);
    return r;
}

Result run(const std::vector<std::string>& argv, const TempDir& dir, int timeout_s = 60) {
    static int n = 0;
    return wait_for(spawn(argv, dir, "run" + std::to_string(++n)), timeout_s);
}

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// Processes whose command line mentions `needle` (a unique port): what the
// test started through the CLI, to check nothing is left behind.
std::vector<pid_t> processes_mentioning(const std::string& needle) {
    std::vector<pid_t> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        std::string cmd = slurp(std::string("/proc/") + e->d_name + "/cmdline");
        std::replace(cmd.begin(), cmd.end(), '\0', ' ');
        std::string stat = slurp(std::string("/proc/") + e->d_name + "/stat");
        const auto rp = stat.rfind(')');
        const bool zombie = rp != std::string::npos && rp + 2 < stat.size() && stat[rp + 2] == 'Z';
        if (!zombie && cmd.find(needle) != std::string::npos && cmd.find("live_cli_tests") == std::string::npos)
            out.push_back(pid_t(std::stoi(e->d_name)));
    }
    closedir(d);
    return out;
}

// Something listens on this TCP port (IPv4, from /proc/net/tcp: no probe
// connection, which a capture or the server would see).
bool live_port_listening(int port) {
    std::ifstream in("/proc/net/tcp");
    char want[8];
    std::snprintf(want, sizeof want, ":%04X", port);
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string sl, local, remote, st;
        f >> sl >> local >> remote >> st;
        if (st == "0A" && local.size() > 5 && local.compare(local.size() - 5, 5, want) == 0) return true;
    }
    return false;
}

// SIGKILLs the capture once its file passed 200 KB (packets are flowing).
void kill_when_grown(const Proc& p, const std::string& pcap) {
    std::error_code ec;
    for (int i = 0; i < 1000; ++i) {
        auto sz = std::filesystem::file_size(pcap, ec);
        if (!ec && sz > (200u << 10)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(p.pid, SIGKILL);
    int status = 0;
    waitpid(p.pid, &status, 0);
    CHECK(WIFSIGNALED(status));
}

// After a kill of the capture: its commands die with it (parent-death
// signal). Waits up to 20 s (a sanitizer build under a loaded CI runs its
// exit-time leak check slowly), kills what is left anyway, and says what was.
bool nothing_left(int port) {
    const std::string needle = "--port " + std::to_string(port);
    for (int i = 0; i < 400 && !processes_mentioning(needle).empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto left = processes_mentioning(needle);
    for (pid_t pid : left) {
        const std::string proc = "/proc/" + std::to_string(pid);
        std::string cmd = slurp(proc + "/cmdline");
        std::replace(cmd.begin(), cmd.end(), '\0', ' ');
        UNSCOPED_INFO("left running: pid " << pid << " stat " << slurp(proc + "/stat").substr(0, 60) << " wchan "
                                            << slurp(proc + "/wchan") << " cmd " << cmd.substr(0, 200));
        kill(pid, SIGKILL);
    }
    return left.empty();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string server_cmd(int port, const std::string& profile, int max_seconds = 60) {
    return std::string(STALLSCOPE_REFSERVER) + " --profile " + profile + " --port " + std::to_string(port) +
           " --bind 127.0.0.1 --max-seconds " + std::to_string(max_seconds);
}

std::string client_cmd(int port, const std::string& profile, int calls, const std::string& jsonl) {
    return std::string(STALLSCOPE_REFCLIENT) + " --profile " + profile + " --url http://127.0.0.1:" +
           std::to_string(port) + "/soap --op echoStrings --size 10 --calls " + std::to_string(calls) +
           " --timeout-s 10 > " + jsonl;
}

} // namespace

TEST_CASE("capture cli: a reference xsoap scenario is analysed with the client's own latencies", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port();
    const std::string pcap = dir.file("xsoap.pcapng"), jsonl = dir.file("client.jsonl");
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", server_cmd(port, "xsoap"), "--run", client_cmd(port, "xsoap", 5, jsonl), "-w", pcap,
                    "--json"},
                   dir, 120);
    INFO("stderr:\n" << r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);
    json doc = json::parse(r.out);

    // The client's own view: one JSON line per call.
    std::vector<double> client_ms;
    std::ifstream in(jsonl);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) client_ms.push_back(json::parse(line).at("latency_ms").get<double>());
    REQUIRE(client_ms.size() == 5);

    REQUIRE(doc["calls"].size() == 5);
    std::vector<double> wire_ms;
    for (auto& c : doc["calls"]) {
        CHECK(c["complete"].get<bool>());
        CHECK(c["status"].get<int>() == 200);
        CHECK(c["method"] == "POST");
        wire_ms.push_back(c["latency_ms"].get<double>());
    }
    CHECK(doc["summary"]["overall"]["calls"].get<int>() == 5);
    const double wm = median(wire_ms), cm = median(client_ms);
    INFO("median on the wire " << wm << " ms, client " << cm << " ms");
    CHECK(std::abs(wm - cm) <= 0.05 * cm);
    CHECK(doc["capture"]["file"] == pcap);
    CHECK(doc["capture"]["format"] == "pcapng");
    for (auto& w : doc["capture"]["warnings"]) CHECK(w["message"].get<std::string>().find("dropped") == std::string::npos);

    // The file says the same as the live analysis.
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 60);
    REQUIRE(a.exit_code == 0);
    json again = json::parse(a.out);
    CHECK(again["capture"]["packets"] == doc["capture"]["packets"]);
    REQUIRE(again["calls"].size() == 5);
    for (size_t i = 0; i < 5; ++i) CHECK(again["calls"][i]["latency_ms"] == doc["calls"][i]["latency_ms"]);
    CHECK(again["findings"].size() == doc["findings"].size());

    // Everything the capture started is gone.
    CHECK(processes_mentioning("--port " + std::to_string(port)).empty());
}

TEST_CASE("capture cli: --duration on a quiet filter returns", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const std::string pcap = dir.file("quiet.pcapng");
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "udp port 9 and udp port 7",
                    "--duration", "1", "-w", pcap, "--json"},
                   dir, 30);
    INFO("stderr:\n" << r.err << "\nreturned after " << r.seconds << " s");
    REQUIRE_FALSE(r.timed_out);  // a loop blocked in libpcap would never return
    REQUIRE(r.exit_code == 0);
    json doc = json::parse(r.out);
    CHECK(doc["capture"]["packets"] == 0);
    CHECK(doc["calls"].empty());
    CHECK(r.err.find("duration reached") != std::string::npos);
    // An empty capture is still a valid pcapng.
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 30);
    CHECK(a.exit_code == 0);
}

TEST_CASE("capture cli: SIGINT stops a capture with only a server and keeps the report", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port();
    const std::string pcap = dir.file("sigint.pcapng");
    Proc p = spawn({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", server_cmd(port, "gsoap"), "-w", pcap, "--json"},
                   dir, "sigint");
    // Wait (bounded) until the server listens, i.e. the capture is running.
    bool up = false;
    for (int i = 0; i < 500 && !up; ++i) {
        up = slurp(p.err_path).find("listening") != std::string::npos;
        if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(up);
    kill(p.pid, SIGINT);
    Result r = wait_for(p, 30);
    INFO("stderr:\n" << r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("stopped by SIGINT") != std::string::npos);
    CHECK(json::parse(r.out)["capture"]["format"] == "pcapng");
    CHECK(processes_mentioning("--port " + std::to_string(port)).empty());
}

TEST_CASE("capture cli: SIGKILL mid-capture leaves a readable pcapng", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port();
    const std::string pcap = dir.file("killed.pcapng"), jsonl = dir.file("client.jsonl");
    // Many fast calls, so packets are flowing when the kill comes. Both
    // commands are bounded in time by themselves (the CLI cannot stop them).
    Proc p = spawn({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", server_cmd(port, "gsoap", 20), "--run", client_cmd(port, "gsoap", 20000, jsonl),
                    "-w", pcap},
                   dir, "killed");
    kill_when_grown(p, pcap);
    // The CLI's children die with it (parent-death signal); be sure anyway.
    CHECK(nothing_left(port));

    // Our reader reads it up to the last whole block.
    std::string err;
    auto reader = PcapFileReader::open(pcap, err);
    REQUIRE(reader);
    Frame f;
    uint64_t frames = 0;
    PcapFileReader::Status st;
    while ((st = reader->next(f)) == PcapFileReader::Status::Ok) ++frames;
    CHECK(frames > 100);
    if (st == PcapFileReader::Status::Error) CHECK(reader->error().find("truncated") != std::string::npos);
    // ... and the analysis finds the calls in it.
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 60);
    REQUIRE(a.exit_code == 0);
    CHECK(json::parse(a.out)["calls"].size() > 10);
}

TEST_CASE("capture cli: a missing interface and a bad filter exit 1 with the reason", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const std::string pcap = dir.file("never.pcapng");
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "nosuchif0", "--duration", "1", "-w", pcap}, dir);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no such interface 'nosuchif0'") != std::string::npos);
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(pcap));  // nothing written before the interface opened

    r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp prot 80", "--duration", "1", "-w", pcap}, dir);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("bad capture filter 'tcp prot 80'") != std::string::npos);
    CHECK(r.err.find("syntax error") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(pcap));
}

TEST_CASE("capture cli: failing commands are reported with their exit status", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const std::string pcap = dir.file("fail.pcapng");
    // The client fails: the report is still written, exit 1.
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "udp port 9 and udp port 7", "--run",
                    "echo client says hi; exit 3", "-w", pcap},
                   dir);
    INFO("stderr:\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("the run command exited with status 3") != std::string::npos);
    CHECK(r.err.find("[run] client says hi") != std::string::npos);
    CHECK(r.out.find("packets") != std::string::npos);  // the text report
    // A server that does not exist.
    r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port 9", "--server",
             "/nonexistent/stallscope-server --port 9", "--run", "true", "-w", pcap},
            dir);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("server command exited with status 127 (command not found)") != std::string::npos);
    // A client killed by a signal.
    r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "udp port 9 and udp port 7", "--run",
             "kill -SEGV $$", "-w", pcap},
            dir);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("the run command was killed by signal 11") != std::string::npos);
}

TEST_CASE("capture cli: a run that succeeds while the filter matches nothing exits 1 naming the port used",
          "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port(), other = free_port() == port ? port + 1 : free_port();
    const std::string pcap = dir.file("missed.pcapng");
    // The server runs outside the capture; the filter may name another port than the client uses.
    auto capture_with_filter_port = [&](int filter_port, const std::string& tag) {
        Proc server = spawn({"/bin/sh", "-c", server_cmd(port, "xsoap", 30)}, dir, "server-" + tag);
        for (int i = 0; i < 100 && !live_port_listening(port); ++i) usleep(50'000);
        Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(filter_port),
                        "--run", client_cmd(port, "xsoap", 2, dir.file(tag + ".jsonl")), "-w", pcap},
                       dir, 60);
        ::kill(server.pid, SIGTERM);
        wait_for(server, 10);
        return r;
    };
    Result r = capture_with_filter_port(other, "missed");
    INFO("stderr:\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("the run command succeeded but the filter 'tcp port " + std::to_string(other) +
                     "' matched no packet on lo") != std::string::npos);
    CHECK(r.err.find("went to port " + std::to_string(port) + " (") != std::string::npos);
    // The same run with the right filter is a success.
    r = capture_with_filter_port(port, "matched");
    INFO("stderr:\n" << r.err);
    CHECK(r.exit_code == 0);
}

TEST_CASE("capture cli: without capture permission it says how to grant it", "[live][root][cli]") {
    test::skip_unless_can_capture();
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) {
        WARN("needs root and setpriv to drop the capability; not checked");
        return;
    }
    TempDir dir;
    // nobody without capabilities: the CLI must be reachable by it.
    Result r = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                    STALLSCOPE_CLI, "capture", "--iface", "lo", "--duration", "1", "-w", dir.file("p.pcapng")},
                   dir);
    INFO("stderr:\n" << r.err);
    if (r.err.find("Permission denied") != std::string::npos && r.err.find("no permission") == std::string::npos) {
        WARN("the CLI binary is not executable by 'nobody' here; not checked");
        return;
    }
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no permission to capture on 'lo'") != std::string::npos);
    CHECK(r.err.find("setcap cap_net_raw,cap_net_admin=eip") != std::string::npos);
}

TEST_CASE("capture cli: the interface going away keeps what was captured", "[live][root][cli]") {
    test::skip_unless_can_capture();
    TempDir dir;
    // A veth pair in a namespace of our own, deleted mid-capture.
    const std::string ns = "ssl-live-" + std::to_string(getpid());
    auto sh = [&](const std::string& cmd) { return std::system(cmd.c_str()); };
    if (sh("ip netns add " + ns + " 2>/dev/null") != 0) {
        WARN("cannot create a network namespace here; not checked");
        return;
    }
    struct NsGuard {
        std::string ns;
        ~NsGuard() { std::system(("ip netns del " + ns + " 2>/dev/null").c_str()); }
    } guard{ns};
    REQUIRE(sh("ip -n " + ns + " link add ssveth0 type veth peer name ssveth1 && ip -n " + ns +
               " link set ssveth0 up && ip -n " + ns + " link set ssveth1 up && ip -n " + ns +
               " addr add 10.213.250.1/24 dev ssveth0") == 0);
    const std::string pcap = dir.file("gone.pcapng");
    Proc p = spawn({"/usr/bin/ip", "netns", "exec", ns, STALLSCOPE_CLI, "capture", "--iface", "ssveth0", "--duration",
                    "60", "-w", pcap, "--json"},
                   dir, "gone");
    bool up = false;
    for (int i = 0; i < 500 && !up; ++i) {
        up = slurp(p.err_path).find("capturing on") != std::string::npos;
        if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(up);
    // Some packets first: datagrams to a neighbour nobody answers make ARP
    // requests. Wait (bounded) until they are in the file.
    sh("ip netns exec " + ns + " python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
       "[s.sendto(b'x', ('10.213.250.2', 9)) for _ in range(3)]\"");
    std::error_code ec;
    for (int i = 0; i < 250; ++i) {
        auto sz = std::filesystem::file_size(pcap, ec);
        if (!ec && sz > 300) break;  // more than the SHB + IDB
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    sh("ip -n " + ns + " link del ssveth0");
    Result r = wait_for(p, 30);
    INFO("stderr:\n" << r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("capture stopped early") != std::string::npos);
    // Warning lines name the file written, once (as analyze names its input).
    CHECK(r.err.find("stallscope-cli: warning: " + pcap + ": capture stopped early") != std::string::npos);
    json doc = json::parse(r.out);
    bool warned = false;
    for (auto& w : doc["capture"]["warnings"])
        warned = warned || w["message"].get<std::string>().find("capture stopped early") != std::string::npos;
    CHECK(warned);
    CHECK(doc["capture"]["packets"].get<int>() >= 1);
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 30);
    CHECK(a.exit_code == 0);
    CHECK(json::parse(a.out)["capture"]["packets"] == doc["capture"]["packets"]);
}

namespace {
// The files in `dir` whose names start with `prefix`, by name.
std::vector<std::string> files_named(const TempDir& dir, const std::string& prefix) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir.path(), ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

TEST_CASE("capture cli: a ring buffer (-b filesize: -b files:) writes a file set and reports the files it kept",
          "[live][root][cli][ring]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port();
    const std::string pcap = dir.file("ring.pcapng"), jsonl = dir.file("client.jsonl");
    // Every file kept: the report is the whole run's, read from its files.
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", server_cmd(port, "xsoap"), "--run", client_cmd(port, "xsoap", 200, jsonl), "-w", pcap,
                    "-b", "filesize:20", "--json"},
                   dir, 120);
    INFO("stderr:\n" << r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> files = files_named(dir, "ring_");
    REQUIRE(files.size() > 2);
    CHECK_FALSE(std::filesystem::exists(pcap));
    json doc = json::parse(r.out);
    std::vector<std::string> reported;
    for (auto& f : doc["capture"]["files"]) reported.push_back(f["file"].get<std::string>());
    CHECK(reported == files);
    CHECK(doc["calls"].size() == 200);
    size_t complete = 0;
    for (auto& c : doc["calls"]) complete += c["complete"].get<bool>();
    CHECK(complete == 200);
    // analyze of the first file reads the same set and finds the same calls.
    Result a = run({STALLSCOPE_CLI, "analyze", files.front(), "--json", "--quiet"}, dir, 60);
    REQUIRE(a.exit_code == 0);
    CHECK(json::parse(a.out)["calls"].size() == 200);

    // Only the newest 2 kept: the report covers them and says the rest were deleted.
    const int port2 = free_port();
    const std::string pcap2 = dir.file("keep.pcapng");
    r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port2),
             "--server", server_cmd(port2, "xsoap"), "--run", client_cmd(port2, "xsoap", 200, jsonl), "-w", pcap2,
             "-b", "filesize:20", "-b", "files:2", "--json"},
            dir, 120);
    INFO("stderr:\n" << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(files_named(dir, "keep_").size() == 2);
    doc = json::parse(r.out);
    CHECK(doc["capture"]["files"].size() == 2);
    CHECK(doc["calls"].size() < 200);   // the kept files begin mid-connection, after the first calls
    bool said = false;
    for (auto& w : doc["capture"]["warnings"]) said = said || w["message"].get<std::string>().find("oldest files were deleted") != std::string::npos;
    CHECK(said);

    for (const char* bad : {"files:3", "filesize:0", "size:10", "filesize:x"}) {
        r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "-w", dir.file("bad.pcapng"), "-b", bad}, dir);
        CHECK(r.exit_code == 2);
    }
}

TEST_CASE("capture cli: SIGKILL mid-capture leaves every kept file of a ring readable, none missing",
          "[live][root][cli][ring]") {
    test::skip_unless_can_capture();
    TempDir dir;
    const int port = free_port();
    const std::string pcap = dir.file("killedring.pcapng"), jsonl = dir.file("client.jsonl");
    Proc p = spawn({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", server_cmd(port, "gsoap", 20), "--run", client_cmd(port, "gsoap", 20000, jsonl),
                    "-w", pcap, "-b", "filesize:50", "-b", "files:3"},
                   dir, "killedring");
    // Round the ring at least once (file 5 or a later one exists, so older
    // ones were deleted), then kill: well before the server's 20 s are up.
    for (int i = 0; i < 500; ++i) {
        const auto f = files_named(dir, "killedring_");
        const std::string newest = f.empty() ? std::string() : std::filesystem::path(f.back()).filename().string();
        if (newest.size() > 16 && std::stoul(newest.substr(11, 5)) >= 5) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(p.pid, SIGKILL);
    int status = 0;
    waitpid(p.pid, &status, 0);
    INFO("stderr of the capture:\n" << slurp(p.err_path));
    CHECK(WIFSIGNALED(status));
    CHECK(nothing_left(port));  // up to 20 s, and what was left if anything (it once took over 5 s under load)

    const std::vector<std::string> kept = files_named(dir, "killedring_");
    REQUIRE(kept.size() >= 2);
    CHECK(kept.size() <= 3);
    CHECK(kept.front().find("killedring_00001_") == std::string::npos);   // the ring went round: the first was deleted
    uint64_t frames = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
        std::string err;
        auto reader = PcapFileReader::open(kept[i], err);
        REQUIRE(reader);
        Frame f;
        PcapFileReader::Status st;
        while ((st = reader->next(f)) == PcapFileReader::Status::Ok) ++frames;
        if (i + 1 < kept.size()) CHECK(st == PcapFileReader::Status::End);   // closed and synced before the next
        else if (st == PcapFileReader::Status::Error) CHECK(reader->error().find("truncated") != std::string::npos);
    }
    CHECK(frames > 100);
    // The kept set is analysed as one capture.
    Result a = run({STALLSCOPE_CLI, "analyze", kept.front(), "--json", "--quiet"}, dir, 60);
    REQUIRE(a.exit_code == 0);
    CHECK(json::parse(a.out)["capture"]["files"].size() == kept.size());
    CHECK(json::parse(a.out)["calls"].size() > 10);
}

namespace {
// A throw-away test CA and server certificate in dir (make-test-ca.sh).
bool make_test_ca(const TempDir& dir) {
    const std::string cmd = std::string(STALLSCOPE_MAKE_TEST_CA) + " " + dir.file("ca") + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

std::string tls_server_cmd(const TempDir& dir, int port, const std::string& version, int max_seconds = 60) {
    return server_cmd(port, "xsoap", max_seconds) + " --tls " + version + " --cert " + dir.file("ca/server.pem") +
           " --key " + dir.file("ca/server.key");
}

std::string tls_client_cmd(const TempDir& dir, int port, const std::string& version, int calls,
                           const std::string& jsonl) {
    return std::string(STALLSCOPE_REFCLIENT) + " --profile xsoap --url https://127.0.0.1:" + std::to_string(port) +
           "/soap --op echoStrings --size 10 --calls " + std::to_string(calls) + " --timeout-s 10 --tls " + version +
           " --cacert " + dir.file("ca/ca.pem") + " > " + jsonl;
}

// The secrets (third field) of a key log's lines.
std::vector<std::string> secrets_of(const std::string& keylog) {
    std::vector<std::string> out;
    std::istringstream in(keylog);
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string label, random, secret;
        if (f >> label >> random >> secret) out.push_back(secret);
    }
    return out;
}

int decrypted_calls(const json& doc) {
    int n = 0;
    for (auto& c : doc["calls"])
        if (c["method"] == "POST" && c["status"] == 200 && !c.value("encrypted", false)) ++n;
    return n;
}

} // namespace

TEST_CASE("capture cli: an HTTPS run keeps its key log beside the capture and the capture decrypts by itself",
          "[live][root][cli][tls]") {
    test::skip_unless_can_capture();
    const std::string version = GENERATE(std::string("1.3"), std::string("1.2"));
    TempDir dir;
    REQUIRE(make_test_ca(dir));
    const int port = free_port();
    const std::string pcap = dir.file("https.pcapng"), jsonl = dir.file("client.jsonl");
    const std::string keylog = dir.file("https.keylog");  // beside the capture, by default
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", tls_server_cmd(dir, port, version), "--run", tls_client_cmd(dir, port, version, 4, jsonl),
                    "-w", pcap, "--json"},
                   dir, 120);
    INFO("TLS " << version << " stderr:\n" << r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);

    // The commands wrote their secrets where SSLKEYLOGFILE said; only we may read them.
    const std::string keys = slurp(keylog);
    const auto secrets = secrets_of(keys);
    REQUIRE(secrets.size() >= (version == "1.3" ? 4u : 1u));
    struct stat st {};
    REQUIRE(::stat(keylog.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(r.err.find("TLS key log lines kept in " + keylog) != std::string::npos);
    // Key material appears in no output.
    for (const std::string& s : secrets) {
        CHECK(r.out.find(s) == std::string::npos);
        CHECK(r.err.find(s) == std::string::npos);
    }

    // The live analysis decrypted every call.
    json doc = json::parse(r.out);
    CHECK(decrypted_calls(doc) == 4);
    for (auto& c : doc["connections"]) {
        REQUIRE(c.contains("tls"));
        CHECK(c["tls"]["decrypted"] == true);
        CHECK(c["tls"]["version"] == "TLS " + version);
    }

    // The file alone, without the key log, decrypts the same calls: the
    // secrets are embedded before the packets they unlock.
    std::filesystem::rename(keylog, dir.file("moved.keylog"));
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 60);
    INFO("analyze stderr:\n" << a.err);
    REQUIRE(a.exit_code == 0);
    json again = json::parse(a.out);
    CHECK(decrypted_calls(again) == 4);
    REQUIRE(again["calls"].size() == doc["calls"].size());
    for (size_t i = 0; i < again["calls"].size(); ++i)
        CHECK(again["calls"][i]["latency_ms"] == doc["calls"][i]["latency_ms"]);
    for (auto& w : again["capture"]["warnings"]) CHECK(w["code"] != "tls_undecrypted");
    for (const std::string& s : secrets) CHECK(a.out.find(s) == std::string::npos);
    CHECK(processes_mentioning("--port " + std::to_string(port)).empty());
}

TEST_CASE("capture cli: an HTTPS run killed mid-capture keeps its key log and a capture that decrypts",
          "[live][root][cli][tls]") {
    test::skip_unless_can_capture();
    TempDir dir;
    REQUIRE(make_test_ca(dir));
    const int port = free_port();
    const std::string pcap = dir.file("killed.pcapng"), jsonl = dir.file("client.jsonl");
    Proc p = spawn({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", tls_server_cmd(dir, port, "1.3", 20), "--run",
                    tls_client_cmd(dir, port, "1.3", 20000, jsonl), "-w", pcap},
                   dir, "killed-tls");
    kill_when_grown(p, pcap);
    CHECK(nothing_left(port));

    // The key log is on disk, whole lines.
    const std::string keys = slurp(dir.file("killed.keylog"));
    CHECK(secrets_of(keys).size() >= 4);
    // The capture up to the kill decrypts by itself (its secrets blocks)...
    Result a = run({STALLSCOPE_CLI, "analyze", pcap, "--json"}, dir, 60);
    INFO("analyze stderr:\n" << a.err);
    REQUIRE(a.exit_code == 0);
    json doc = json::parse(a.out);
    CHECK(decrypted_calls(doc) > 10);
    // ... and with the key log too (what a packet after the last block would need).
    Result b = run({STALLSCOPE_CLI, "analyze", pcap, "--keylog", dir.file("killed.keylog"), "--json"}, dir, 60);
    REQUIRE(b.exit_code == 0);
    CHECK(decrypted_calls(json::parse(b.out)) >= decrypted_calls(doc));
}

TEST_CASE("capture cli: --no-keylog leaves no key log and the capture keyless", "[live][root][cli][tls]") {
    test::skip_unless_can_capture();
    TempDir dir;
    REQUIRE(make_test_ca(dir));
    const int port = free_port();
    const std::string pcap = dir.file("nokeys.pcapng"), jsonl = dir.file("client.jsonl");
    Result r = run({STALLSCOPE_CLI, "capture", "--iface", "lo", "--filter", "tcp port " + std::to_string(port),
                    "--server", tls_server_cmd(dir, port, "1.3"), "--run", tls_client_cmd(dir, port, "1.3", 2, jsonl),
                    "-w", pcap, "--json", "--no-keylog"},
                   dir, 120);
    INFO("stderr:\n" << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(std::filesystem::exists(dir.file("nokeys.keylog")));
    json doc = json::parse(r.out);
    CHECK(decrypted_calls(doc) == 0);
    REQUIRE(doc["calls"].size() == 2);  // keyless calls from the TLS records
    for (auto& c : doc["calls"]) CHECK(c["encrypted"] == true);
}
