#pragma once
// Compact, exact binary encoding of finished results, so the analyzer can
// spill them to a temp file and read them back later (memory stays flat on
// multi-GB captures). Not a file format: encoder and decoder are always the
// same build, so there is no compatibility promise across versions; each
// record starts with a type/version tag byte so a wrong-type or stale record
// fails to decode instead of decoding to garbage.
#include "analyzers/result/model.h"

#include <string>
#include <string_view>

namespace stallscope {

// Appends the encoding of v to out. Every field is kept; doubles bit-exact.
void spill_encode(const Call& v, std::string& out);
void spill_encode(const Connection& v, std::string& out);
void spill_encode(const Finding& v, std::string& out);

// Decodes one value from bytes, which must be exactly what spill_encode
// wrote (trailing bytes are an error). False on malformed input: never reads
// past the end, never allocates more than the input could describe. v is
// only assigned on success.
bool spill_decode(std::string_view bytes, Call& v);
bool spill_decode(std::string_view bytes, Connection& v);
bool spill_decode(std::string_view bytes, Finding& v);

// The same, decoding into v's own strings and vectors, which are reused (no
// allocation for a record no larger than the one v held). When it returns
// false, v holds part of the record: for readers that give up on failure.
bool spill_decode_into(std::string_view bytes, Call& v);
bool spill_decode_into(std::string_view bytes, Connection& v);
bool spill_decode_into(std::string_view bytes, Finding& v);

// The same without the finding's text and evidence frames: cost_method,
// explanation, fix, toolkit, toolkit_fix and frames are left empty (their
// bytes are checked as far as their lengths and stepped over). For readers
// of every finding that need only kinds, calls, costs and details.
bool spill_decode_brief(std::string_view bytes, Finding& v);

// What a brief decode skipped: the encoded bytes of a finding's frames and of
// its five texts, in their order in the record (views into the decoded bytes).
struct FindingText {
    static constexpr size_t kFields = 6;
    std::string_view field[kFields];
    size_t count = 0;
};
// A brief decode that also notes where the skipped fields lie in `bytes`.
bool spill_decode_brief(std::string_view bytes, Finding& v, FindingText& skipped);
// Briefer still: the details are stepped over too (left empty). For readers
// that need only kinds, sides, calls, costs and intervals (the seal's final
// touch of a finding whose kind's finalize changes nothing).
bool spill_decode_lean(std::string_view bytes, Finding& v);
// Sets counted_ms in a finding's encoded record (spill_encode's bytes), in
// place: the record of the same finding with that counted_ms. Throws
// std::logic_error when `record` is not a finding's.
void spill_set_counted_ms(std::string& record, double counted_ms);
// Encodes v with its frames and texts taken from `text` (as a brief decode
// found them) instead of from v: the same bytes as spill_encode of the whole
// finding with v's other fields, without decoding the text. `text`'s bytes
// must still be there. Throws std::logic_error when `text` is not complete, or
// when v's texts or frames are not empty (they would be dropped, not stored).
void spill_encode_brief(const Finding& v, const FindingText& text, std::string& out);

} // namespace stallscope
