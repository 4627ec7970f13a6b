// TlsKeylessCalls on its own: application-data records fed straight in
// (TLS 1.2, no keys), calls cut where the client speaks after an answer.
#include "analyzers/calls/tls_keyless_calls.h"
#include "analyzers/tests/counting_host.h"
#include "dissectors/tls/tls_record.h"

#include <catch2/catch.hpp>

using namespace stallscope;

namespace {

struct Keyless {
    SegmentStore segs{1000};
    testing::CountingHost host;
    AnalysisOptions opt;
    ExchangeTracker tracker{1, segs, host, opt};
    TlsSession session{segs, host, tracker, nullptr};
    TlsKeylessCalls calls{1, segs, host, session};
    int64_t t_ns = 0;

    // One application-data record of `len` bytes in a segment of its own.
    void record(Side from, uint16_t len) {
        SegmentInfo s;
        s.frame = segs.end_index() + 1;
        s.ts_ns = (t_ns += 1'000'000);
        s.from = from;
        s.len = len + tls::kHeaderBytes;
        const uint64_t seg = segs.push(s);
        TlsRecordEvent r;
        r.type = tls::kApplicationData;
        r.length = len;
        r.encrypted = true;
        r.first_seg = r.last_seg = seg;
        calls.on_tls_record(from, r);
    }
};

} // namespace

TEST_CASE("TlsKeylessCalls: release_spare on a closed connection loses no call", "[tls][keyless]") {
    Keyless k;
    std::vector<TlsKeylessCalls::Ready> ready;
    k.record(Side::Client, 300);
    k.record(Side::Server, 500);
    k.record(Side::Client, 310);  // the first call is over: waiting to be taken
    k.calls.release_spare();      // must not drop it
    k.record(Side::Server, 510);
    k.calls.take_ready(false, ready);
    REQUIRE(ready.size() == 1);
    CHECK(ready[0].call.id == 1);
    CHECK(ready[0].call.complete);

    k.calls.release_spare();  // nothing waiting: the buffer goes
    k.record(Side::Client, 320);  // a late call still finishes and is handed on
    k.record(Side::Server, 520);
    k.calls.take_ready(true, ready);
    REQUIRE(ready.size() == 2);
    CHECK(ready[0].call.id == 2);
    CHECK(ready[1].call.id == 3);
    CHECK(ready[1].call.index_on_connection == 2);
}
