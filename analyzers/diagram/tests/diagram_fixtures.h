#pragma once
// Hand-built segment sequences and results shaped like the seed's figures.
#include "analyzers/result/model.h"

#include <string>
#include <vector>

namespace stallscope::test {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = 1'700'000'000LL * 1'000'000'000LL;  // an epoch time, like a capture

SegmentInfo seg(uint64_t frame, double t_ms, Side from, uint8_t flags, uint32_t len = 0, uint16_t carries = 0);

// Seed Fig. 2 (Apache SOAP): handshake, request headers, the server's delayed
// ACK 40 ms later, the body right after it, the response, the close.
std::vector<SegmentInfo> fig2_segments();
Finding fig2_nagle_finding();   // frames 4, 5, 6; [t(4), t(6)]
Finding fig2_split_finding();   // zero-length: evidence only

// Seed Fig. 3 (MS SOAP Toolkit): request in one packet, 100 Continue, the
// client's delayed ACK, then the response the server held back.
std::vector<SegmentInfo> fig3_segments();
Finding fig3_nagle_finding();

// n segments of a bulk exchange: request, then alternating data / ACKs.
std::vector<SegmentInfo> many_segments(size_t n, int64_t start_ns = kT0);

// A result with `calls` calls on `connections` connections, each call with
// phases, the Fig. 2 segments shifted in time, and one Nagle finding per call.
AnalysisResult sample_result(size_t calls, size_t connections, const std::string& operation = "doNothing");

} // namespace stallscope::test
