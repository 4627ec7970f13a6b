// analyze --threads N: the report (JSON, text, CSV) is byte for byte the one
// a single thread gives, for every N, on every bundled capture, the hostile
// corpus, the public corpus (when present), a big capture made of many
// copies of a bundled one, when it is cancelled and when it is truncated.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/sharded_analysis.h"
#include "analyzers/result/model_spill.h"
#include "analyzers/report/report.h"

#include "app/cli/synthetic_capture.h"
#include "capture/pcap/pcap_file_reader.h"

#include <catch2/catch.hpp>
#include "analyzers/tests/skip_when_absent.h"
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

struct Run {
    bool ok = false, cancelled = false;
    std::string error, report;
    uint64_t packets = 0;
};

Run run(const std::string& path, unsigned threads, AnalysisOptions opt = {}, const ProgressFn& progress = {}) {
    opt.threads = threads;
    AnalyzeOutcome o = analyze_file(path, opt, progress);
    Run r{o.ok, o.cancelled, o.error, "", o.result.capture.packets};
    if (!o.ok) return r;
    std::ostringstream os;
    write_report_json(o.result, os);
    write_report_text(o.result, os);
    write_report_csv(o.result, os);
    os << report_csv_summary(o.result);
    r.report = os.str();
    return r;
}

// Byte for byte; on a difference, where it starts (reports run to 100 MB).
void same_bytes(const std::string& got, const std::string& want) {
    CHECK(got.size() == want.size());
    if (got == want) return;
    size_t at = std::mismatch(got.begin(), got.begin() + ptrdiff_t(std::min(got.size(), want.size())), want.begin()).first -
                got.begin();
    size_t from = at > 200 ? at - 200 : 0;
    INFO("first difference at byte " << at << "\ngot:  ..." << got.substr(from, 400) << "\nwant: ..." << want.substr(from, 400));
    CHECK(false);
}

void same_for_every_n(const std::string& path, const AnalysisOptions& opt = {}, const ProgressFn& progress = {}) {
    INFO(path);
    Run one = run(path, 1, opt, progress);
    for (unsigned n : {2u, 3u, 4u}) {
        INFO(n << " threads");
        Run r = run(path, n, opt, progress);
        CHECK(r.ok == one.ok);
        CHECK(r.error == one.error);
        CHECK(r.cancelled == one.cancelled);
        same_bytes(r.report, one.report);
    }
}

std::vector<std::string> captures_in(const fs::path& dir) {
    std::vector<std::string> out;
    if (!fs::is_directory(dir)) return out;
    for (auto& e : fs::directory_iterator(dir)) {
        auto ext = e.path().extension();
        if (ext == ".pcap" || ext == ".pcapng") out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A file of its own in the temp dir (other test runs may share it).
std::string temp_path(const std::string& what) {
    return (fs::temp_directory_path() / ("stallscope-sharded-" + std::to_string(getpid()) + "-" + what + ".pcap")).string();
}

// A pcap of `copies` copies of `src`'s records (times repeat, so the clock's
// backwards rule and address-pair reuse are exercised too), optionally cut
// in the middle of a record.
std::string replicated(const std::string& src, int copies, bool truncate) {
    std::ifstream in(src, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::string out = bytes.substr(0, 24);
    for (int i = 0; i < copies; ++i) out += bytes.substr(24);
    if (truncate) out.resize(out.size() - bytes.size() / 3 - 7);
    std::string path = temp_path(std::to_string(copies) + (truncate ? "-cut" : ""));
    std::ofstream(path, std::ios::binary) << out;
    return path;
}

} // namespace

TEST_CASE("threads: the same report for 1 to 4 threads on every bundled and hostile capture", "[threads]") {
    auto all = captures_in(STALLSCOPE_TESTDATA_DIR);
    auto hostile = captures_in(fs::path(STALLSCOPE_TESTDATA_DIR) / "hostile");
    all.insert(all.end(), hostile.begin(), hostile.end());
    REQUIRE(all.size() > 50);
    for (auto& p : all) same_for_every_n(p);
}

// A call the report will not keep (past keep_calls: the text report lists
// 500) goes from its worker to the merge as a digest of what the merge reads
// of it (analyzers/pipeline/call_digest.h), not whole: with none kept, nearly
// every call. The findings and the summary stay one thread's, in memory and
// spilled: a field the merge reads and the digest does not carry shows here.
TEST_CASE("threads: calls past keep_calls cross as digests: the same report", "[threads]") {
    auto all = captures_in(STALLSCOPE_TESTDATA_DIR);
    auto hostile = captures_in(fs::path(STALLSCOPE_TESTDATA_DIR) / "hostile");
    all.insert(all.end(), hostile.begin(), hostile.end());
    REQUIRE(all.size() > 50);
    AnalysisOptions opt;
    opt.keep_calls = 0;
    uint64_t before = sharding_detail::calls_digested();
    for (auto& p : all) same_for_every_n(p, opt);
    CHECK(sharding_detail::calls_digested() - before > 300);
    opt.spill_after_calls = 2;
    for (auto& p : captures_in(STALLSCOPE_TESTDATA_DIR)) same_for_every_n(p, opt);
    // The text report's 500 of the bench's synthetic capture, spilled as the CLI spills.
    std::string path = temp_path("digests");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 60000, st, error));
    opt.keep_calls = 500;
    opt.spill_after_calls = 1000;
    before = sharding_detail::calls_digested();
    same_for_every_n(path, opt);
    CHECK(sharding_detail::calls_digested() - before > 2 * st.calls);  // of 2, 3 and 4 threads
    fs::remove(path);
    // Every call kept: none crosses as a digest.
    const uint64_t kept_before = sharding_detail::calls_digested();
    opt = {};
    same_for_every_n(std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-ms-soap.pcap", opt);
    CHECK(sharding_detail::calls_digested() == kept_before);
}

TEST_CASE("threads: the same report when calls spill to disk", "[threads]") {
    AnalysisOptions opt;
    opt.spill_after_calls = 2;
    const auto all = captures_in(STALLSCOPE_TESTDATA_DIR);
    REQUIRE(all.size() > 20);
    for (auto& p : all) same_for_every_n(p, opt);
}

TEST_CASE("threads: the desktop app's analysis (segments kept) gives every call with the same segments", "[threads]") {
    // The desktop app, compare and export analyse with the machine's cores
    // too; their event traces read each call's segments.
    AnalysisOptions opt;
    opt.keep_segments = true;
    size_t calls = 0, segments = 0;
    const auto all = captures_in(STALLSCOPE_TESTDATA_DIR);
    REQUIRE(all.size() > 20);
    for (auto& p : all) {
        INFO(p);
        opt.threads = 1;
        AnalyzeOutcome one = analyze_file(p, opt);
        opt.threads = 3;
        AnalyzeOutcome three = analyze_file(p, opt);
        REQUIRE(one.ok == three.ok);
        REQUIRE(one.result.calls.size() == three.result.calls.size());
        for (size_t i = 0; i < one.result.calls.size(); ++i) {
            std::string a, b;
            spill_encode(one.result.calls[i], a);   // every field, the segments too
            spill_encode(three.result.calls[i], b);
            CHECK(a == b);
            segments += one.result.calls[i].segments.size();
        }
        calls += one.result.calls.size();
    }
    CHECK(calls > 100);
    CHECK(segments > 10 * calls);
}

TEST_CASE("threads: the same report on the public corpus", "[threads]") {
    const char* env = std::getenv("STALLSCOPE_PUBLIC_CORPUS");
    fs::path dir = env ? fs::path(env) : fs::path(STALLSCOPE_PUBLIC_CORPUS_DIR);
    auto all = captures_in(dir);
    if (all.empty()) {
        STALLSCOPE_SKIP("no public corpus at " << dir << " (set STALLSCOPE_PUBLIC_CORPUS)");
    }
    for (auto& p : all) same_for_every_n(p);
}

TEST_CASE("threads: a big capture, whole, cancelled and truncated, gives the same for every N", "[threads]") {
    std::string src = std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-apache-soap.pcap";
    std::string big = replicated(src, 3000, false), cut = replicated(src, 3000, true);
    Run whole = run(big, 1);
    REQUIRE(whole.ok);
    REQUIRE(whole.packets > 3 * 65536);  // the progress callback runs a few times
    same_for_every_n(big);

    // Cancelled at the second progress report: what came before, the same for every N.
    int calls = 0;
    auto cancel = [&](const Progress&) { return ++calls < 2; };
    Run part = run(big, 1, {}, cancel);
    CHECK(part.cancelled);
    CHECK(part.packets < whole.packets);
    calls = 0;
    for (unsigned n : {2u, 3u, 4u}) {
        calls = 0;
        Run r = run(big, n, {}, cancel);
        CHECK(r.cancelled);
        CHECK(r.report == part.report);
    }

    Run trunc = run(cut, 1);
    REQUIRE(trunc.ok);
    CHECK(trunc.report.find("analysed the") != std::string::npos);  // the reader's warning
    same_for_every_n(cut);

    // Over the open-connection cap the result may differ by N (the cap is per
    // worker, docs/limits.md); under it, it may not.
    AnalysisOptions capped;
    capped.max_open_connections = 1000000;
    same_for_every_n(big, capped);
    fs::remove(big);
    fs::remove(cut);
}

// The bench's synthetic capture: hundreds of concurrent connections closing
// all the time, so lingering connections of different workers close at the
// same frames, in the order one thread closes them (by last packet time,
// then id), whichever worker gets that frame. Spilled like the CLI (1000).
TEST_CASE("threads: many lingering connections close where one thread closes them", "[threads]") {
    std::string path = temp_path("synthetic");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 60000, st, error));
    REQUIRE(st.connections > 1000);
    AnalysisOptions opt;
    opt.spill_after_calls = 1000;
    Run one = run(path, 1, opt);
    REQUIRE(one.ok);
    CHECK(one.report.find("\"calls\": " + std::to_string(st.calls)) != std::string::npos);
    same_for_every_n(path, opt);
    fs::remove(path);
}

// The routing orders a segment's two ends with endpoint_less instead of `<`:
// the same answer on every pair, or a connection's two directions could go
// to different workers. Addresses that differ in one byte anywhere (first
// or second word, high bit set or not), in the family, or only in the port.
TEST_CASE("threads: the routing's endpoint order is Endpoint's <", "[threads]") {
    std::mt19937_64 rng(26);
    auto endpoint = [&](uint8_t family) {
        Endpoint e;
        e.addr.family = family;
        for (size_t i = 0; i < (family == 4 ? 4u : 16u); ++i) e.addr.bytes[i] = uint8_t(rng() % 3 == 0 ? 0 : rng());
        e.port = uint16_t(rng() % 4 == 0 ? 80 : rng());
        return e;
    };
    size_t checked = 0;
    for (int i = 0; i < 20000; ++i) {
        const uint8_t fa = rng() % 2 ? 4 : 6, fb = rng() % 5 == 0 ? (fa == 4 ? 6 : 4) : fa;
        Endpoint a = endpoint(fa), b = endpoint(fb);
        if (i % 3 == 0 && fa == fb) {  // the same address but for one byte, or the same but the port
            b.addr = a.addr;
            if (i % 2) b.addr.bytes[rng() % (fa == 4 ? 4 : 16)] ^= uint8_t(1u << (rng() % 8));
        }
        if (i % 7 == 0) b = a;
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
            INFO(x.to_string() << " vs " << y.to_string());
            REQUIRE(sharding_detail::endpoint_less(x, y) == (x < y));
            ++checked;
        }
    }
    CHECK(checked == 40000);
}

// At the end every connection still open closes at once: a worker hands what
// the ones closed so far made on in batches (the merge replays them while it
// closes the rest), under a watermark that names the last connection closed.
// The bench's capture, cut while hundreds of keep-alive connections are open.
TEST_CASE("threads: the connections open at the end are handed on in batches, in one thread's order", "[threads]") {
    std::string path = temp_path("open-at-end");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 30000, st, error));
    const uint64_t before = sharding_detail::batches_handed_on_at_end();
    Run two = run(path, 2);
    REQUIRE(two.ok);
    CHECK(sharding_detail::batches_handed_on_at_end() > before);  // more than one batch at the end
    // The calls' order at the end hardly shows in a report (ids are given
    // when calls start): the merge checks that every event came in order.
    for (int i = 0; i < 3; ++i) same_for_every_n(path);
    AnalysisOptions spilled;
    spilled.spill_after_calls = 1000;
    same_for_every_n(path, spilled);
    CHECK(sharding_detail::events_replayed_out_of_order() == 0);
    fs::remove(path);
}

// A classic pcap is read out of a memory map that lasts the whole analysis:
// the workers get each segment's payload as a view into it. A pcapng file's
// frames last only to the next read, and a payload put together from IP
// fragments lies outside its frame: those are copied. The reports stay the
// ones of one thread either way. (Four threads: the reading thread's own
// shard, which it has with two, takes its segments where they lie, neither
// lent nor copied.)
TEST_CASE("threads: payloads are lent out of a mapped capture and copied otherwise", "[threads]") {
    const std::string dir = STALLSCOPE_TESTDATA_DIR;
    struct Case {
        std::string path;
        bool lent, copied;  // expect payloads lent, copied
    };
    const Case cases[] = {
        {dir + "/https-expect-tls12.pcap", true, false},
        {dir + "/https-expect-tls12.keyed.pcapng", false, true},
        {dir + "/hostile/ip-fragments.pcap", true, true},
    };
    for (const Case& c : cases) {
        INFO(c.path);
        const uint64_t lent = sharding_detail::payloads_borrowed(), copied = sharding_detail::payloads_copied();
        REQUIRE(run(c.path, 4).ok);
        CHECK((sharding_detail::payloads_borrowed() > lent) == c.lent);
        CHECK((sharding_detail::payloads_copied() > copied) == c.copied);
        same_for_every_n(c.path);
    }
}

// What a call's findings and ledger need of the call alone (CallWork) is done
// by the worker that made the call, where its segments are in that core's
// cache, not by the merge on the reading thread: every call of a two-thread
// analysis, none of a one-thread one. The report stays one thread's.
TEST_CASE("threads: each call's own detectors and ledger run on its worker", "[threads]") {
    const std::string path = std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-ms-soap.pcap";
    AnalysisOptions opt;
    uint64_t before = sharding_detail::calls_worked_on_workers();
    opt.threads = 1;
    const AnalyzeOutcome one = analyze_file(path, opt);
    REQUIRE(one.ok);
    REQUIRE(!one.result.calls.empty());
    CHECK(sharding_detail::calls_worked_on_workers() == before);
    for (unsigned n : {2u, 3u}) {
        INFO(n << " threads");
        before = sharding_detail::calls_worked_on_workers();
        opt.threads = n;
        const AnalyzeOutcome o = analyze_file(path, opt);
        REQUIRE(o.ok);
        CHECK(sharding_detail::calls_worked_on_workers() - before == o.result.calls.size());
    }
    same_for_every_n(path);
}

// The merge runs on the reading thread. A worker whose output queue is full
// waits for the merge, so the reader must never block on that worker's full
// input queue: it runs the merge instead, or sleeps until a worker makes
// room or hands events on. With every queue one batch deep (full on every
// side nearly all the time) the analyses finish, every event is replayed in
// one thread's order, and the reports are one thread's; the reader took the
// full-queue path. (Blocking on the full queue instead hangs this test.)
TEST_CASE("threads: queues one batch deep on every side: no deadlock, nothing lost, one thread's order", "[threads]") {
    std::string path = temp_path("full-queues");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 30000, st, error));
    AnalysisOptions spilled;
    spilled.spill_after_calls = 1000;
    Run one = run(path, 1);
    REQUIRE(one.ok);
    CHECK(one.report.find("\"calls\": " + std::to_string(st.calls)) != std::string::npos);
    const uint64_t full_before = sharding_detail::reader_found_queue_full();
    const uint64_t out_of_order = sharding_detail::events_replayed_out_of_order();
    sharding_detail::set_queue_depth_for_test(1);
    struct Restore {
        ~Restore() { sharding_detail::set_queue_depth_for_test(0); }
    } restore;
    for (unsigned n : {2u, 3u, 4u}) {
        INFO(n << " threads");
        Run r = run(path, n);
        REQUIRE(r.ok);
        same_bytes(r.report, one.report);
    }
    same_for_every_n(path, spilled);
    // 40 KB envelopes: the workers parse them, the reader only routes the
    // segments (lent, not copied), so the workers fall behind and their
    // input queues fill.
    const std::string big = temp_path("full-queues-40k");
    cli::SyntheticStats big_st;
    REQUIRE(cli::write_synthetic_capture(big, 40000, big_st, error, {}, 0, 40000));
    same_for_every_n(big);
    fs::remove(big);
    CHECK(sharding_detail::reader_found_queue_full() > full_before);
    CHECK(sharding_detail::events_replayed_out_of_order() == out_of_order);
    fs::remove(path);
}

// 17 MB of UDP between two runs of a SOAP capture: a batch ends every 1 MB of
// file even without a TCP segment, so the workers hand on batches that do not
// raise their watermarks, and one blocked on its full output queue ties with
// one idle for segments. The merge takes from every worker at the lowest
// watermark; taking only from the first of them hung here (and on main,
// whose merge thread did the same) at 2 and 3 threads.
TEST_CASE("threads: a long stretch without TCP between calls: no deadlock, one thread's report", "[threads]") {
    std::ifstream in(std::string(STALLSCOPE_TESTDATA_DIR) + "/refsvc-apache-soap.pcap", std::ios::binary);
    const std::string src((std::istreambuf_iterator<char>(in)), {});
    REQUIRE(src.size() > 24);
    std::string out = src;
    uint32_t last_s = 0;  // the last record's seconds: the UDP frames come after it
    for (size_t at = 24; at + 16 <= src.size();) {
        uint32_t f[4];
        std::memcpy(f, src.data() + at, 16);
        last_s = f[0];
        at += 16 + f[2];
    }
    std::string frame(14 + 20 + 8 + 1400, 'x');
    const uint8_t head[] = {0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x08, 0x00,
                            0x45, 0, 0x05, 0x94, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
                            0x13, 0x88, 0x13, 0x89, 0x05, 0x80, 0, 0};
    std::memcpy(frame.data(), head, sizeof head);
    for (uint32_t i = 0; i < 12000; ++i) {
        const uint32_t rec[4] = {last_s + 1, i, uint32_t(frame.size()), uint32_t(frame.size())};
        out.append(reinterpret_cast<const char*>(rec), 16);
        out += frame;
    }
    out += src.substr(24);  // the calls again (times go back: the clock's rule, the same for every N)
    REQUIRE(out.size() > 17'000'000);
    const std::string path = temp_path("udp-gap");
    std::ofstream(path, std::ios::binary) << out;
    Run one = run(path, 1);
    REQUIRE(one.ok);
    same_for_every_n(path);
    fs::remove(path);
}

// --threads N is N busy threads, not N + 1: the reading thread runs one shard
// itself (its events go to the merge on the same thread, no queue) beside
// N - 1 worker threads, and gets the smaller share of the connections, as it
// also reads, decodes and merges. The reports stay one thread's.
TEST_CASE("threads: the reading thread runs a shard of its own beside N - 1 workers", "[threads]") {
    std::string path = temp_path("inline-shard");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 30000, st, error));
    CHECK(sharding_detail::reading_thread_share(2) > 0.2);
    CHECK(sharding_detail::reading_thread_share(2) < 0.5);
    for (unsigned n : {2u, 3u}) {
        INFO(n << " threads");
        const uint64_t threads_before = sharding_detail::worker_threads_started();
        const uint64_t inline_before = sharding_detail::segments_on_reading_thread();
        Run r = run(path, n);
        REQUIRE(r.ok);
        CHECK(sharding_detail::worker_threads_started() - threads_before == n - 1);
        // 256 connections at a time, hashed: near the share, never all or none.
        const double got = double(sharding_detail::segments_on_reading_thread() - inline_before) / double(r.packets);
        const double want = sharding_detail::reading_thread_share(n);
        CHECK(got > want * 0.6);
        CHECK(got < want * 1.4);
    }
    // From 4 threads it has no share: N - 1 workers take every segment.
    CHECK(sharding_detail::reading_thread_share(4) == 0);
    const uint64_t threads_before = sharding_detail::worker_threads_started();
    const uint64_t inline_before = sharding_detail::segments_on_reading_thread();
    REQUIRE(run(path, 4).ok);
    CHECK(sharding_detail::worker_threads_started() - threads_before == 3);
    CHECK(sharding_detail::segments_on_reading_thread() == inline_before);
    same_for_every_n(path);
    fs::remove(path);
}

// The split of a cap of 100 open connections on 2 threads, as the cap's
// warning states it: {worker's, reading thread's}.
std::pair<unsigned long, unsigned long> cap_split_of_100(const std::string& path, AnalysisOptions opt) {
    opt.max_open_connections = 100;  // the capture keeps 256 open at a time: hit on every shard
    opt.threads = 2;
    AnalyzeOutcome o = analyze_file(path, opt);
    REQUIRE(o.ok);
    std::string cap;
    for (const Warning& w : o.result.capture.warnings)
        if (w.code == WarningCode::OpenConnectionCap) cap = w.message;
    INFO(cap);
    unsigned long worker = 0, reading = 0;
    const size_t at = cap.find("100 over 1 worker thread: ");
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(cap.c_str() + at, "100 over 1 worker thread: %lu each, and %lu on the reading thread", &worker,
                        &reading) == 2);
    return {worker, reading};
}

// Decrypting, a shard's work per segment is several times larger while the
// reading thread's reading, decoding and merging is not: with the secrets
// known at the first frame its shard gets the larger share, for every
// segment (the split never changes once routing began), the reports stay
// one thread's, and the cap follows the split.
TEST_CASE("threads: decrypting, the reading thread's shard gets a larger share", "[threads]") {
    CHECK(sharding_detail::reading_thread_share(2, true) > sharding_detail::reading_thread_share(2) + 0.05);
    CHECK(sharding_detail::reading_thread_share(2, true) < 0.5);
    CHECK(sharding_detail::reading_thread_share(3, true) > sharding_detail::reading_thread_share(3));
    CHECK(sharding_detail::reading_thread_share(4, true) == 0);  // no share from 4 threads, as without secrets
    const std::string path = temp_path("decrypting-share"), keys = path + ".keys";
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 30000, st, error, keys));
    auto share_of = [&](unsigned n, bool keyed, std::string& report) {
        AnalysisOptions opt;
        if (keyed) opt.keylog_path = keys;
        const uint64_t before = sharding_detail::segments_on_reading_thread();
        Run r = run(path, n, opt);
        REQUIRE(r.ok);
        report = r.report;
        return double(sharding_detail::segments_on_reading_thread() - before) / double(r.packets);
    };
    AnalysisOptions keyed;
    keyed.keylog_path = keys;
    const Run one = run(path, 1, keyed);
    REQUIRE(one.ok);
    std::string keyed2, keyless2;
    const double with_keys = share_of(2, true, keyed2), without = share_of(2, false, keyless2);
    CHECK(with_keys > sharding_detail::reading_thread_share(2, true) * 0.8);
    CHECK(with_keys < sharding_detail::reading_thread_share(2, true) * 1.2);
    CHECK(without < sharding_detail::reading_thread_share(2) * 1.4);  // keyless: the plaintext split
    same_bytes(keyed2, one.report);
    CHECK(keyed2 != keyless2);  // the keys did decrypt
    // The cap is split as the connections are, decrypting too.
    const auto [worker, reading] = cap_split_of_100(path, keyed);
    CHECK(worker + reading >= 100);
    CHECK(double(reading) == Approx(100 * sharding_detail::reading_thread_share(2, true)).margin(1.0));
    fs::remove(path);
    fs::remove(keys);
}

// The open-connection cap is split as the connections are: a worker thread's
// shard and the reading thread's get shares of it like their shares of the
// connections (an even split capped the worker, with about 70 % of the
// connections, at half the cap), and the warning says how it was split.
TEST_CASE("threads: the open-connection cap is split as the connections are", "[threads]") {
    std::string path = temp_path("cap-split");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 30000, st, error));
    const auto [worker, reading] = cap_split_of_100(path, {});
    CHECK(worker + reading >= 100);
    CHECK(worker + reading <= 101);  // each rounded up
    const double share = sharding_detail::reading_thread_share(2);
    CHECK(double(reading) == Approx(100 * share).margin(1.0));
    fs::remove(path);
}

// A worker that finds no batch waiting does the idle work it was given (the
// reader's work ahead: analyze_capture.cpp) before it sleeps: here, after
// the first batches, with the reading thread feeding nothing more.
TEST_CASE("threads: a worker waiting for segments does the idle work", "[threads]") {
    std::string path = temp_path("idle-work");
    cli::SyntheticStats st;
    std::string error;
    REQUIRE(cli::write_synthetic_capture(path, 20000, st, error));
    auto reader = PcapFileReader::open(path, error);
    REQUIRE(reader);
    std::atomic<int> calls{0};
    {
        ShardedAnalysis a(AnalysisOptions{}, path, 2);
        a.set_idle_work([&] { return ++calls < 3; });  // two steps of work, then nothing to do
        Frame f;
        for (int i = 0; i < 5000 && reader->next(f) == PcapFileReader::Status::Ok; ++i) a.on_frame(f);
        for (int waited = 0; waited < 10000 && calls.load() < 3; ++waited)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        CHECK(calls.load() >= 3);
        while (reader->next(f) == PcapFileReader::Status::Ok) a.on_frame(f);
        CHECK(a.finish().capture.packets == st.packets);
    }
    fs::remove(path);
}
