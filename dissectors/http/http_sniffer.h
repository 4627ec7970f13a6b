#pragma once
// Decides whether one direction of a TCP connection carries HTTP/1.x, by
// content, on the reassembled stream: the direction is HTTP once a complete,
// valid start line (request line with an HTTP/1.x version, or status line) is
// seen at the start of a line or of a fed chunk, however it was split into
// segments. It is not HTTP when none was found in its first `budget` bytes
// (SMTP's "EHLO", a speed test's "HI", HTTP/0.9's "GET /" never qualify).
//
// The bytes of the first message that arrived in earlier chunks are kept
// (with the caller's tag for each chunk) so the caller can hand them to an
// HttpStreamParser with their own segments. Bounded: at most one start line
// (HttpParserLimits::max_header_bytes) is held.
#include "dissectors/http/start_line.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <span>
#include <vector>

namespace stallscope {

class HttpSniffer {
public:
    enum class Verdict { NeedMore, Http, NotHttp };
    static constexpr uint64_t kDefaultBudget = 64 * 1024;  // docs/limits.md "HTTP sniffing"

    HttpSniffer(bool request, uint64_t budget = kDefaultBudget, size_t max_line = 64 * 1024);

    // The next stream bytes, at stream offset `offset`, from the caller's
    // chunk `tag` (a segment index). Bytes missing before `offset` count as
    // a gap. Once the verdict is Http or NotHttp, further feeds change nothing.
    Verdict feed(uint64_t offset, std::span<const uint8_t> data, uint64_t tag);
    Verdict verdict() const { return verdict_; }

    // Http: the stream offset where the first message begins...
    uint64_t message_offset() const { return msg_off_; }
    // ...and its bytes that came in chunks before the last fed one, in
    // order. The rest is in the last fed chunk, from message_offset() on
    // (or from its start, if the message began in an earlier chunk).
    struct Held {
        uint64_t tag;
        uint64_t offset;
        std::vector<uint8_t> bytes;
    };
    const std::deque<Held>& held() const { return held_; }

    // The stream's first line (at stream offset 0) was an attempt at HTTP
    // that is not HTTP/1.x: it starts with a registered method or contains
    // "HTTP/" ("GET /" of HTTP/0.9, "GET /HTTP/1.1", "OPTIONS HTTP/1.1"), so
    // the caller should warn. Returns the tag of the chunk that ended the
    // line, once; other protocols ("EHLO", "HI") stay silent.
    std::optional<uint64_t> take_rejected_first_line();

private:
    void trim_held(uint64_t from);
    void track_first_line(uint8_t c, uint64_t tag);

    StartLineScanner scanner_;
    uint64_t budget_;
    Verdict verdict_ = Verdict::NeedMore;
    bool started_ = false;
    uint64_t first_off_ = 0;
    uint64_t next_off_ = 0;
    uint64_t msg_off_ = 0;
    std::deque<Held> held_;
    // The first line, while it is read.
    bool first_line_ = false;
    std::string first_word_;
    bool word_done_ = false;
    size_t http_match_ = 0;  // bytes of "HTTP/" matched so far
    bool has_http_ = false;
    std::optional<uint64_t> rejected_first_line_;
};

} // namespace stallscope
