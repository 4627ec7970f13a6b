#include "analyzers/report/json_call_record.h"

#include "analyzers/report/append_buf.h"

#include "analyzers/accounting/summary.h"
#include "analyzers/accounting/xml_sample.h"
#include "analyzers/report/report.h"
#include "analyzers/result/result_spill.h"

#include <cstring>
#include <memory>
#include <ostream>
#include <streambuf>

namespace stallscope {

// A record: tag, indent, what the whole-XML sample looks at (request first
// frame, request content bytes, operation key), whether the call's XML was
// measured and its element_count; the text; then the places to fill, in the
// order they come in the text: each time's place and ns; element_count's
// place and where among the times it comes (its index); the count of times
// and the text's length. Places are offsets in the text. Numbers are little-endian,
// fixed size. The whole record is written by the recorder's stream and
// handed to the spill from its buffer, not copied out first.
namespace {

constexpr uint8_t kTag = 0x4A;  // not a binary call record's (model_spill.cpp)
constexpr size_t kTimeBytes = 4 + 8;  // a time's place and ns
constexpr size_t kTrailerBytes = 4 * 4;  // element_count's place and index, times, length

template <class T> void put(std::string& out, T v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
template <class T> T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Reads a record's head; every read checked, a short record fails.
class Cursor {
public:
    explicit Cursor(std::string_view b) : b_(b) {}
    template <class T> T get() {
        T v{};
        if (b_.size() - at_ < sizeof v) { ok_ = false; return v; }
        std::memcpy(&v, b_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    std::string_view bytes(size_t n) {
        if (b_.size() - at_ < n) { ok_ = false; return {}; }
        at_ += n;
        return b_.substr(at_ - n, n);
    }
    bool ok() const { return ok_; }
    size_t left() const { return b_.size() - at_; }
private:
    std::string_view b_;
    size_t at_ = 0;
    bool ok_ = true;
};

// One stream for every call: its buffer and layout state are reused. A
// record is made in the stream's buffer and read there by the caller; the
// next one drops it. A record too big for the buffer goes to `spilled`.
struct Recorder {
    explicit Recorder(int indent) : os(&buf), js(os, indent), indent(indent) {}
    ~Recorder() {
        js.discard();
        buf.out = nullptr;
    }
    std::string spilled;
    AppendBuf buf;
    std::ostream os;
    JsonStream js;
    int indent;
    CallJsonMarks marks;
    std::string head, tail;

    std::string_view make(const Call& c) {
        js.discard();  // the previous record, stored by now
        spilled.clear();
        buf.out = &spilled;
        head.clear();
        put(head, kTag);
        put(head, int8_t(indent));
        put(head, c.request.first_frame);
        put(head, c.request.content_bytes);
        put(head, uint8_t(whole_xml_measured(c)));
        put(head, c.soap.element_count);
        const std::string key = operation_key(c);
        put(head, uint32_t(key.size()));
        head += key;
        js.raw(head);
        marks.times.clear();
        js.resume_inside(2, 0);  // an element of the report's "calls" (document > calls)
        const uint64_t base = js.written();
        call_json_marked(js, c, marks);
        const uint64_t len = js.written() - base;
        tail.clear();
        uint32_t count_index = 0;
        for (const auto& t : marks.times) {
            put(tail, uint32_t(t.at - base));
            put(tail, t.ns);
            count_index += t.at < marks.element_count_at;
        }
        put(tail, uint32_t(marks.element_count_at - base));
        put(tail, count_index);
        put(tail, uint32_t(marks.times.size()));
        put(tail, uint32_t(len));
        js.raw(tail);
        if (spilled.empty()) return js.unflushed();
        js.flush();
        return spilled;
    }
};

[[noreturn]] void bad_record(const AnalysisResult& r, uint64_t n) {
    throw SpillError("spill file in " + r.spill->dir() + ": call record " + std::to_string(n) +
                     " is not a JSON call element");
}

} // namespace

std::function<std::string_view(const Call&)> json_call_recorder(int indent) {
    auto rec = std::make_shared<Recorder>(indent);
    return [rec](const Call& c) { return rec->make(c); };
}

// The text copied in pieces at the writer's pointer, each time and
// element_count written over its null: the places come in order with the
// record, nothing is searched.
CallsWritten write_call_records(JsonStream& w, int indent, const AnalysisResult& r) {
    XmlCallSelector sample(xml_sampling_of(r));
    Call key;  // what the sample looks at
    CallsWritten out;
    const int64_t t0 = r.capture.first_ns;
    r.spill->each_call_record([&](std::string_view record) {
        Cursor in(record);
        const uint64_t n = out.calls + 1;
        if (in.get<uint8_t>() != kTag || in.get<int8_t>() != indent) bad_record(r, n);
        key.request.first_frame = in.get<uint64_t>();
        key.request.content_bytes = in.get<uint64_t>();
        const bool measured = in.get<uint8_t>() != 0;
        const uint32_t element_count = in.get<uint32_t>();
        const std::string_view op = in.bytes(in.get<uint32_t>());
        if (!in.ok() || in.left() < kTrailerBytes) bad_record(r, n);
        key.soap.operation.assign(op.data(), op.size());
        const char* end = record.data() + record.size();
        const uint32_t count_at = load<uint32_t>(end - 16), count_index = load<uint32_t>(end - 12),
                       times = load<uint32_t>(end - 8), len = load<uint32_t>(end - 4);
        if (in.left() != uint64_t(len) + uint64_t(times) * kTimeBytes + kTrailerBytes || count_index > times)
            bad_record(r, n);
        const char* text = end - kTrailerBytes - size_t(times) * kTimeBytes - len;
        const char* place = text + len;  // the times' places and ns
        const bool whole = sample.selected(key) && measured;
        ++out.calls;
        out.measured += whole;
        char* p = w.raw_begin();
        if (!w.raw_element()) *p++ = ',';
        uint32_t done = 0;  // text written so far
        // Up to the null at `at`, which the caller then writes over.
        auto upto = [&](uint32_t at) {
            if (at < done || at > len || len - at < 4 || std::memcmp(text + at, "null", 4) != 0) bad_record(r, n);
            p = w.raw_bytes(p, text + done, at - done);
            done = at + 4;
        };
        for (uint32_t i = 0;; ++i) {
            if (i == count_index) {
                upto(count_at);
                if (whole) p = JsonStream::raw_number(p, element_count);
                else {
                    std::memcpy(p, "null", 4);
                    p += 4;
                }
            }
            if (i == times) break;
            const char* t = place + size_t(i) * kTimeBytes;
            upto(load<uint32_t>(t));
            p = JsonStream::raw_ms(p, ms_between(load<int64_t>(t + 4), t0));
        }
        w.raw_end(w.raw_bytes(p, text + done, len - done));
        return true;
    });
    return out;
}

} // namespace stallscope
