#include "dissectors/http/http_sniffer.h"

#include <algorithm>

namespace stallscope {

HttpSniffer::HttpSniffer(bool request, uint64_t budget, size_t max_line)
    : scanner_(request, max_line), budget_(budget) {}

// Forget held bytes before stream offset `from`.
void HttpSniffer::trim_held(uint64_t from) {
    while (!held_.empty() && held_.front().offset + held_.front().bytes.size() <= from) held_.pop_front();
    if (!held_.empty() && held_.front().offset < from) {
        Held& h = held_.front();
        h.bytes.erase(h.bytes.begin(), h.bytes.begin() + ptrdiff_t(from - h.offset));
        h.offset = from;
    }
}

void HttpSniffer::track_first_line(uint8_t c, uint64_t tag) {
    static constexpr std::string_view kHttp = "HTTP/";
    if (c == '\n') {
        first_line_ = false;  // it was not accepted, or feed() would have returned
        if (has_http_ || is_registered_method(first_word_)) rejected_first_line_ = tag;
        return;
    }
    if (!word_done_) {
        if (is_http_tchar(c) && first_word_.size() < 32) first_word_ += char(c);
        else word_done_ = true;
    }
    uint8_t u = (c >= 'a' && c <= 'z') ? uint8_t(c - 'a' + 'A') : c;
    http_match_ = u == uint8_t(kHttp[http_match_]) ? http_match_ + 1 : (u == 'H' ? 1 : 0);
    if (http_match_ == kHttp.size()) {
        has_http_ = true;
        http_match_ = 0;
    }
}

std::optional<uint64_t> HttpSniffer::take_rejected_first_line() {
    auto r = rejected_first_line_;
    rejected_first_line_.reset();
    return r;
}

HttpSniffer::Verdict HttpSniffer::feed(uint64_t offset, std::span<const uint8_t> data, uint64_t tag) {
    if (verdict_ != Verdict::NeedMore || data.empty()) return verdict_;
    if (!started_) {
        started_ = true;
        first_off_ = offset;
        // Offset 0 is the stream's first byte, so it starts a line.
        scanner_.restart(offset == 0);
        first_line_ = offset == 0;
    } else if (offset != next_off_) {
        scanner_.restart(false);  // bytes missing: the line in progress is lost
        held_.clear();
        first_line_ = false;
    }
    scanner_.chunk_start();
    next_off_ = offset + data.size();
    if (offset == 0 && scanner_.take_first_line(data.data(), data.size(), offset)) {
        // The stream opens with a whole canonical start line: the verdict
        // pushing its bytes one by one reaches at its line end.
        msg_off_ = offset;
        verdict_ = Verdict::Http;
        return verdict_;
    }
    for (size_t i = 0; i < data.size(); ++i) {
        if (scanner_.push(data[i], offset + i)) {
            msg_off_ = scanner_.candidate_offset();
            trim_held(msg_off_);
            verdict_ = Verdict::Http;
            return verdict_;
        }
        if (first_line_) track_first_line(data[i], tag);
        if (!scanner_.in_candidate() && offset + i + 1 - first_off_ >= budget_) {
            verdict_ = Verdict::NotHttp;
            held_.clear();
            return verdict_;
        }
    }
    if (!scanner_.in_candidate()) {
        held_.clear();
    } else {
        uint64_t from = std::max(scanner_.earliest_offset(), offset);
        trim_held(scanner_.earliest_offset());
        held_.push_back(Held{tag, from, {data.begin() + ptrdiff_t(from - offset), data.end()}});
    }
    return verdict_;
}

} // namespace stallscope
