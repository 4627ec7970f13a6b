#include "analyzers/report/json_calls.h"

#include "analyzers/accounting/xml_sample.h"
#include "analyzers/report/json_call_record.h"
#include "analyzers/report/ordered_batches.h"
#include "analyzers/result/result_spill.h"

#include <vector>

namespace stallscope {

namespace {

// Calls per batch: enough that a batch's hand-over costs little beside its
// encoding, few enough that the batches in flight stay small.
constexpr size_t kBatchCalls = 256;

struct CallBatch {
    std::vector<Call> calls;  // reused: assigning into them keeps their memory
    std::vector<uint8_t> measured;
    size_t n = 0;
    void clear() { n = 0; }
};

// This thread copies the calls into batches; workers encode them (ordered_batches.h).
class ParallelCallWriter {
public:
    ParallelCallWriter(JsonStream& w, unsigned workers, CallJsonFn write_call, int64_t t0)
        : batches_(w, workers, [write_call, t0](CallBatch& b, JsonStream& js) {
              for (size_t i = 0; i < b.n; ++i) write_call(js, b.calls[i], t0, b.measured[i] != 0);
          }) {}

    void add(const Call& c, bool measured) {
        CallBatch& b = batches_.filling();
        if (b.n < b.calls.size()) b.calls[b.n] = c;
        else b.calls.push_back(c);
        if (b.n < b.measured.size()) b.measured[b.n] = measured;
        else b.measured.push_back(measured);
        if (++b.n == kBatchCalls) batches_.submit(uint32_t(b.n));
    }

    // Writes what is left, in order.
    void finish() {
        if (const size_t n = batches_.filling().n) batches_.submit(uint32_t(n));
        batches_.finish();
    }

private:
    OrderedBatches<CallBatch> batches_;
};

} // namespace

CallsWritten write_calls_json(JsonStream& w, int indent, const AnalysisResult& r, unsigned threads, CallJsonFn write_call) {
    if (r.spill && r.spill->calls_are_records()) return write_call_records(w, indent, r, threads);  // made already
    XmlCallSelector sample(xml_sampling_of(r));
    CallsWritten out;
    auto pick = [&](const Call& k) {
        const bool measured = sample.selected(k) && whole_xml_measured(k);
        ++out.calls;
        out.measured += measured;
        return measured;
    };
    if (threads <= 1) {
        for_each_call(r, [&](const Call& k) {
            write_call(w, k, r.capture.first_ns, pick(k));
            return true;
        });
        return out;
    }
    ParallelCallWriter writer(w, threads, write_call, r.capture.first_ns);
    for_each_call(r, [&](const Call& k) {
        writer.add(k, pick(k));
        return true;
    });
    writer.finish();
    return out;
}

} // namespace stallscope
