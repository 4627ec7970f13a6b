#pragma once
// The JSON report's "calls" array, in call-id order, written by one thread
// or by several. Which calls carry their whole-XML figures is settled walking
// the calls in id order (XmlCallSelector), so this thread reads the calls
// (from the spill file) and picks the sample; with `threads` > 1, workers
// make the JSON text of batches of calls while it reads on, and it writes
// the batches in order. The bytes are the same for any number of threads
// (issue 26: the report thread must not be the limit).
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <cstdint>

namespace stallscope {

struct CallsWritten {
    uint64_t calls = 0;
    uint64_t measured = 0;  // calls whose whole-XML figures are shown
};

// Writes one call object (report_json.cpp's layout).
using CallJsonFn = void (*)(JsonStream& w, const Call& c, int64_t capture_first_ns, bool whole_xml_measured);

// The elements of the open "calls" array of `w` (written with `indent`).
CallsWritten write_calls_json(JsonStream& w, int indent, const AnalysisResult& r, unsigned threads, CallJsonFn write_call);

} // namespace stallscope
