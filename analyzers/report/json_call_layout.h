#pragma once
// A call's JSON element from runs of fixed text (issue 26): everything
// between two values of the element (a comma, the newline and indent, the
// next key; a bracket) depends only on the stream's indent and depth, so it
// is made once and copied as one fixed-size block, and the values are
// written at a pointer the writer holds, without the stream's per-member
// bookkeeping. The same bytes as report_json.cpp's call_json, which is the
// general path (and the one used when a run would not fit in JsonRun).
#include "analyzers/report/json_call_record.h"
#include "analyzers/report/json_fixed_runs.h"
#include "analyzers/report/json_stream.h"
#include "analyzers/result/model.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// A fixed run (json_fixed_runs.h) that also knows its place in the layout.
struct JsonRun : FixedRun {
    uint8_t id = 0;  // its place in the layout: its identity in a call's shape
};

// A value's place in an element written with call_json_slots: an integer
// or an ms value (which a tape holds raw where it can: call_json_tape, and
// the report formats: json_call_record.cpp), a time (null there) or
// element_count (null there). Text: a number's text (not written now).
// A frame or time equal to an earlier one of the call is a reference to it
// (its text copied: the tape holds no value for it): Frame and KeptTime are
// the first kMaxKept distinct ones, the ones referred to by their order
// (`ref`); past kMaxKept, Uint and Time (issue 26, round eight).
struct CallSlot {
    enum Kind : uint8_t { Text, Time, ElementCount, Uint, Ms, Frame, KeptTime, FrameRef, TimeRef };
    static constexpr unsigned kMaxKept = 8;
    uint64_t at;  // in the stream's written()
    uint32_t len;
    Kind kind;
    uint8_t ref = 0;  // FrameRef, TimeRef: the kept one's place among its kind's
    // As a template stores it: the kind, the reference above it.
    uint8_t code() const { return uint8_t(kind | ref << 4); }
};

// A growing byte buffer written at its end (n bytes used).
struct TapeBytes {
    std::string b;
    size_t n = 0;
    std::string_view view() const { return {b.data(), n}; }
};

// A call's element as its shape (the runs, strings, names, bools and nulls
// it is made of, exactly, and each value's kind) and its values: an integer
// >= 0 as its bytes (count first, 1 to 8, little-endian, the least that hold
// it), a rounded ms value the same way as ms_rounded_code's code, any other
// number as its text (0x80 | its length first), a time as its ns;
// element_count only counted. The values end with kValuePad zero bytes (a reader loads 8 bytes
// at a time, and a number read past the values meets a zero count, which is
// no number: json_call_record.cpp).
struct CallTape {
    static constexpr size_t kValuePad = 16;
    TapeBytes shape, values;
};

// Writes the element of call k in the open array of w as call_json does:
// times relative to t0, element_count only when `whole`; with `marks`, the
// times and element_count null and their places noted (json_call_record.h).
// Returns false, writing nothing, when w's indent and depth make a run too
// long (the caller then takes the general path).
bool call_json_layout(JsonStream& w, const Call& k, int64_t t0, bool whole, CallJsonMarks* marks);

// The same as call_json_layout with marks, each value's place also noted in
// `slots` (appended to), in the order call_json_tape writes them.
bool call_json_slots(JsonStream& w, const Call& k, CallJsonMarks& marks, std::vector<CallSlot>& slots);

// k's element as call_json_layout with marks would write it inside `depth`
// open containers at `indent`, as its shape and values. False when the
// runs do not fit (as call_json_layout).
bool call_json_tape(int indent, size_t depth, const Call& k, CallTape& t);

// The kinds of t's values in order, read from its shape (CallSlot::code()).
std::vector<uint8_t> tape_value_kinds(const CallTape& t);

} // namespace stallscope
