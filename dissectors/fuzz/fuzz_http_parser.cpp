// libFuzzer: HttpStreamParser in both roles. Input: [split][flags][stream...].
// The stream is fed in two parts split at a fuzzer-chosen point (optionally
// with a gap between them, optionally ended by end_of_stream). Checks that
// offsets only move forward and stay inside what was fed, that every begun
// message ends exactly once (complete, dropped or rejected), and that without
// a gap the events up to the first error that loses framing do not depend on
// where the stream was split (after it the parser resynchronises at chunk
// starts too, which depend on the split by design).
#include "dissectors/http/http_stream_parser.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace stallscope;

namespace {

struct Recorder : HttpStreamListener {
    std::vector<std::string> events;
    uint64_t last = 0, body_next = 0, body_total = 0;
    uint64_t limit = 0;  // stream bytes fed so far (incl. gaps)
    bool in_message = false;

    void at(uint64_t off) {
        if (off < last || off > limit) std::abort();
        last = off;
    }
    void on_message_begin(uint64_t offset) override {
        if (in_message) std::abort();
        if (offset > limit) std::abort();  // may lie before `last` (a start line found while resynchronising)
        last = std::max(last, offset);
        in_message = true;
        body_next = 0;
        events.push_back("begin " + std::to_string(offset));
    }
    void on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) override {
        at(end_offset);
        if (!in_message) std::abort();
        events.push_back("head " + std::to_string(end_offset) + " " + head.method + " " + std::to_string(head.status) +
                         " " + std::to_string(head.headers.size()));
    }
    void on_body(std::span<const uint8_t> data, uint64_t body_pos) override {
        if (body_pos < body_next) std::abort();
        body_next = body_pos + data.size();
        body_total += data.size();
        volatile uint8_t sink = 0;
        for (uint8_t b : data) sink = sink ^ b;
        (void)sink;
    }
    void on_message_complete(uint64_t end_offset) override {
        at(end_offset);
        if (!in_message) std::abort();
        in_message = false;
        events.push_back("complete " + std::to_string(end_offset) + " body " + std::to_string(body_total));
        body_total = 0;
    }
    void on_error(const HttpParseError& e) override {
        if (e.offset > limit) std::abort();
        bool ends = e.effect == HttpErrorEffect::Dropped || e.effect == HttpErrorEffect::Rejected;
        if (ends != in_message && e.effect != HttpErrorEffect::Warning) std::abort();  // Skipped only between messages
        if (ends) in_message = false;
        if (!lost_framing && e.effect != HttpErrorEffect::Warning) {
            lost_framing = true;
            framed_events = events.size() + 1;
        }
        events.push_back(std::string("error ") + http_error_name(e.code) + " " + std::to_string(e.offset) + " " +
                         std::to_string(int(e.effect)));
    }
    bool lost_framing = false;
    size_t framed_events = 0;
    std::vector<std::string> framed() const {
        return lost_framing ? std::vector<std::string>(events.begin(), events.begin() + ptrdiff_t(framed_events)) : events;
    }
};

std::vector<std::string> run(HttpStreamParser::Role role, std::span<const uint8_t> stream, size_t split,
                             uint64_t gap, bool eos) {
    Recorder rec;
    HttpParserLimits lim;
    lim.max_header_bytes = 4096;  // small caps: reach the limit paths quickly
    lim.max_headers = 20;
    HttpStreamParser p(role, rec, lim);
    if (role == HttpStreamParser::Role::Response) {
        p.push_request_method("GET");
        p.push_request_method("HEAD");
        p.push_request_method("CONNECT");
    }
    rec.limit = split;
    p.feed(stream.first(split));
    if (gap) { rec.limit += gap; p.gap(gap); }
    rec.limit += stream.size() - split;
    p.feed(stream.subspan(split));
    if (p.offset() != rec.limit) std::abort();
    if (eos) p.end_of_stream();
    return rec.framed();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    std::span<const uint8_t> stream(data + 2, size - 2);
    size_t split = stream.empty() ? 0 : data[0] * stream.size() / 256;
    uint8_t flags = data[1];
    uint64_t gap = (flags & 1) ? (flags >> 2) * 7 + 1 : 0;
    bool eos = flags & 2;
    for (auto role : {HttpStreamParser::Role::Request, HttpStreamParser::Role::Response}) {
        auto split_events = run(role, stream, split, gap, eos);
        if (!gap && run(role, stream, 0, 0, eos) != split_events) std::abort();  // split invariance
    }
    return 0;
}
