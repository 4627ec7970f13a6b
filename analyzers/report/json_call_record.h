#pragma once
// analyze --json (issue 26; on any number of threads): a call that goes to the spill
// file is stored as its JSON element, the text call_json writes, instead of
// its binary record (AnalysisOptions::spill_call_as), so the report copies
// it out instead of encoding, decoding and writing every call. Two things
// are not known when a call is final: the capture's first timestamp (times
// are relative to it, and an earlier frame may come later) and whether the
// whole-XML sample keeps its element_count (XmlCallSelector walks the calls
// in id order). Those values are written as null, their places kept beside
// the text with what fills them, and the report writes them in.
#include "analyzers/report/json_calls.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// Places in a call's element that the report fills (offsets in the
// stream's written()).
struct CallJsonMarks {
    struct Time {
        uint64_t at;  // a time relative to the capture's first frame: null there
        int64_t ns;
    };
    std::vector<Time> times;
    uint64_t element_count_at = 0;  // element_count's null
};

// The call's element as the JSON report writes it (report_json.cpp), its
// times and element_count null and noted in `marks` (appended to).
void call_json_marked(JsonStream& w, const Call& c, CallJsonMarks& marks);

// The recorder's table of shapes (json_call_record.cpp): at most `shapes`
// of them and about `bytes` of memory (their keys and templates; the
// report holds the templates again while it copies the calls out). A call
// whose shape is new once the table is full is stored as its text. 0
// shapes: every call as its text.
struct CallShapeLimits {
    size_t shapes = 4096;
    size_t bytes = size_t(2) << 20;
};

// Makes a call's spill record for a JSON report written with `indent`
// (for AnalysisOptions::spill_call_as; ONE analysis per recorder: a call of
// a known shape refers to the record of the shape's first call, in the same
// spill). The record is read in place: it lasts until the recorder's next call.
std::function<std::string_view(const Call&)> json_call_recorder(int indent, CallShapeLimits limits = {});

// The elements of the open "calls" array from such records, in id order
// (r.spill->calls_are_records()). Throws SpillError when a record is not
// one, or was made for another indent. With `threads` > 1, this thread
// reads the records and settles what needs their order (the whole-XML
// sample, the shapes' templates) and that many workers write batches of
// calls, written back in order: the same bytes.
CallsWritten write_call_records(JsonStream& w, int indent, const AnalysisResult& r, unsigned threads = 1);

namespace json_record_detail {
// Records per batch on several threads (0: the default); small in tests, so
// that a small capture makes many batches.
void set_batch_records_for_test(size_t records);
} // namespace json_record_detail

} // namespace stallscope
