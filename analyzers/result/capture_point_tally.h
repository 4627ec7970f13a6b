#pragma once
// Where the whole capture was taken, from its connections' path positions
// (capture_point.h): the place most connections agree on, the medians of
// each side's round trip, and the evidence behind them, tallied a connection
// at a time. A result's: summarize_capture_point
// (analyzers/accounting/capture_point_summary.h).
#include "analyzers/result/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

struct CapturePointSummary {
    CapturePlace place = CapturePlace::Unknown;
    double client_side_ms = -1, server_side_ms = -1;   // medians over placed connections (-1: none)
    uint64_t connections = 0;                          // connections with both sides sampled
    uint64_t by_place[5] = {0, 0, 0, 0, 0};            // indexed by CapturePlace
    uint64_t from_handshake = 0;                       // of them, with a handshake sample
    uint64_t data_ack_pairs = 0;
    uint64_t by_ttl = 0;                               // connections placed by their TTLs alone
    int client_hops = -1, server_hops = -1;            // routers before the capture point, the most
                                                       // common pair over HTTP connections (-1: no TTLs)
    std::string evidence;                              // "the handshakes of 4 connections and 31 data/ACK pairs; TTLs: ..."
    std::string view;                                  // whose view the latencies are, one sentence
};

// Where the capture was taken, a connection at a time: for a reader that
// goes over the connections once for more than this (the text report: also
// its TLS lines), and for a spilled result, which tallies its connections
// as they are added so that a report need not read them twice
// (ResultSpill::capture_point). Keeps 16 bytes a placed connection.
class CapturePointTally {
public:
    void add(const Connection& c);
    CapturePointSummary done() const;

private:
    CapturePointSummary s_;
    std::vector<int64_t> client_, server_;
    std::map<std::pair<int, int>, uint64_t> hops_;  // (client, server) -> connections
};

} // namespace stallscope
