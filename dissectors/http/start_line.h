#pragma once
// Incremental check of one HTTP/1.x start line, one byte at a time, so a
// line split over any number of segments is judged the same way. Shared by
// the stream parser (message starts, resynchronisation) and HttpSniffer.
//
// Accepted:  request  token 1*WS target 1*WS HTTP/1.d *WS (CRLF | LF)
//            status   HTTP/1.d 1*WS 3DIGIT [WS reason] (CRLF | LF)
// with lenient forms flagged (several spaces, "http/1.1", bare LF). Anything else is rejected as soon as a byte shows it,
// so garbage never buffers more than it takes to see that.
#include "dissectors/http/http_error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope {

class StartLineMatcher {
public:
    enum class Result { More, Accepted, Rejected };
    // Bits of lenient() for the HttpError warnings they stand for.
    static constexpr uint32_t bit(HttpError e) { return 1u << unsigned(e); }

    StartLineMatcher(bool request, size_t max_line) : request_(request), max_line_(max_line) {}
    void reset();
    // Next byte of the line. After Accepted or Rejected, reset() before reuse.
    Result push(uint8_t c);
    // Takes at once the bytes at the start of `data` that push() would only
    // append to the method, target, version or reason (a start line's runs) and
    // returns how many; 0 where the next byte needs push() (a state change,
    // a line end, a byte push() rejects, the line cap). Same result as
    // pushing them one by one.
    size_t take_run(const uint8_t* data, size_t n);
    // Before any byte of the line (!started()): a whole start line of the
    // canonical form at the start of `data` ("M T HTTP/1.d" or "HTTP/1.d NNN
    // R", single spaces, CRLF) judged at once, as push() would: its length,
    // with the parts set as when push() returns Accepted. 0 (nothing taken)
    // for any other form, or a line not whole in `data`: push() judges it.
    size_t take_line(const uint8_t* data, size_t n);
    // The parts of a line match_line() judged, viewed in its bytes.
    struct LineParts {
        std::string_view method, target, version, reason;
        int status = 0;
    };
    // take_line()'s judgement without taking the line (the matcher is not
    // changed; a caller with !started() then owes no reset()): the length, with
    // `parts` viewing the bytes, or 0. For a caller that copies the parts
    // elsewhere anyway (the stream parser into its head): no copy in between.
    size_t match_line(const uint8_t* data, size_t n, LineParts& parts) const;
    bool started() const { return length_ > 0; }
    size_t length() const { return length_; }  // bytes pushed, line end included

    // Accepted: the parts (version upper-cased), and the lenient forms seen.
    std::string method, target, version, reason;
    int status = 0;
    uint32_t lenient() const { return lenient_; }
    // Rejected: why.
    HttpError reject_code = HttpError::NotHttp;
    std::string reject_reason;

private:
    enum class St { Method, Ws1, Target, Ws2, Version, TrailWs, Cr, Status, Reason };
    Result reject(HttpError code, std::string why);
    Result on_line_end(uint8_t c);
    Result finish();
    Result push_request(uint8_t c);
    Result push_response(uint8_t c);
    bool version_byte(uint8_t c, std::string& out);

    bool request_;
    size_t max_line_;
    St st_ = St::Method;
    size_t length_ = 0;
    uint32_t lenient_ = 0;
    int digits_ = 0;  // status code digits seen
};

// RFC 9110 token character (methods, header names). A table: it is asked
// for every byte of every method and header field name.
inline constexpr auto kHttpTchar = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = true;
    for (int c = 'a'; c <= 'z'; ++c) t[size_t(c)] = true;
    for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = true;
    for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[uint8_t(c)] = true;
    return t;
}();
inline bool is_http_tchar(uint8_t c) { return kHttpTchar[c]; }

// `to` = `v`: clear and append, as assign() from a view goes through
// _M_replace (its aliasing case), about twice the instructions (measured).
inline void set_from_view(std::string& to, std::string_view v) {
    to.clear();
    if (!v.empty()) to.append(v.data(), v.size());
}

} // namespace stallscope

namespace stallscope {

// Finds the next valid start line where framing is lost (after an error or a
// gap, or before the first message). A candidate begins at the start of a
// line, or at the first byte of a fed chunk (senders write messages with
// their own write, so after a gap a segment start is a good guess). A chunk
// that starts while a line is being judged starts a second candidate beside
// it: "<body tail>|GET / HTTP/1.1" (the chunk start is right) and a request
// typed one byte per segment "G|E|T / HTTP/1.1" (the earlier start is right)
// both end on the same line end. When both are valid, a registered method
// beats an unregistered one, else the later start wins.
class StartLineScanner {
public:
    StartLineScanner(bool request, size_t max_line) : c_{{StartLineMatcher(request, max_line)}, {StartLineMatcher(request, max_line)}} {}
    // Forget any candidate; the next byte is at a line start or not.
    void restart(bool at_line_start);
    // Right after restart(true), before any push(): a whole canonical start
    // line at the start of `data` (StartLineMatcher::take_line) accepted at
    // once, as pushing its bytes would (candidate at `off`); its length, or 0
    // with nothing changed.
    size_t take_first_line(const uint8_t* data, size_t n, uint64_t off);
    void chunk_start() { chunk_start_ = true; }
    // Byte `c` at stream offset `off`. True when a candidate was accepted:
    // matcher() holds its parts, candidate_offset() where it began.
    bool push(uint8_t c, uint64_t off);
    bool in_candidate() const { return c_[0].active || c_[1].active; }
    // Where the earliest candidate still being judged began (in_candidate()).
    uint64_t earliest_offset() const;
    uint64_t candidate_offset() const { return c_[winner_].off; }
    const StartLineMatcher& matcher() const { return c_[winner_].m; }

private:
    struct Candidate {
        StartLineMatcher m;
        bool active = false;
        uint64_t off = 0;
    };
    Candidate c_[2];
    bool line_start_ = false;
    bool chunk_start_ = false;
    int winner_ = 0;
};

// A method registered with IANA that clients commonly send (GET, POST,
// WebDAV, SSDP...): only used to choose between two candidate request lines.
bool is_registered_method(std::string_view method);

} // namespace stallscope
