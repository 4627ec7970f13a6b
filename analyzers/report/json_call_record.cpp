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
// measured and its element_count, the text's length, the text, then the
// marks (element_count's place; count, then place and ns of each time).
// Places are offsets in the text. Numbers are little-endian, fixed size.
namespace {

constexpr uint8_t kTag = 0x4A;  // not a binary call record's (model_spill.cpp)

template <class T> void put(std::string& out, T v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

// Reads a record; every read checked, a short record fails.
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
    bool at_end() const { return at_ == b_.size(); }
private:
    std::string_view b_;
    size_t at_ = 0;
    bool ok_ = true;
};

// One stream for every call: its buffer and layout state are reused.
struct Recorder {
    explicit Recorder(int indent) : os(&buf), js(os, indent), indent(indent) {}
    AppendBuf buf;  // between records it has no target: the caller's string may go first
    std::ostream os;
    JsonStream js;
    int indent;
    CallJsonMarks marks;

    void make(const Call& c, std::string& out) {
        out.clear();
        put(out, kTag);
        put(out, int8_t(indent));
        put(out, c.request.first_frame);
        put(out, c.request.content_bytes);
        put(out, uint8_t(whole_xml_measured(c)));
        put(out, c.soap.element_count);
        const std::string key = operation_key(c);
        put(out, uint32_t(key.size()));
        out += key;
        const size_t len_at = out.size();
        put(out, uint32_t(0));
        const size_t text_at = out.size();
        marks.times.clear();
        buf.out = &out;
        js.resume_inside(2, 0);  // an element of the report's "calls" (document > calls)
        const uint64_t base = js.written();
        call_json_marked(js, c, marks);
        js.flush();
        buf.out = nullptr;  // the caller's string may go before this recorder does
        const uint32_t len = uint32_t(out.size() - text_at);
        std::memcpy(out.data() + len_at, &len, 4);
        put(out, uint32_t(marks.element_count_at - base));
        put(out, uint32_t(marks.times.size()));
        for (const auto& t : marks.times) {
            put(out, uint32_t(t.at - base));
            put(out, t.ns);
        }
    }
};

[[noreturn]] void bad_record(const AnalysisResult& r, uint64_t n) {
    throw SpillError("spill file in " + r.spill->dir() + ": call record " + std::to_string(n) +
                     " is not a JSON call element");
}

} // namespace

std::function<void(const Call&, std::string&)> json_call_recorder(int indent) {
    auto rec = std::make_shared<Recorder>(indent);
    return [rec](const Call& c, std::string& out) { rec->make(c, out); };
}

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
        key.soap.operation.assign(op.data(), op.size());
        const std::string_view text = in.bytes(in.get<uint32_t>());
        const uint32_t count_at = in.get<uint32_t>();
        const uint32_t times = in.get<uint32_t>();
        if (!in.ok()) bad_record(r, n);
        const bool whole = sample.selected(key) && measured;
        ++out.calls;
        out.measured += whole;
        if (out.calls > 1) w.raw(",");
        size_t done = 0;  // text written so far
        // Up to the null at `at`, which the caller then writes over.
        auto upto = [&](uint32_t at) {
            if (at < done || text.size() - at < 4 || text.substr(at, 4) != "null") bad_record(r, n);
            w.raw(text.substr(done, at - done));
            done = at + 4;
        };
        bool count_done = false;
        auto count = [&] {
            upto(count_at);
            if (whole) w.number(element_count);
            else w.raw("null");
            count_done = true;
        };
        for (uint32_t i = 0; i < times; ++i) {
            const uint32_t at = in.get<uint32_t>();
            const int64_t ns = in.get<int64_t>();
            if (!in.ok()) bad_record(r, n);
            if (!count_done && count_at < at) count();
            upto(at);
            w.number_ms(ms_between(ns, t0));
        }
        if (!count_done) count();
        if (!in.at_end()) bad_record(r, n);
        w.raw(text.substr(done));
        w.raw_elements({}, 1);
        return true;
    });
    return out;
}

} // namespace stallscope
