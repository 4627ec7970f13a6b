#include "app/wireshark/frame_marks.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace stallscope;
using stallscope::ws::FrameMarks;
using stallscope::ws::phase_of_frame;

namespace {

Phase phase(PhaseKind k, uint64_t from, uint64_t to) {
    Phase p;
    p.kind = k;
    p.start_frame = from;
    p.end_frame = to;
    p.start_ns = int64_t(from) * 1000;
    p.end_ns = int64_t(to) * 1000;
    return p;
}

std::string phase_str(const Call& c, uint64_t frame) {
    const char* p = phase_of_frame(c, frame);
    return p ? p : "(none)";
}

// connect 1..3, headers 4, body 4..8 (Nagle wait inside), server 8..10,
// response 10..12, close 12..14.
Call nagle_call() {
    Call c;
    c.id = 1;
    c.connection_id = 1;
    c.phases = {phase(PhaseKind::Connect, 1, 3),       phase(PhaseKind::RequestHeaders, 4, 4),
                phase(PhaseKind::RequestBody, 4, 8),   phase(PhaseKind::ServerTime, 8, 10),
                phase(PhaseKind::ResponseHeaders, 10, 10), phase(PhaseKind::ResponseBody, 10, 12),
                phase(PhaseKind::Close, 12, 14)};
    return c;
}

} // namespace

TEST_CASE("a frame on a phase boundary belongs to the phase it ends, unless that phase was a wait") {
    Call c = nagle_call();
    CHECK(phase_str(c, 1) == "connect");
    CHECK(phase_str(c, 3) == "connect");
    CHECK(phase_str(c, 4) == "request_headers");   // ends headers, starts body
    CHECK(phase_str(c, 6) == "request_body");
    CHECK(phase_str(c, 8) == "request_body");      // last body segment
    CHECK(phase_str(c, 9) == "server_time");       // an ACK while the server works
    CHECK(phase_str(c, 10) == "response_headers"); // ends the server_time wait
    CHECK(phase_str(c, 11) == "response_body");
    CHECK(phase_str(c, 12) == "response_body");
    CHECK(phase_str(c, 13) == "close");
    CHECK(phase_str(c, 15) == "(none)");
}

TEST_CASE("the frame that ends a 100-continue wait is request body") {
    Call c;
    c.phases = {phase(PhaseKind::RequestHeaders, 1, 1), phase(PhaseKind::ContinueWait, 1, 5),
                phase(PhaseKind::RequestBody, 5, 7)};
    CHECK(phase_str(c, 1) == "request_headers");
    CHECK(phase_str(c, 3) == "continue_wait");
    CHECK(phase_str(c, 5) == "request_body");
}

TEST_CASE("frames are marked with their call, connection, phase and findings") {
    AnalysisResult r;
    Call a = nagle_call();
    a.soap.operation = "getQuote";
    SegmentInfo ack;
    ack.frame = 6;
    a.segments.push_back(ack);
    Call b;
    b.id = 2;
    b.connection_id = 1;
    b.phases = {phase(PhaseKind::RequestHeaders, 20, 20), phase(PhaseKind::RequestBody, 20, 22)};
    b.request.frames = {20, 21, 22};
    r.calls = {a, b};
    Finding f;
    f.kind = "nagle_delayed_ack";
    f.connection_id = 1;
    f.calls = {1};
    f.frames = {4, 6, 8};
    Finding g;
    g.kind = "split_write";
    g.connection_id = 1;
    g.calls = {2};
    g.frames = {20, 21, 30};  // 30: evidence outside every call's frames
    r.findings = {f, g};

    FrameMarks marks(r);
    const auto* m6 = marks.at(6);
    REQUIRE(m6);
    CHECK(m6->call == 1);
    CHECK(std::strcmp(m6->phase, "request_body") == 0);
    CHECK(m6->findings == std::vector<uint32_t>{0});

    const auto* m9 = marks.at(9);  // only a phase's inner frame: not a known frame of the call
    CHECK(m9 == nullptr);

    const auto* m10 = marks.at(10);  // a phase boundary frame without findings
    REQUIRE(m10);
    CHECK(m10->call == 1);
    CHECK(m10->findings.empty());

    const auto* m21 = marks.at(21);
    REQUIRE(m21);
    CHECK(m21->call == 2);
    CHECK(m21->findings == std::vector<uint32_t>{1});

    const auto* m30 = marks.at(30);
    REQUIRE(m30);
    CHECK(m30->call == 2);
    CHECK(m30->connection == 1);
    CHECK(m30->phase == nullptr);
    CHECK(m30->findings == std::vector<uint32_t>{1});

    REQUIRE(marks.call(2));
    CHECK(marks.call(2)->request.frames.size() == 3);
    CHECK(marks.call(3) == nullptr);
    CHECK(marks.at(100) == nullptr);
}

TEST_CASE("a frame that is evidence of two findings lists both, once each") {
    AnalysisResult r;
    Finding f;
    f.kind = "split_write";
    f.frames = {5, 5, 7};
    Finding g;
    g.kind = "nagle_delayed_ack";
    g.frames = {5};
    r.findings = {f, g};
    FrameMarks marks(r);
    REQUIRE(marks.at(5));
    CHECK(marks.at(5)->findings == std::vector<uint32_t>{0, 1});
    CHECK(marks.at(5)->call == 0);
}
