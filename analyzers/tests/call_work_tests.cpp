// CallWork: the detectors that need a call and its connection alone
// (Detector::call_alone) and the ledger over their findings, which a sharded
// analysis runs on its workers. What it finds on a call must not depend on
// the calls before it, or on which thread (which detector instances) ran it;
// the detectors that keep state make no finding in on_call.
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/pipeline/call_work.h"
#include "analyzers/tests/capture_files.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

// What CallWork leaves on a call and its findings, as text: compared whole.
std::string worked(const Call& call, const std::vector<Finding>& findings) {
    std::string s;
    for (const TimeShare& t : call.attribution) s += t.cause + "=" + std::to_string(t.ms) + ";";
    for (const FixSaving& f : call.savings) s += f.kind + "/" + side_name(f.side) + "=" + std::to_string(f.ms) + ";";
    s += "view " + std::to_string(int(call.view)) + " " + std::to_string(call.client_path_ms) + " " +
         std::to_string(call.setup_ms) + "\n";
    for (const Finding& f : findings) {
        s += f.kind + " " + side_name(f.side) + " " + std::to_string(f.cost_ms) + " " + std::to_string(f.counted_ms) +
             " " + f.explanation + " | " + f.cost_method + " |";
        for (const auto& [k, v] : f.details) s += " " + k + "=" + v;
        s += "\n";
    }
    return s;
}

} // namespace

TEST_CASE("call work: the detectors run apart from the merge are the ones that keep nothing", "[detectors]") {
    std::set<std::string> alone;
    for (const auto& d : make_detectors())
        if (d->call_alone()) alone.insert(d->kind());
    // A detector added to the list keeps state until it says otherwise.
    CHECK(alone == std::set<std::string>{"nagle_delayed_ack", "split_write", "expect_100_wait", "server_time",
                                         "retransmission", "tls_nagle_delayed_ack", "tls_split_write",
                                         "tls_ticket_stall"});
}

TEST_CASE("call work: a call's findings and ledger do not depend on the calls before it", "[detectors][captures]") {
    size_t calls = 0, with_findings = 0;
    for (const std::string& path : test::bundled_captures(STALLSCOPE_TESTDATA_DIR)) {
        INFO(path);
        AnalysisOptions opt;
        opt.keep_segments = true;  // the calls with their segments, as CallWork sees them
        AnalyzeOutcome o = analyze_file(path, opt);
        REQUIRE(o.ok);
        std::map<uint64_t, const Connection*> conn;
        for (const Connection& c : o.result.connections) conn[c.id] = &c;
        // One set of detectors sees every call in turn (a worker's), the
        // other each call fresh; the keeping ones see every call too.
        const auto seasoned = make_detectors(), keeping = make_detectors();
        const CallWork in_turn(seasoned);
        for (const Call& c : o.result.calls) {
            INFO("call " << c.id);
            REQUIRE(conn.count(c.connection_id));
            const Connection& on = *conn[c.connection_id];
            Call a = c, b = c;
            std::vector<Finding> fa, fb;
            in_turn.run(a, on, fa);
            const auto fresh = make_detectors();
            CallWork(fresh).run(b, on, fb);
            CHECK(worked(a, fa) == worked(b, fb));
            ++calls;
            with_findings += !fa.empty();
            std::vector<Finding> none;
            const CallScan scan(c, on);
            for (const auto& d : keeping)
                if (!d->call_alone()) d->on_call(c, on, scan, none);
            CHECK(none.empty());
        }
    }
    CHECK(calls > 100);
    CHECK(with_findings > 10);
}
