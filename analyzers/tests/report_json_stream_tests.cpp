// The streamed JSON report against the nlohmann-tree renderer it replaced
// (report_json_reference.cpp): byte for byte the same for every bundled,
// hostile and public capture, and for random results full of hostile text
// and awkward numbers.
#include "analyzers/accounting/call_ledger.h"
#include "analyzers/pipeline/analyze_capture.h"
#include "analyzers/report/json_call_layout.h"
#include "analyzers/report/json_call_record.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"
#include "analyzers/spill/spill_file.h"
#include "analyzers/tests/capture_files.h"
#include "analyzers/tests/hostile_values.h"
#include "analyzers/tests/report_json_reference.h"

#include <catch2/catch.hpp>
#include "analyzers/tests/skip_when_absent.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

using test::awkward_double;
using test::captures_under;
using test::hostile_text;

// Every indent the reports are asked for (2 by default, compact for the
// GUI's copies) and some nobody asks for, to check the layout in general:
// up to 4 a call's element is written from fixed runs (json_call_layout.h),
// at 9 they do not fit and the general path writes it.
void check_same_report(const AnalysisResult& r) {
    for (int indent : {2, -1, 0, 3, 4, 9}) {
        INFO("indent " << indent);
        std::string expected = test::reference_report_json(r, indent);
        std::string got = report_json(r, indent);
        REQUIRE(got.size() == expected.size());
        REQUIRE(got == expected);
    }
}

void check_captures(const std::vector<std::string>& files, size_t spill_after) {
    for (auto& f : files) {
        INFO(f << ", spill after " << spill_after);
        AnalysisOptions o;
        o.spill_after_calls = spill_after;
        AnalyzeOutcome out = analyze_file(f, o);
        if (!out.ok) continue;  // not analysable: no report to compare
        check_same_report(out.result);
    }
}

// A result no capture would give, with every field set to something awkward:
// what the renderers must agree on is the layout and the values, not sense.
AnalysisResult random_result(std::mt19937_64& rng) {
    auto n = [&](uint64_t max) { return size_t(rng() % (max + 1)); };
    auto i64 = [&] { return int64_t(rng() >> n(63)) * (rng() % 2 ? 1 : -1); };
    AnalysisResult r;
    CaptureInfo& c = r.capture;
    c.file = hostile_text(rng);
    c.format = "pcap";
    c.packets = n(3);
    c.bytes = rng();
    for (size_t i = n(2); i > 0; --i) c.link_types.push_back(hostile_text(rng));
    c.first_ns = int64_t(rng() % 4'000'000'000'000'000'000ull);
    c.last_ns = c.first_ns + int64_t(n(1'000'000'000'000));
    // Times near the capture's (any order, before or after it), as an
    // analysis can produce: far-apart int64s would overflow differences.
    auto when = [&] { return c.first_ns + i64() % 4'000'000'000'000'000; };
    for (size_t i = n(3); i > 0; --i) c.warnings.push_back({WarningCode(rng() % 25), hostile_text(rng), n(2) * rng(), n(1) * rng(), n(1) * rng(), n(1) * rng()});
    c.truncated = n(1);
    for (size_t i = n(3); i > 0; --i) {
        Connection k;
        k.id = rng();
        k.client.addr = IpAddress::v4(reinterpret_cast<const uint8_t*>("\x0a\x00\x00\x01"));
        k.client.port = uint16_t(rng());
        uint8_t v6[16];
        for (auto& b : v6) b = uint8_t(rng());
        k.server.addr = IpAddress::v6(v6);
        k.saw_syn = n(1);
        if (n(1)) k.handshake_ms = awkward_double(rng);
        if (n(1)) k.client_mss = uint16_t(rng());
        if (n(1)) k.server_wscale = uint8_t(rng());
        k.packets = rng();
        k.calls = uint32_t(rng());
        k.rst = n(1);
        r.connections.push_back(k);
    }
    for (size_t i = n(4); i > 0; --i) {
        Call k;
        k.id = rng();
        k.method = hostile_text(rng);
        k.uri = hostile_text(rng);
        k.status = int(i64() % 1000);
        k.reason = hostile_text(rng);
        k.soap.operation = hostile_text(rng);
        k.soap.operation_ns = hostile_text(rng);
        k.soap.version = n(1) ? "1.1" : "";
        k.soap_action = hostile_text(rng);
        k.soap.fault = n(2) == 0;
        k.soap_response.fault = n(2) == 0;
        k.soap.fault_code = hostile_text(rng);
        k.soap_response.fault_string = hostile_text(rng);
        k.soap.error = n(2) == 0 ? hostile_text(rng) : "";
        k.soap_response.error = n(2) == 0 ? hostile_text(rng) : "";
        k.user_agent = hostile_text(rng);
        k.response_last_frame = n(1) * rng();
        k.start_ns = when();
        k.latency_ms = awkward_double(rng);
        k.complete = n(1);
        for (size_t j = n(3); j > 0; --j) k.request.write_sizes.push_back(uint32_t(rng()));
        k.response.missing_bytes = rng();
        for (size_t j = n(3); j > 0; --j)
            k.phases.push_back({PhaseKind(n(7)), when(), when(), rng(), rng()});
        for (size_t j = n(3); j > 0; --j) k.attribution.push_back({hostile_text(rng), awkward_double(rng)});
        k.setup_ms = n(1) ? -1 : awkward_double(rng);
        r.calls.push_back(k);
    }
    for (size_t i = n(4); i > 0; --i) {
        Finding f;
        f.kind = hostile_text(rng);
        f.side = n(1) ? Side::Client : Side::Server;
        for (size_t j = n(3); j > 0; --j) f.calls.push_back(rng());
        f.cost_ms = awkward_double(rng);
        f.explanation = hostile_text(rng);
        f.toolkit = n(1) ? hostile_text(rng) : "";
        f.start_ns = when();
        // Keys given twice keep their first place and last value.
        static const char* keys[] = {"write_sizes", "gap_ms", "write_sizes", "\xff", ""};
        for (size_t j = n(5); j > 0; --j) f.details.push_back({keys[n(4)], hostile_text(rng)});
        for (size_t j = n(2); j > 0; --j) f.intervals.push_back({when(), when()});
        f.counted_ms = awkward_double(rng);
        r.findings.push_back(f);
    }
    auto group = [&](SummaryGroup& g) {
        g.operation = n(1) ? hostile_text(rng) : "";
        g.latency.calls = n(2);
        g.latency.median_ms = awkward_double(rng);
        g.latency.total_ms = n(1) ? 0 : awkward_double(rng);
        for (size_t j = n(2); j > 0; --j) g.losses.push_back({hostile_text(rng), rng(), rng(), awkward_double(rng), awkward_double(rng), bool(n(1))});
        for (size_t j = n(2); j > 0; --j) g.attribution.push_back({hostile_text(rng), awkward_double(rng)});
        g.avoidable_ms = awkward_double(rng);
        for (size_t j = n(2); j > 0; --j)
            g.what_if.push_back({hostile_text(rng), hostile_text(rng), awkward_double(rng), awkward_double(rng), rng(), bool(n(1))});
    };
    group(r.summary.overall);
    for (size_t i = n(2); i > 0; --i) group(r.summary.per_operation.emplace_back());
    return r;
}

} // namespace

TEST_CASE("report json: streamed report equals the nlohmann-tree report for the bundled captures", "[json]") {
    std::vector<std::string> files = captures_under(STALLSCOPE_TESTDATA_DIR, true);
    REQUIRE(files.size() >= 100);  // testdata/, hostile/, http-parsing/
    check_captures(files, SIZE_MAX);
    check_captures(files, 0);  // every item read back from the spill file
}

TEST_CASE("report json: streamed report equals the nlohmann-tree report for the public captures", "[json]") {
    const char* env = std::getenv("STALLSCOPE_PUBLIC_CORPUS");
    fs::path dir = env && *env ? fs::path(env) : fs::path(STALLSCOPE_PUBLIC_CORPUS_DIR);
    std::vector<std::string> files = captures_under(dir, false);
    if (files.empty()) {
        STALLSCOPE_SKIP("public corpus " << dir.string() << " is absent (set STALLSCOPE_PUBLIC_CORPUS)");
    }
    check_captures(files, SIZE_MAX);
}

TEST_CASE("report json: streamed report equals the nlohmann-tree report for random hostile results", "[json]") {
    std::mt19937_64 rng(15);
    for (int i = 0; i < 2000; ++i) {
        INFO("random result " << i);
        check_same_report(random_result(rng));
    }
}

// The calls array made by workers in batches of 256 (json_calls.h): the same
// bytes as one thread, for results of 0 to several batches, every indent.
TEST_CASE("report json: the calls written on several threads are the same bytes as on one", "[json]") {
    std::mt19937_64 rng(26);
    size_t batches_seen = 0;
    for (size_t want : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(257), size_t(1300)}) {
        AnalysisResult r = random_result(rng);
        for (int guard = 0; r.calls.size() < want && guard < 100000; ++guard) {
            AnalysisResult more = random_result(rng);
            for (Call& c : more.calls) r.calls.push_back(std::move(c));
        }
        REQUIRE(r.calls.size() >= want);
        r.calls.resize(want);
        batches_seen += (want + 255) / 256;
        for (int indent : {2, -1, 0}) {
            std::ostringstream one;
            write_report_json(r, one, indent, 1);
            CHECK(one.str() == test::reference_report_json(r, indent));
            for (unsigned threads : {2u, 3u, 8u}) {
                INFO(want << " calls, indent " << indent << ", " << threads << " threads");
                std::ostringstream many;
                write_report_json(r, many, indent, threads);
                CHECK(many.str() == one.str());
            }
        }
    }
    CHECK(batches_seen > 8);
}

// analyze --json on one thread stores each spilled call as its JSON element
// (json_call_record.h); the report copies it out, writing in the times
// (relative to the capture's first frame, known only at the end) and the
// sampled element_count. The same bytes as from the binary records.
namespace {

// r with its connections, calls and findings moved to a spill file; the
// calls as `recorder` makes them when it is set.
AnalysisResult spilled_copy(const AnalysisResult& r, const std::function<std::string_view(const Call&)>& recorder) {
    std::string error;
    auto file = SpillFile::create("", error);
    REQUIRE(file);
    auto spill = std::make_shared<ResultSpill>(std::move(file));
    for (const Connection& c : r.connections) spill->add(c);
    for (const Call& c : r.calls) {
        if (!recorder) { spill->add(c); continue; }
        spill->add_call_record(c.id, recorder(c));
    }
    for (const Finding& f : r.findings) spill->add(f);
    spill->seal([](Finding&) {});
    AnalysisResult out;
    out.capture = r.capture;
    out.summary = r.summary;
    out.xml_sample_first = r.xml_sample_first;
    out.xml_sample_every = r.xml_sample_every;
    out.spill = spill;
    return out;
}

std::string json_of(const AnalysisResult& r, int indent) {
    std::ostringstream os;
    write_report_json(r, os, indent, 1);
    return os.str();
}

} // namespace

TEST_CASE("report json: calls stored as their JSON elements write the bytes of the binary records", "[json]") {
    std::mt19937_64 rng(2026);
    size_t measured_counts = 0, calls = 0;
    for (int i = 0; i < 300; ++i) {
        INFO("random result " << i);
        AnalysisResult r = random_result(rng);
        for (size_t k = rng() % 4; k > 0; --k) {  // a few more calls, ids made distinct
            AnalysisResult more = random_result(rng);
            for (Call& c : more.calls) r.calls.push_back(std::move(c));
        }
        for (size_t k = 0; k < r.calls.size(); ++k) r.calls[k].id = k + 1;
        // A small sample, so element_count is kept for some calls only (0, 0: every call).
        r.xml_sample_first = rng() % 3;
        r.xml_sample_every = rng() % 4;
        calls += r.calls.size();
        for (int indent : {2, -1, 0, 3}) {
            INFO("indent " << indent);
            AnalysisResult records = spilled_copy(r, json_call_recorder(indent));
            AnalysisResult binary = spilled_copy(r, nullptr);
            CHECK((r.calls.empty() || records.spill->calls_are_records()));
            // The first frame is known only when the capture ends: records never depend on it.
            records.capture.first_ns = binary.capture.first_ns = r.capture.first_ns + int64_t(rng() % 5'000'000'000);
            const std::string got = json_of(records, indent), want = json_of(binary, indent);
            REQUIRE(got.size() == want.size());
            REQUIRE(got == want);
            if (indent == 2)
                for (size_t at = got.find("\"element_count\": "); at != std::string::npos; at = got.find("\"element_count\": ", at + 1))
                    measured_counts += got[at + 17] != 'n';
        }
    }
    CHECK(calls > 500);
    CHECK(measured_counts > 50);  // the splice of element_count was exercised, not only its null
}

TEST_CASE("report json: calls stored as JSON elements are for that report only", "[json]") {
    std::mt19937_64 rng(7);
    AnalysisResult r;
    while (r.calls.empty()) r = random_result(rng);
    AnalysisResult records = spilled_copy(r, json_call_recorder(2));
    CHECK_THROWS_AS(for_each_call(records, [](const Call&) { return true; }), SpillError);
    Call c;
    CHECK_THROWS_AS(records.spill->call_at(0, c), SpillError);
    CHECK_THROWS_AS(report_json(records, -1), SpillError);  // made for indent 2
    CHECK_NOTHROW(report_json(records, 2));
}

// A record is written in the recorder's stream buffer and read there; one
// bigger than that buffer (64 KB) goes through a string, and a piece of text
// bigger than it is copied past the writer's buffer: both as the binary
// records report them. The view a recorder returns lasts until its next call.
TEST_CASE("report json: call records bigger than the stream's buffer report the same", "[json]") {
    std::mt19937_64 rng(11);
    AnalysisResult r;
    while (r.calls.size() < 3) r = random_result(rng);
    r.calls[0].uri = std::string(70'000, 'u') + "\"\n";  // past the buffer, escaped at its end
    r.calls[1].user_agent = std::string(200'000, 'a');
    r.calls[1].phases.push_back({PhaseKind::ResponseBody, r.capture.first_ns + 5, r.capture.first_ns + 9, 3, 4});
    for (int indent : {2, -1}) {
        INFO("indent " << indent);
        auto recorder = json_call_recorder(indent);
        const std::string first(recorder(r.calls[0]));
        CHECK(first.size() > 70'000);
        const std::string second(recorder(r.calls[2]));
        CHECK(std::string(recorder(r.calls[0])) == first);  // made again the same, from a clean buffer
        CHECK(second != first);
        AnalysisResult records = spilled_copy(r, json_call_recorder(indent));
        AnalysisResult binary = spilled_copy(r, nullptr);
        REQUIRE(records.spill->calls_are_records());
        const std::string got = json_of(records, indent), want = json_of(binary, indent);
        CHECK(got.find(std::string(200'000, 'a')) != std::string::npos);
        REQUIRE(got.size() == want.size());
        CHECK(got == want);
    }
}

// A damaged record is an error naming the spill file, never text out of range.
TEST_CASE("report json: a damaged call record is a spill error", "[json]") {
    std::mt19937_64 rng(13);
    AnalysisResult r;
    while (r.calls.empty()) r = random_result(rng);
    const std::string good(json_call_recorder(2, {0, 0})(r.calls[0]));  // a full text record
    auto report_of = [&](const std::string& record) {
        std::string error;
        auto file = SpillFile::create("", error);
        REQUIRE(file);
        auto spill = std::make_shared<ResultSpill>(std::move(file));
        spill->add_call_record(r.calls[0].id, record);
        spill->seal([](Finding&) {});
        AnalysisResult one;
        one.capture = r.capture;
        one.spill = spill;
        return json_of(one, 2);
    };
    CHECK_NOTHROW(report_of(good));
    auto with_u32_at = [&](size_t from_end, uint32_t v) {
        std::string bad = good;
        std::memcpy(bad.data() + bad.size() - from_end, &v, 4);
        return bad;
    };
    CHECK_THROWS_AS(report_of(good.substr(0, good.size() - 1)), SpillError);  // short
    CHECK_THROWS_AS(report_of(good + "x"), SpillError);                       // long
    CHECK_THROWS_AS(report_of(with_u32_at(4, 1u << 31)), SpillError);         // text length
    CHECK_THROWS_AS(report_of(with_u32_at(8, 1000)), SpillError);             // count of times
    CHECK_THROWS_AS(report_of(with_u32_at(12, 1000)), SpillError);            // element_count's index
    CHECK_THROWS_AS(report_of(with_u32_at(16, 3)), SpillError);               // element_count's place: no null
    CHECK_THROWS_AS(report_of(with_u32_at(16, 0xFFFFFFF0u)), SpillError);     // past the text
}

// analyze --json on one thread stores a call of a shape seen before as the
// id of that shape's first call and its values only (json_call_record.cpp):
// the same bytes as its full text record and as the binary record.
namespace {

// A record's kind (its first byte) and where its shape fields start.
constexpr uint8_t kFullRecord = 0x4A, kDefineRecord = 0x4B, kShapeRecord = 0x4C;
size_t record_head_size(const std::string& rec) {
    uint32_t op = 0;
    std::memcpy(&op, rec.data() + 23, 4);
    return 27 + op;
}

// c with its numbers moved (its shape unchanged): a call of the same shape.
// An ms value the recorder keeps in a call's shape, not its values: one that
// rounds to +0 ("0.0"; json_call_layout.cpp's ms_in_shape).
bool ms_zero(double ms) { return !std::signbit(ms) && ms * 1000.0 < 0.5; }

// Every frame of a call moved by the same amount, and every time: which
// frames, and which times, are equal stays (a frame or time equal to an
// earlier one is a reference in the call's shape). A null frame stays null.
void frames_moved(Call& k, uint64_t by) {
    for (uint64_t* f : {&k.request_first_frame, &k.request.first_frame, &k.request.last_frame,
                        &k.response.first_frame, &k.response.last_frame})
        *f += by;
    if (k.response_last_frame) k.response_last_frame += by;
    for (Phase& ph : k.phases) {
        ph.start_frame += by;
        ph.end_frame += by;
    }
}
void times_moved(Call& k, int64_t by) {
    auto move = [by](int64_t& t) { t = int64_t(uint64_t(t) + uint64_t(by)); };  // wraps as a frame does
    move(k.start_ns);
    move(k.end_ns);
    for (Phase& ph : k.phases) {
        move(ph.start_ns);
        move(ph.end_ns);
    }
}

// Which earlier frame, and which earlier time, each of a call's frames and
// times equals (json_call_layout.cpp's KeptValues, in write_call's order):
// part of its shape.
std::vector<int> ref_pattern(const Call& c) {
    std::vector<int> out;
    auto refs = [&out](const std::vector<uint64_t>& xs) {
        std::vector<uint64_t> kept;
        for (uint64_t x : xs) {
            const auto it = std::find(kept.begin(), kept.end(), x);
            if (it != kept.end()) out.push_back(int(it - kept.begin()));
            else if (kept.size() < CallSlot::kMaxKept) kept.push_back(x), out.push_back(-1);
            else out.push_back(-2);
        }
        out.push_back(-3);
    };
    std::vector<uint64_t> frames{c.request_first_frame};
    if (c.response_last_frame) frames.push_back(c.response_last_frame);
    for (const MessageInfo* m : {&c.request, &c.response}) {
        frames.push_back(m->first_frame);
        frames.push_back(m->last_frame);
    }
    std::vector<uint64_t> times{uint64_t(c.start_ns)};
    for (const Phase& ph : c.phases) {
        frames.push_back(ph.start_frame);
        frames.push_back(ph.end_frame);
        times.push_back(uint64_t(ph.start_ns));
    }
    refs(frames);
    refs(times);
    return out;
}

// The same shape with other numbers: only values the shape does not hold
// move (an ms value that rounds to +0 stays so, others stay off it; the
// status and the missing bytes stay; the frames, and the times, together).
Call numbers_moved(const Call& c, std::mt19937_64& rng) {
    Call k = c;
    k.index_on_connection += rng() % 7;
    frames_moved(k, rng() % 100000);
    k.response.header_bytes = rng() % 100000;
    for (uint32_t& w : k.request.write_sizes) w = uint32_t(rng());
    times_moved(k, int64_t(rng() % 1'000'000'000));
    if (k.complete) {
        Call m = k;
        m.latency_ms = double(rng() % 100000) / 7.0;
        if (ms_zero(m.latency_ms) == ms_zero(k.latency_ms) && ms_zero(client_ms(m)) == ms_zero(client_ms(k)))
            k.latency_ms = m.latency_ms;
    }
    for (auto& a : k.attribution) {
        const double ms = double(rng() % 1000) / 3.0;
        if (ms_zero(ms) == ms_zero(a.ms)) a.ms = ms;
    }
    k.soap.element_count = uint32_t(rng() % 50);
    return k;
}

// A random result of at least 4 calls, with `copies` more calls per call of
// the same shapes (numbers moved), shuffled if asked, ids made distinct.
AnalysisResult with_repeated_shapes(std::mt19937_64& rng, size_t copies, bool shuffled) {
    AnalysisResult r = random_result(rng);
    while (r.calls.size() < 4) {
        AnalysisResult more = random_result(rng);
        for (Call& c : more.calls) r.calls.push_back(std::move(c));
    }
    const size_t n = r.calls.size();
    for (size_t k = 0; k < copies * n; ++k) r.calls.push_back(numbers_moved(r.calls[rng() % n], rng));
    if (shuffled) std::shuffle(r.calls.begin(), r.calls.end(), rng);
    for (size_t k = 0; k < r.calls.size(); ++k) r.calls[k].id = k + 1;
    return r;
}

// A recorder that counts the kinds of record it makes.
struct CountingRecorder {
    std::function<std::string_view(const Call&)> rec;
    std::shared_ptr<std::array<size_t, 3>> kinds = std::make_shared<std::array<size_t, 3>>();
    std::function<std::string_view(const Call&)> fn() const {
        return [rec = rec, kinds = kinds](const Call& c) {
            std::string_view v = rec(c);
            REQUIRE(!v.empty());
            const uint8_t tag = uint8_t(v[0]);
            REQUIRE((tag == kFullRecord || tag == kDefineRecord || tag == kShapeRecord));
            ++(*kinds)[tag - kFullRecord];
            return v;
        };
    }
};

} // namespace

TEST_CASE("report json: calls stored as their shapes and values write the bytes of the full text records", "[json]") {
    std::mt19937_64 rng(2611);
    std::array<size_t, 3> kinds{};
    for (int i = 0; i < 120; ++i) {
        INFO("random result " << i);
        AnalysisResult r = random_result(rng);
        // Calls of the same shapes, with other numbers, in between.
        const size_t n = r.calls.size();
        for (size_t k = 0; k < 3 * n; ++k) r.calls.push_back(numbers_moved(r.calls[rng() % n], rng));
        std::shuffle(r.calls.begin(), r.calls.end(), rng);
        for (size_t k = 0; k < r.calls.size(); ++k) r.calls[k].id = k + 1;
        r.xml_sample_first = rng() % 3;
        r.xml_sample_every = rng() % 4;
        for (int indent : {2, -1, 0, 3}) {
            INFO("indent " << indent);
            CountingRecorder shapes{json_call_recorder(indent)};
            AnalysisResult by_shape = spilled_copy(r, shapes.fn());
            AnalysisResult full = spilled_copy(r, json_call_recorder(indent, {0, 0}));
            AnalysisResult binary = spilled_copy(r, nullptr);
            by_shape.capture.first_ns = full.capture.first_ns = binary.capture.first_ns =
                r.capture.first_ns + int64_t(rng() % 5'000'000'000);
            const std::string got = json_of(by_shape, indent), text = json_of(full, indent);
            REQUIRE(got.size() == text.size());
            REQUIRE(got == text);
            REQUIRE(got == json_of(binary, indent));
            for (size_t k = 0; k < 3; ++k) kinds[k] += (*shapes.kinds)[k];
        }
    }
    INFO("full " << kinds[0] << ", defining " << kinds[1] << ", of a known shape " << kinds[2]);
    CHECK(kinds[1] > 500);
    CHECK(kinds[2] >= 2 * kinds[1]);  // most calls repeat a shape
}

TEST_CASE("report json: a full shape table stores new shapes as text and reports the same", "[json]") {
    std::mt19937_64 rng(2612);
    std::array<size_t, 3> kinds{};
    for (int i = 0; i < 40; ++i) {
        AnalysisResult r = with_repeated_shapes(rng, 2, false);
        for (CallShapeLimits limits : {CallShapeLimits{2, size_t(1) << 20}, CallShapeLimits{100, 6000}}) {
            CountingRecorder shapes{json_call_recorder(2, limits)};
            AnalysisResult by_shape = spilled_copy(r, shapes.fn());
            AnalysisResult binary = spilled_copy(r, nullptr);
            REQUIRE(json_of(by_shape, 2) == json_of(binary, 2));
            CHECK((*shapes.kinds)[1] <= limits.shapes);
            for (size_t k = 0; k < 3; ++k) kinds[k] += (*shapes.kinds)[k];
        }
    }
    INFO("full " << kinds[0] << ", defining " << kinds[1] << ", of a known shape " << kinds[2]);
    CHECK(kinds[0] > 20);  // new shapes once the table was full
    CHECK(kinds[1] > 20);
    CHECK(kinds[2] > 20);
}

// With --threads N the reading thread settles each record in order (the
// whole-XML sample, the shapes' templates) and N workers write batches of
// them (json_call_record.h): the same bytes as one thread. Batches of 3
// records here, so that a few calls make many batches and a template
// defined in one batch is used in others.
namespace {
struct SmallRecordBatches {
    SmallRecordBatches() { json_record_detail::set_batch_records_for_test(3); }
    ~SmallRecordBatches() { json_record_detail::set_batch_records_for_test(0); }
};

std::string json_on(const AnalysisResult& r, int indent, unsigned threads) {
    std::ostringstream os;
    write_report_json(r, os, indent, threads);
    return os.str();
}
} // namespace

TEST_CASE("report json: call records written on several threads are the same bytes as on one", "[json]") {
    SmallRecordBatches small;
    std::mt19937_64 rng(2614);
    size_t calls = 0, measured = 0;
    for (int i = 0; i < 40; ++i) {
        INFO("random result " << i);
        AnalysisResult r = with_repeated_shapes(rng, 3, true);
        r.xml_sample_first = rng() % 3;
        r.xml_sample_every = rng() % 4;
        calls += r.calls.size();
        for (int indent : {2, -1}) {
            // By shape, and every call as its full text.
            for (CallShapeLimits limits : {CallShapeLimits{}, CallShapeLimits{0, 0}}) {
                INFO("indent " << indent << ", shapes " << limits.shapes);
                AnalysisResult records = spilled_copy(r, json_call_recorder(indent, limits));
                REQUIRE(records.spill->calls_are_records());
                const std::string one = json_on(records, indent, 1);
                REQUIRE(one == json_of(spilled_copy(r, nullptr), indent));
                for (size_t at = one.find("\"element_count\":"); at != std::string::npos;
                     at = one.find("\"element_count\":", at + 1))
                    measured += one.find("null", at) != at + 16 + (indent >= 0);
                for (unsigned threads : {2u, 3u, 8u}) {
                    INFO(threads << " threads");
                    const std::string many = json_on(records, indent, threads);
                    REQUIRE(many.size() == one.size());
                    CHECK(many == one);
                }
            }
        }
    }
    CHECK(calls > 300);    // many batches of 3
    CHECK(measured > 20);  // the sample settled in order kept some element_counts
}

// A damaged record fails on several threads as on one: the first bad call
// is the one named, whether its writer (a worker) or the reading thread
// finds it.
TEST_CASE("report json: a damaged call record fails on several threads as on one", "[json]") {
    SmallRecordBatches small;
    std::mt19937_64 rng(2615);
    AnalysisResult r;
    while (r.calls.empty()) r = random_result(rng);
    auto rec = json_call_recorder(2);
    std::vector<std::string> good;
    for (uint64_t id = 1; id <= 20; ++id) {
        Call c = numbers_moved(r.calls[0], rng);
        c.id = id;
        good.emplace_back(rec(c));
    }
    REQUIRE(int(uint8_t(good[1][0])) == int(kShapeRecord));
    auto error_of = [&](const std::vector<std::string>& records, unsigned threads) {
        std::string error;
        auto file = SpillFile::create("", error);
        REQUIRE(file);
        auto spill = std::make_shared<ResultSpill>(std::move(file));
        for (size_t k = 0; k < records.size(); ++k) spill->add_call_record(k + 1, records[k]);
        spill->seal([](Finding&) {});
        AnalysisResult all;
        all.capture = r.capture;
        all.spill = spill;
        try {
            json_on(all, 2, threads);
        } catch (const SpillError& e) {
            const std::string what = e.what();
            return what.substr(what.find(": call record"));  // the spill file's name differs
        }
        return std::string("no error");
    };
    REQUIRE(error_of(good, 1) == "no error");
    REQUIRE(error_of(good, 3) == "no error");
    std::vector<std::string> cut = good, both;
    cut[13].pop_back();  // its values cut short: found writing it
    both = cut;
    both[16][0] = 'x';   // not a record: found reading it
    std::vector<std::string> head_only = good;
    head_only[7][0] = 'x';
    for (const auto* records : {&cut, &both, &head_only}) {
        const std::string one = error_of(*records, 1);
        CHECK(one != "no error");
        for (unsigned threads : {2u, 3u})
            CHECK(error_of(*records, threads) == one);
    }
    CHECK(error_of(both, 2).find("call record 14 ") != std::string::npos);
    CHECK(error_of(head_only, 2).find("call record 8 ") != std::string::npos);
}

TEST_CASE("report json: calls whose shapes differ in one string byte or one run are not merged", "[json]") {
    Call a;
    a.id = 1;
    a.connection_id = 1;
    a.method = "POST";
    a.uri = "/svc/Orders";
    a.http_version = "HTTP/1.1";
    a.status = 200;
    a.reason = "OK";
    a.user_agent = "agent/1.0";
    a.server = "srv";
    a.request.write_sizes = {100, 200};
    a.complete = true;
    a.latency_ms = 12.5;
    a.phases.push_back({PhaseKind::ResponseBody, 1000, 5000, 3, 4});
    a.attribution.push_back({"server", 2.5});
    std::vector<Call> calls{a};
    auto variant = [&](auto change) {
        Call k = a;
        change(k);
        k.id = calls.size() + 1;
        calls.push_back(k);
    };
    variant([](Call& k) { k.user_agent[6] = '2'; });             // one string byte
    variant([](Call& k) { k.request.write_sizes.push_back(7); });  // one more write size: one more run
    variant([](Call& k) {                                          // a fault object instead of null
        k.soap_response.fault = true;
        k.soap_response.fault_code = "soap:Server";
    });
    variant([](Call& k) { k.status = 0; });                       // null instead of a number
    variant([](Call& k) { k.soap.operation = "a"; });             // a string instead of null
    variant([](Call& k) { k.attribution[0].cause = "serves"; });  // same length, one byte
    variant([](Call& k) { k.expect_continue = true; });           // true instead of false
    variant([](Call& k) { k.uri = "/svc/Orders\n"; });            // a byte that is escaped
    const size_t distinct = calls.size();
    variant([](Call& k) {  // numbers only (not one the shape holds): the same shape as a
        k.request.write_sizes = {1, 123456};
        k.latency_ms = 99.25;
        k.phases[0].start_ns = 77;
    });
    AnalysisResult r;
    r.calls = calls;
    CountingRecorder shapes{json_call_recorder(2)};
    std::vector<uint8_t> tags;
    auto fn = shapes.fn();
    for (const Call& c : calls) tags.push_back(uint8_t(fn(c)[0]));
    for (size_t i = 0; i < distinct; ++i) CHECK(int(tags[i]) == int(kDefineRecord));
    CHECK(int(tags[distinct]) == int(kShapeRecord));
    AnalysisResult by_shape = spilled_copy(r, json_call_recorder(2)), binary = spilled_copy(r, nullptr);
    const std::string got = json_of(by_shape, 2);
    CHECK(got == json_of(binary, 2));
    CHECK(got.find("\"user_agent\": \"agent/2.0\"") != std::string::npos);
    CHECK(got.find("\"code\": \"soap:Server\"") != std::string::npos);
}

// A shape longer than the tape's first buffers (4 KB of shape, 1 KB of
// values): thousands of write sizes, each a run and a value; one longer
// than 16 KB is stored as text.
TEST_CASE("report json: calls of long shapes stored by shape report the same", "[json]") {
    std::mt19937_64 rng(2614);
    AnalysisResult r;
    while (r.calls.empty()) r = random_result(rng);
    Call base = r.calls[0];
    r.calls.clear();
    for (size_t sizes : {size_t(0), size_t(1), size_t(3000), size_t(7000)}) {
        Call c = base;
        c.request.write_sizes.assign(sizes, 1460);
        c.response.write_sizes.assign(sizes / 2, 7);
        r.calls.push_back(c);
        for (int k = 0; k < 2; ++k) r.calls.push_back(numbers_moved(c, rng));
    }
    for (size_t k = 0; k < r.calls.size(); ++k) r.calls[k].id = k + 1;
    CountingRecorder shapes{json_call_recorder(2)};
    AnalysisResult by_shape = spilled_copy(r, shapes.fn()), binary = spilled_copy(r, nullptr);
    CHECK(json_of(by_shape, 2) == json_of(binary, 2));
    CHECK((*shapes.kinds)[1] == 3);  // one template per length up to 3,000 sizes (a 9 KB shape)
    CHECK((*shapes.kinds)[2] == 6);
    CHECK((*shapes.kinds)[0] == 3);  // 7,000 sizes: a shape over 16 KB, stored as text
}

// The tape holds an integer >= 0 and a rounded ms value raw (1 to 8 bytes,
// formatted by the report) and any other number as its text, in the same
// shape: every byte count, the ms range's edges, -0.0, a negative status,
// ms values past 2^32 / 1000 or not finite. Fails when a count's mask, the
// ms sign or a fallback is wrong.
TEST_CASE("report json: raw integers and ms values of every size and their text fallback report the same", "[json]") {
    Call base;
    base.method = "POST";
    base.uri = "/svc";
    base.http_version = "HTTP/1.1";
    base.complete = true;
    base.status = 200;
    base.request.write_sizes = {1, 2};
    base.phases.push_back({PhaseKind::ResponseBody, 1'000'000, 2'500'000, 3, 4});
    base.attribution.push_back({"server", 1.5});
    const uint64_t ints[] = {0, 9, 255, 256, 65535, 65536, 1ULL << 24, 0xFFFFFFFFULL, 1ULL << 32, 1ULL << 40,
                             1ULL << 48, 1ULL << 56, ~0ULL};
    const double ms[] = {0.0, -0.0, 0.0004, 0.0005, -0.0005, 7.0, 40.3349, -12.25, 4294967.2954, 4294967.2955,
                         -4294967.2955, 1e9, -1e12, 1.0 / 3.0, std::nan(""), HUGE_VAL};
    const int statuses[] = {200, 0, -1, -2147483647 - 1, 2147483647};
    AnalysisResult r;
    r.capture.first_ns = 1'000'000;
    for (size_t i = 0; i < 40; ++i) {
        Call c = base;
        c.id = i + 1;
        const uint64_t n = ints[i % std::size(ints)];
        c.connection_id = n;
        c.request.first_frame = c.request_first_frame = n;
        c.response.body_bytes = ints[(i + 5) % std::size(ints)];
        c.request.write_sizes[1] = uint32_t(n);
        c.status = statuses[i % std::size(statuses)];
        if (!c.status) c.status = 1;  // 0 is a null: another shape
        c.latency_ms = ms[i % std::size(ms)];
        c.attribution[0].ms = ms[(i + 3) % std::size(ms)];
        c.setup_ms = std::fabs(ms[(i + 7) % std::size(ms)]);
        r.calls.push_back(c);
    }
    // The shapes: what the shape holds (a status >= 0, each ms value that
    // rounds to +0, setup_ms NaN as null, which frames are equal), nothing else.
    std::set<std::vector<double>> held;
    for (const Call& c : r.calls) {
        std::vector<double> key{c.status >= 0 ? double(c.status) : -1.0, double(ms_zero(c.latency_ms)),
                                double(ms_zero(c.attribution[0].ms)), double(c.setup_ms >= 0 ? ms_zero(c.setup_ms) : 2),
                                double(ms_zero(client_ms(c)))};
        for (int ref : ref_pattern(c)) key.push_back(ref);
        held.insert(key);
    }
    CountingRecorder shapes{json_call_recorder(2)};
    AnalysisResult by_shape = spilled_copy(r, shapes.fn()), binary = spilled_copy(r, nullptr);
    CHECK(json_of(by_shape, 2) == json_of(binary, 2));
    CHECK((*shapes.kinds)[1] == held.size());
    CHECK((*shapes.kinds)[2] == r.calls.size() - held.size());  // the others by their values only, raw or text
    CHECK((*shapes.kinds)[0] == 0);
}

// A call's tape is made room for once, from the call (json_call_layout.cpp,
// TapeOut): its strings' bytes and a bound on its items. Calls at the bound's
// edges: every string long, no phases and causes or hundreds, every number
// as text (negative, not finite, huge), no write sizes or thousands. Each
// reports the same bytes as its binary record (the tape aborts past its room).
TEST_CASE("report json: a call's tape has room for long strings and many text values", "[json]") {
    AnalysisResult r;
    r.capture.first_ns = 5;
    for (size_t i = 0; i < 8; ++i) {
        Call c;
        c.id = i + 1;
        c.complete = true;
        const std::string big(i % 2 ? 20000 : 300, char('a' + i));
        for (std::string* f : {&c.method, &c.uri, &c.http_version, &c.reason, &c.soap_action, &c.user_agent, &c.server,
                               &c.soap.operation, &c.soap.operation_ns, &c.soap.version, &c.soap_response.fault_code,
                               &c.soap_response.fault_string, &c.soap.error})
            *f = big;
        c.soap_response.fault = true;
        c.status = -1 - int(i);
        c.latency_ms = i % 2 ? std::nan("") : -1e300;
        c.setup_ms = 1e300;
        c.client_path_ms = 1e300;
        c.start_ns = -(int64_t(1) << 62) + int64_t(i);
        c.request.write_sizes.assign(i < 4 ? 0 : 3000, 7);
        for (size_t k = 0; k < (i < 2 ? 0 : 300); ++k) {
            const int64_t at = int64_t(k * 1'000'003) * (k % 2 ? 1 : -1) * (int64_t(1) << 20);
            c.phases.push_back({PhaseKind(k % 8), at, -at, k, k + 1});
            c.attribution.push_back({big.substr(0, k), k % 3 ? -1e300 : std::nan("")});
        }
        r.calls.push_back(c);
    }
    r.calls.push_back(r.calls[0]);  // a known shape
    r.calls.back().id = 9;
    AnalysisResult by_shape = spilled_copy(r, json_call_recorder(2)), binary = spilled_copy(r, nullptr);
    CHECK(json_of(by_shape, 2) == json_of(binary, 2));
}

// A tape's shape holds a run's id only where the element branches (a choice,
// a loop, something present or not): the others are decided by the tags
// before them (json_call_layout.cpp, write_call), and a call's element has
// about 105 runs. Fails when every run is tagged. The shapes stay exact: the
// random and hostile calls above, and the bundled captures below, report the
// same bytes through their shapes.
TEST_CASE("report json: a call's shape leaves out the runs its branches decide", "[json]") {
    Call c;
    c.complete = true;
    c.request.write_sizes = {1};
    c.response.write_sizes = {2};
    for (PhaseKind k : {PhaseKind::RequestHeaders, PhaseKind::RequestBody, PhaseKind::ServerTime,
                        PhaseKind::ResponseHeaders, PhaseKind::ResponseBody})
        c.phases.push_back({k, 0, 0, 1, 1});
    c.attribution.push_back({"", 1.0});
    CallTape t;
    REQUIRE(call_json_tape(2, 2, c, t));
    // 149 bytes; 231 with every run tagged (the keys, a message's, a phase's,
    // a cause's and the closing runs: 82 more).
    CHECK(t.shape.n < 160);
}

// Values nearly every call of a shape has the same are held in the shape,
// not recorded and formatted each call (json_call_layout.cpp): a status, a
// message's segments and missing bytes, an ms value that rounds to +0. So a
// call with another of them is another shape; one whose other numbers moved
// is not. Fails when a held value is left out of the shape (two calls with
// different texts would share a template).
TEST_CASE("report json: a status, segments, missing bytes and ms values of 0.0 are held in a call's shape", "[json]") {
    Call a;
    a.id = 1;
    a.method = "POST";
    a.uri = "/svc";
    a.http_version = "HTTP/1.1";
    a.status = 200;
    a.complete = true;
    a.latency_ms = 3.25;
    a.request.write_sizes = {100, 200};
    a.response.write_sizes = {300};
    a.phases.push_back({PhaseKind::RequestBody, 1'000'000, 1'000'000, 3, 3});  // 0.0 ms
    a.phases.push_back({PhaseKind::ServerTime, 1'000'000, 4'250'000, 3, 5});
    a.attribution.push_back({"server", 3.25});
    a.attribution.push_back({"response_transfer", 0.0});
    std::vector<Call> calls{a};
    std::vector<uint8_t> want{kDefineRecord};
    auto variant = [&](uint8_t tag, auto change) {
        Call k = a;
        change(k);
        k.id = calls.size() + 1;
        calls.push_back(k);
        want.push_back(tag);
    };
    variant(kShapeRecord, [](Call& k) {  // other numbers: the same shape
        frames_moved(k, 70000);
        k.latency_ms = 12.5;
        k.attribution[0].ms = 12.5;
        k.phases[1].end_ns = 9'000'000;
        k.request.write_sizes = {7, 123456};
    });
    variant(kShapeRecord, [](Call& k) { k.attribution[1].ms = 0.0004; });  // "0.0" too
    variant(kDefineRecord, [](Call& k) { k.status = 500; });
    variant(kDefineRecord, [](Call& k) { k.response.missing_bytes = 7; });
    variant(kDefineRecord, [](Call& k) { k.request.missing_bytes = 1ULL << 40; });
    variant(kDefineRecord, [](Call& k) { k.attribution[1].ms = 0.0005; });  // "0.001"
    variant(kShapeRecord, [](Call& k) { k.attribution[1].ms = -0.0; });     // "-0.0": a value, as the one before
    variant(kDefineRecord, [](Call& k) { k.phases[0].end_ns += 1'000; });   // "0.001"
    variant(kDefineRecord, [](Call& k) { k.latency_ms = 0.0; });
    variant(kShapeRecord, [](Call& k) { k.latency_ms = 0.0001; });  // the one before's shape
    variant(kDefineRecord, [](Call& k) { k.status = -3; });          // a value: not held
    variant(kShapeRecord, [](Call& k) { k.status = -40000; });
    variant(kShapeRecord, [](Call& k) { k.status = 500; });          // the 500 above
    AnalysisResult r;
    r.capture.first_ns = 1'000'000;
    r.calls = calls;
    auto rec = json_call_recorder(2);
    for (size_t i = 0; i < calls.size(); ++i) {
        INFO("call " << i + 1);
        CHECK(int(uint8_t(rec(calls[i])[0])) == int(want[i]));
    }
    AnalysisResult by_shape = spilled_copy(r, json_call_recorder(2)), binary = spilled_copy(r, nullptr);
    const std::string got = json_of(by_shape, 2);
    CHECK(got == json_of(binary, 2));
    CHECK(got.find("\"status\": 500") != std::string::npos);
    CHECK(got.find("\"missing_bytes\": 1099511627776") != std::string::npos);
}

// A frame or time equal to an earlier one of the call is a reference in the
// shape, its text copied from that one's (json_call_layout.cpp, KeptValues;
// json_call_record.cpp): equal in all 64 bits only, never across calls; the
// calls with the same equal frames and times share a shape.
TEST_CASE("report json: a call's repeated frames and times are written as when formatted", "[json]") {
    const uint64_t frames[] = {70000, 70000 + 256, 70000 + (1ULL << 32), 9999, 10000, 70000, 12345678,
                               123456789, 123456789 + (1ULL << 40)};
    const int64_t starts[] = {5'000'000, 5'000'000 + (int64_t(1) << 32), 5'000'001, 4'000'000, 5'000'000,
                              int64_t(1) << 62, -(int64_t(1) << 62)};
    std::mt19937_64 rng(2614);
    AnalysisResult r;
    r.capture.first_ns = 1'000'000;
    for (size_t i = 0; i < 300; ++i) {
        Call c;
        c.id = i + 1;
        c.method = "POST";
        c.uri = "/svc";
        c.http_version = "HTTP/1.1";
        c.complete = true;
        c.status = 200;
        c.start_ns = starts[rng() % std::size(starts)];
        c.request.first_frame = c.request_first_frame = frames[rng() % std::size(frames)];
        c.request.last_frame = rng() % 2 ? c.request.first_frame : frames[rng() % std::size(frames)];
        c.response.first_frame = frames[rng() % std::size(frames)];
        c.response.last_frame = c.response_last_frame = frames[rng() % std::size(frames)];
        for (PhaseKind k : {PhaseKind::RequestHeaders, PhaseKind::RequestBody, PhaseKind::ServerTime}) {
            const int64_t at = rng() % 2 ? c.start_ns : starts[rng() % std::size(starts)];
            c.phases.push_back({k, at, at, frames[rng() % std::size(frames)], frames[rng() % std::size(frames)]});
        }
        r.calls.push_back(c);
    }
    for (size_t i = 0; i < 300; ++i) {  // the same equal frames and times, other values
        Call c = r.calls[i];
        frames_moved(c, (1ULL << 32) + 256);
        times_moved(c, int64_t(1) << 20);
        c.id = r.calls.size() + 1;
        r.calls.push_back(c);
    }
    std::set<std::vector<int>> patterns;
    for (const Call& c : r.calls) patterns.insert(ref_pattern(c));
    CountingRecorder shapes{json_call_recorder(2)};
    AnalysisResult by_shape = spilled_copy(r, shapes.fn()), binary = spilled_copy(r, nullptr);
    CHECK(json_of(by_shape, 2) == json_of(binary, 2));
    CHECK((*shapes.kinds)[1] == patterns.size());  // a shape for each pattern of equal frames and times
    CHECK((*shapes.kinds)[2] == r.calls.size() - patterns.size());
    CHECK(patterns.size() <= 300);
}

TEST_CASE("report json: a damaged shape id or value tape is a spill error naming the spill file", "[json]") {
    std::mt19937_64 rng(2613);
    AnalysisResult r;
    while (r.calls.empty()) r = random_result(rng);
    Call first = r.calls[0], second = numbers_moved(first, rng);
    first.id = 1;
    second.id = 2;
    auto rec = json_call_recorder(2);
    const std::string define(rec(first)), shaped(rec(second));
    REQUIRE(int(uint8_t(define[0])) == int(kDefineRecord));
    REQUIRE(int(uint8_t(shaped[0])) == int(kShapeRecord));
    std::string dir;
    auto report_of = [&](const std::string& d, const std::string& s) {
        std::string error;
        auto file = SpillFile::create("", error);
        REQUIRE(file);
        auto spill = std::make_shared<ResultSpill>(std::move(file));
        dir = spill->dir();
        spill->add_call_record(2, s);  // in the order a call finishes: the shape's first call may come later
        spill->add_call_record(1, d);
        spill->seal([](Finding&) {});
        AnalysisResult one;
        one.capture = r.capture;
        one.spill = spill;
        return json_of(one, 2);
    };
    AnalysisResult two;
    two.capture = r.capture;
    two.calls = {first, second};
    REQUIRE(report_of(define, shaped) == json_of(spilled_copy(two, nullptr), 2));
    const size_t h = record_head_size(shaped);
    auto with = [](std::string s, size_t at, auto v) {
        std::memcpy(s.data() + at, &v, sizeof v);
        return s;
    };
    auto fails = [&](const std::string& d, const std::string& s) {
        try {
            report_of(d, s);
        } catch (const SpillError& e) {
            CHECK(std::string(e.what()).find(dir) != std::string::npos);
            return true;
        }
        return false;
    };
    CHECK(fails(define, with(shaped, h, uint32_t(1))));        // shape id
    CHECK(fails(define, with(shaped, h + 4, uint64_t(2))));    // the shape's first call: itself
    CHECK(fails(define, with(shaped, h + 4, uint64_t(99))));   // no such call
    CHECK(fails(define, with(shaped, h + 12, uint64_t(5))));   // another recorder's
    CHECK(fails(define, shaped.substr(0, shaped.size() - 1)));  // values cut short
    CHECK(fails(define, shaped + "7"));                         // a value too many
    CHECK(fails(define, shaped.substr(0, h + 20)));             // no values
    CHECK(fails(define, with(shaped, h + 20, uint8_t(200))));  // a value's length
    CHECK(fails(define, with(shaped, h + 20, uint8_t(0))));    // a raw value of no bytes
    CHECK(fails(define, with(shaped, h + 20, uint8_t(9))));    // of 9 bytes
    CHECK(fails(define, with(shaped, h + 20, uint8_t(0x80 | 65))));  // a text longer than any number
    // The values' zero pad (CallTape::kValuePad), which a number read past them meets: not zero.
    CHECK(fails(define, with(shaped, shaped.size() - CallTape::kValuePad, uint8_t(1))));
    CHECK(fails(define, with(shaped, shaped.size() - 1, uint8_t(0x80))));
    CHECK(fails(with(define, record_head_size(define), uint32_t(3)), shaped));  // the definition's shape id
    CHECK(fails(define.substr(0, define.size() - 1), shaped));  // the definition's values
    // The definition's template: its first cut past its text.
    CHECK(fails(with(define, record_head_size(define) + 24, uint32_t(1) << 30), shaped));
    // Its first value's kind: a reference to a frame or time not kept yet, no kind.
    const size_t first_kind = record_head_size(define) + 32;  // shape id, call, nonce, counts, first cut
    CHECK(fails(with(define, first_kind, uint8_t(CallSlot::FrameRef)), shaped));
    CHECK(fails(with(define, first_kind, uint8_t(CallSlot::TimeRef | 3 << 4)), shaped));
    CHECK(fails(with(define, first_kind, uint8_t(CallSlot::TimeRef + 1)), shaped));
    CHECK(fails(with(define, first_kind, uint8_t(CallSlot::Uint | 1 << 4)), shaped));
}

TEST_CASE("report json: bundled captures analysed with calls stored as JSON elements report the same", "[json]") {
    std::vector<std::string> files = captures_under(STALLSCOPE_TESTDATA_DIR, true);
    REQUIRE(files.size() >= 100);
    size_t with_records = 0;
    for (auto& f : files) {
        for (size_t spill_after : {size_t(0), size_t(3)}) {  // from the first call, and after some in memory
            INFO(f << ", spill after " << spill_after);
            AnalysisOptions o;
            o.spill_after_calls = spill_after;
            AnalyzeOutcome binary = analyze_file(f, o);
            o.spill_call_as = json_call_recorder(2);
            AnalyzeOutcome records = analyze_file(f, o);
            REQUIRE(binary.ok == records.ok);
            if (!binary.ok) continue;
            with_records += records.result.spill && records.result.spill->calls_are_records();
            CHECK(report_json(records.result, 2) == report_json(binary.result, 2));
        }
    }
    CHECK(with_records > 50);
}

// Which path writes a call's element: the fixed runs where they fit (every
// indent up to 4 inside a report's "calls"), the general one elsewhere; the
// tests above compare both with the reference report.
TEST_CASE("report json: a call's element from fixed runs where they fit, else the general path", "[json]") {
    Call c;
    c.id = 7;
    c.phases.push_back({PhaseKind::ResponseBody, 1, 2, 3, 4});
    for (int indent : {-1, 0, 1, 2, 3, 4, 9}) {
        std::ostringstream os;
        JsonStream w(os, indent);
        w.begin_object().key("calls").begin_array();
        INFO("indent " << indent);
        CHECK(call_json_layout(w, c, 0, false, nullptr) == (indent <= 4));
    }
    std::ostringstream os;
    JsonStream w(os, 2);
    CHECK_FALSE(call_json_layout(w, c, 0, false, nullptr));  // not inside an array
}

// The layout writes enum names (phase_name, place_name) without the escape
// scan: each must be plain ASCII that needs no escape.
TEST_CASE("report json: the names written without the escape scan need none", "[json]") {
    auto plain = [](const char* s) {
        const std::string_view v(s);
        return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
    };
    for (int k = 0; k < 256; ++k) {
        INFO(k);
        CHECK(plain(phase_name(PhaseKind(k))));
        CHECK(plain(place_name(CapturePlace(k))));
    }
}
