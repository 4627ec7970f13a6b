#include "analyzers/exchange_tracker.h"

#include "analyzers/message_content.h"
#include "analyzers/summary.h"
#include "dissectors/http/http_sniffer.h"

#include <algorithm>
#include <vector>

namespace stallscope {

// One call being assembled.
struct CallState {
    Call call;
    uint64_t seg_first = 0, seg_last = 0;
    bool have_request_head = false;
    bool start_line = false;      // the request line was valid HTTP/1.x (never a phantom call)
    bool done = false;            // final response complete (or given up)
    MessageBody bodies[2];        // request, response: each decoded with its own message's coding
};

// Where the bytes of the message being parsed in one direction go.
struct MsgTrack {
    CallState* call = nullptr;    // nullptr: bytes of no known message
    MessageInfo* info = nullptr;
    uint16_t head_bit = carries::kOther, body_bit = carries::kOther;
    bool in_body = false;
    bool interim = false;
    uint64_t begin_frame = 0;
    int64_t begin_ns = 0;
    uint64_t last_seg = UINT64_MAX;
    // Where the message began and what that segment carried before it, so a
    // head that turns out to be an interim 1xx can be relabelled.
    uint64_t begin_seg = 0;
    uint16_t begin_seg_prior = 0;
};

class ExchangeTracker::Listener : public HttpStreamListener {
public:
    Listener(ExchangeTracker& t, int dir) : t_(t), dir_(dir) {}
    void on_message_begin(uint64_t offset) override;
    void on_start_line(const HttpMessageHead& head, uint64_t end_offset) override;
    void on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) override;
    void on_body(std::span<const uint8_t> data, uint64_t body_pos) override;
    void on_message_complete(uint64_t end_offset) override;
    void on_error(const HttpParseError& error) override;
private:
    ExchangeTracker& t_;
    int dir_;
};

struct ExchangeTracker::Dir {
    int http = -1;                 // -1 not sniffed yet, 0 not HTTP, 1 HTTP
    std::unique_ptr<HttpSniffer> sniffer;  // until the first valid start line
    uint64_t base = 0;             // stream offset where the parser started
    std::unique_ptr<Listener> listener;
    std::unique_ptr<HttpStreamParser> parser;
    uint64_t cur_seg = 0;
    uint64_t cursor = 0;           // stream offset attributed so far
    MsgTrack active;
    bool have_active = false;
    MessageInfo scratch;           // interim responses and orphans
    std::vector<std::string> pending_methods;  // requests seen before this parser existed
    uint32_t errors = 0;
};

ExchangeTracker::ExchangeTracker(uint64_t connection_id, SegmentStore& segments, ExchangeHost& host,
                                 const AnalysisOptions& options)
    : conn_id_(connection_id), segs_(segments), host_(host), opt_(options) {
    for (auto& d : dirs_) d = std::make_unique<Dir>();
}

ExchangeTracker::~ExchangeTracker() = default;

int ExchangeTracker::http_state(int dir) const { return dirs_[dir]->http; }

// Attribute stream bytes [cursor, upto) of direction `dir` to the active
// message (or to "other"), marking what the current segment carries.
void ExchangeTracker::attribute(int dir, uint64_t upto) {
    Dir& d = *dirs_[dir];
    if (upto <= d.cursor) return;
    uint64_t n = upto - d.cursor;
    d.cursor = upto;
    SegmentInfo* seg = segs_.at(d.cur_seg);
    if (!d.have_active || !d.active.info) {
        if (seg) seg->carries |= carries::kOther;
        return;
    }
    MsgTrack& m = d.active;
    MessageInfo& info = *m.info;
    uint64_t frame = seg ? seg->frame : 0;
    int64_t ts = seg ? seg->ts_ns : 0;
    if (seg) seg->carries |= m.in_body ? m.body_bit : m.head_bit;
    if (m.last_seg != d.cur_seg) {
        info.write_sizes.push_back(uint32_t(std::min<uint64_t>(n, UINT32_MAX)));
        info.frames.push_back(frame);
        m.last_seg = d.cur_seg;
    } else if (!info.write_sizes.empty()) {
        info.write_sizes.back() += uint32_t(std::min<uint64_t>(n, UINT32_MAX));
    }
    if (m.in_body) {
        if (info.body_first_frame == 0) { info.body_first_frame = frame; info.body_first_ns = ts; }
        info.body_bytes += n;
    }
    info.last_frame = frame;
    info.last_ns = ts;
    if (m.call) m.call->seg_last = std::max(m.call->seg_last, d.cur_seg);
}

void ExchangeTracker::Listener::on_message_begin(uint64_t offset) {
    Dir& d = *t_.dirs_[dir_];
    uint64_t off = d.base + offset;
    t_.attribute(dir_, off);
    SegmentInfo* seg = t_.segs_.at(d.cur_seg);
    d.active = MsgTrack{};
    d.have_active = true;
    d.active.begin_frame = seg ? seg->frame : 0;
    d.active.begin_ns = seg ? seg->ts_ns : 0;
    d.active.begin_seg = d.cur_seg;
    d.active.begin_seg_prior = seg ? seg->carries : 0;
    if (dir_ == 0) {
        auto cs = std::make_unique<CallState>();
        cs->call.id = t_.host_.new_call_id();
        cs->call.connection_id = t_.conn_id_;
        cs->call.index_on_connection = t_.calls_started_++;
        // The first call also owns the handshake and anything before it.
        cs->seg_first = t_.calls_.empty() && cs->call.index_on_connection == 0 ? t_.segs_.begin_index() : d.cur_seg;
        cs->seg_last = d.cur_seg;
        cs->call.request.first_frame = d.active.begin_frame;
        cs->call.request.first_ns = d.active.begin_ns;
        cs->call.request_first_frame = d.active.begin_frame;
        cs->call.start_ns = d.active.begin_ns;
        d.active.call = cs.get();
        d.active.info = &cs->call.request;
        d.active.head_bit = carries::kRequestHeaders;
        d.active.body_bit = carries::kRequestBody;
        t_.calls_.push_back(std::move(cs));
    } else {
        // A response answers the oldest request still waiting for one.
        for (auto& cs : t_.calls_) {
            if (!cs->done && cs->have_request_head) { d.active.call = cs.get(); break; }
        }
        d.scratch = MessageInfo{};
        d.active.info = &d.scratch;  // until the status line says interim or final
        d.active.head_bit = carries::kResponseHeaders;
        d.active.body_bit = carries::kResponseBody;
        if (!d.active.call) {
            d.active.info = nullptr;
            t_.host_.warn("response without a request (stream offset " + std::to_string(off) + ")",
                          seg ? seg->frame : 0);
        }
    }
    if (d.active.info) { d.active.info->first_frame = d.active.begin_frame; d.active.info->first_ns = d.active.begin_ns; }
}

void ExchangeTracker::Listener::on_start_line(const HttpMessageHead& head, uint64_t) {
    Dir& d = *t_.dirs_[dir_];
    if (dir_ != 0 || !d.have_active || !d.active.call) return;
    CallState& cs = *d.active.call;
    cs.start_line = true;
    cs.call.method = head.method;
    cs.call.uri = head.uri;
    cs.call.http_version = head.version;
}

void ExchangeTracker::Listener::on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) {
    Dir& d = *t_.dirs_[dir_];
    if (!d.have_active) return;
    MsgTrack& m = d.active;
    CallState* cs = m.call;
    if (dir_ == 1 && cs) {
        if (head.status >= 100 && head.status < 200) {
            m.interim = true;
            m.head_bit = m.body_bit = carries::kContinue;
            t_.relabel_interim_head(m.begin_seg, m.begin_seg_prior, d.cur_seg);
            if (head.status == 100 && !cs->call.got_continue) {
                cs->call.got_continue = true;
                cs->call.continue_frame = m.begin_frame;
                cs->call.continue_ns = m.begin_ns;
            }
        } else {
            // The final response: move what was tracked so far into the call.
            cs->call.response = d.scratch;
            m.info = &cs->call.response;
            fill_response_fields(cs->call, head);
            cs->bodies[1].set_head(head);
        }
    }
    if (dir_ == 0 && cs) {
        cs->have_request_head = true;
        fill_request_fields(cs->call, head);
        cs->bodies[0].set_head(head);
        // The response parser needs each request's method (HEAD has no body).
        Dir& resp = *t_.dirs_[1];
        if (resp.parser) resp.parser->push_request_method(head.method);
        else resp.pending_methods.push_back(head.method);
    }
    t_.attribute(dir_, d.base + end_offset);
    if (m.info) {
        SegmentInfo* seg = t_.segs_.at(d.cur_seg);
        m.info->header_bytes = head.header_bytes;
        m.info->headers_end_frame = seg ? seg->frame : 0;
        m.info->headers_end_ns = seg ? seg->ts_ns : 0;
    }
    m.in_body = true;
}

// The head's earlier segments were marked as response headers before the
// status line could say 1xx (a status line and its CRLF written apart):
// they carried the interim response.
void ExchangeTracker::relabel_interim_head(uint64_t begin_seg, uint16_t begin_prior, uint64_t cur_seg) {
    for (uint64_t i = begin_seg; i < cur_seg; ++i) {
        SegmentInfo* s = segs_.at(i);
        if (!s || s->from != Side::Server || !(s->carries & carries::kResponseHeaders)) continue;
        const uint16_t keep = i == begin_seg ? begin_prior : uint16_t(s->carries & ~carries::kResponseHeaders);
        s->carries = uint16_t(keep | carries::kContinue);
    }
}

void ExchangeTracker::Listener::on_body(std::span<const uint8_t> data, uint64_t) {
    Dir& d = *t_.dirs_[dir_];
    if (!d.have_active || !d.active.call || d.active.interim) return;
    d.active.call->bodies[dir_].append(data, t_.opt_.max_soap_body_bytes);
}

void ExchangeTracker::Listener::on_message_complete(uint64_t end_offset) {
    Dir& d = *t_.dirs_[dir_];
    t_.attribute(dir_, d.base + end_offset);
    if (!d.have_active) return;
    MsgTrack m = d.active;
    d.have_active = false;
    d.active = MsgTrack{};
    if (!m.call || m.interim) return;
    CallState& cs = *m.call;
    if (dir_ == 0) {
        cs.call.request.complete = true;
        t_.finish_soap(cs, false);
        return;
    }
    Call& c = cs.call;
    c.response.complete = true;
    c.complete = true;
    c.response_last_frame = c.response.last_frame;
    c.end_ns = c.response.last_ns;
    c.latency_ms = double(c.end_ns - c.start_ns) / 1e6;
    cs.done = true;
    t_.finish_soap(cs, true);
}

void ExchangeTracker::Listener::on_error(const HttpParseError& e) {
    Dir& d = *t_.dirs_[dir_];
    SegmentInfo* seg = t_.segs_.at(d.cur_seg);
    static constexpr const char* kWhat[] = {
        "",                                                 // Warning
        ", message dropped; parsing resumes at the next message",  // Dropped
        ", not HTTP/1.x; parsing resumes at the next message",     // Rejected
        ", bytes skipped up to the next message",                  // Skipped
    };
    if (e.code != HttpError::TunnelEntered && ++d.errors <= 20) {
        t_.host_.warn(std::string(dir_ == 0 ? "request" : "response") + " stream: " + e.message + " (stream offset " +
                          std::to_string(d.base + e.offset) + kWhat[size_t(e.effect)] + ")",
                      seg ? seg->frame : 0);
    }
    if (e.effect != HttpErrorEffect::Warning && d.have_active) {
        // Bytes that never had a valid HTTP/1.x start line are not a call:
        // drop the one opened at message begin.
        CallState* cs = d.active.call;
        if (e.effect == HttpErrorEffect::Rejected && dir_ == 0 && cs && !cs->start_line && !t_.calls_.empty() &&
            t_.calls_.back().get() == cs) {
            t_.calls_.pop_back();
            --t_.calls_started_;
        }
        d.have_active = false;
        d.active = MsgTrack{};
    }
}

void ExchangeTracker::finish_soap(CallState& cs, bool response) {
    MessageInfo& msg = response ? cs.call.response : cs.call.request;
    std::string what = std::string(response ? "response" : "request") + " body of call " + std::to_string(cs.call.id);
    cs.bodies[response ? 1 : 0].finish(opt_, msg, response ? cs.call.soap_response : cs.call.soap, what,
                                       [&](const std::string& w) { host_.warn(w, msg.last_frame); }, host_.deflate_sampler(),
                                       [&] { return std::string(response ? "response " : "request ") + operation_key(cs.call); });
}

void ExchangeTracker::on_data(int dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg) {
    Dir& d = *dirs_[dir];
    if (d.http == 0) return;
    d.cur_seg = seg;
    if (!d.parser) {
        // Find HTTP by content, on the reassembled stream: a direction is
        // HTTP once a whole valid start line is seen (split over segments
        // or not). Until then (capture began mid-message, or not HTTP) its
        // bytes are not parsed.
        if (!d.sniffer) d.sniffer = std::make_unique<HttpSniffer>(dir == 0, HttpSniffer::kDefaultBudget, opt_.max_header_bytes);
        auto verdict = d.sniffer->feed(offset, data, seg);
        if (auto at = d.sniffer->take_rejected_first_line()) {
            SegmentInfo* s = segs_.at(*at);
            host_.warn(dir == 0 ? "request stream: first line is not an HTTP/1.x request line (HTTP/0.9 or malformed): not a call"
                                : "response stream: first line is not an HTTP/1.x status line",
                       s ? s->frame : 0);
        }
        if (verdict != HttpSniffer::Verdict::Http) {
            if (SegmentInfo* s = segs_.at(seg)) s->carries |= carries::kOther;
            if (verdict == HttpSniffer::Verdict::NotHttp) { d.http = 0; d.sniffer.reset(); }
            return;
        }
        d.http = 1;
        d.base = d.sniffer->message_offset();
        d.cursor = d.base;
        d.listener = std::make_unique<Listener>(*this, dir);
        HttpParserLimits lim;
        lim.max_header_bytes = opt_.max_header_bytes;
        d.parser = std::make_unique<HttpStreamParser>(dir == 0 ? HttpStreamParser::Role::Request
                                                               : HttpStreamParser::Role::Response,
                                                      *d.listener, lim);
        for (auto& m : d.pending_methods) d.parser->push_request_method(m);
        d.pending_methods.clear();
        // The first message's bytes from earlier segments, each with its segment.
        auto sniffer = std::move(d.sniffer);
        for (const auto& h : sniffer->held()) {
            d.cur_seg = h.tag;
            d.parser->feed(h.bytes);
            attribute(dir, h.offset + h.bytes.size());
        }
        d.cur_seg = seg;
        uint64_t skip = d.base > offset ? d.base - offset : 0;
        d.cursor = std::max(d.cursor, offset + skip);
        d.parser->feed(data.subspan(size_t(skip)));
    } else {
        d.cursor = std::max(d.cursor, offset);
        d.parser->feed(data);
    }
    attribute(dir, offset + data.size());
    // After 101 or CONNECT 2xx the request direction carries no more HTTP either.
    Dir& req = *dirs_[0];
    if (dir == 1 && d.parser->in_tunnel()) {
        if (req.parser && !req.parser->in_tunnel()) req.parser->enter_tunnel();
        if (!req.parser && req.http != 0) {  // its request was never seen: still no HTTP in the tunnel
            req.http = 0;
            req.sniffer.reset();
        }
    }
}

void ExchangeTracker::on_gap(int dir, uint64_t offset, uint64_t len) {
    Dir& d = *dirs_[dir];
    if (!d.parser) return;  // the sniffer sees the jump in offsets
    d.parser->gap(len);
    d.cursor = std::max(d.cursor, offset + len);
}

void ExchangeTracker::on_end_of_stream(int dir) {
    Dir& d = *dirs_[dir];
    if (d.parser) d.parser->end_of_stream();
}

std::vector<ExchangeTracker::Ready> ExchangeTracker::take_ready(bool all) {
    std::vector<Ready> out;
    // A message whose start line never completed is not a call.
    if (all)
        while (!calls_.empty() && !calls_.back()->start_line) {
            for (auto& d : dirs_)
                if (d->have_active && d->active.call == calls_.back().get()) { d->have_active = false; d->active = MsgTrack{}; }
            calls_.pop_back();
            --calls_started_;
        }
    // Keep the newest completed call back (unless `all`): its trailing ACKs
    // and a possible close still belong to it.
    size_t last_done = SIZE_MAX;
    for (size_t i = 0; i < calls_.size(); ++i) if (calls_[i]->done) last_done = i;
    while (!calls_.empty()) {
        CallState& cs = *calls_.front();
        bool ready = all || (cs.done && last_done != SIZE_MAX && last_done > 0);
        if (!ready) break;
        // Its window runs to where the next call begins (or to now).
        uint64_t end = cs.seg_last + 1;
        if (calls_.size() > 1) end = std::max(end, calls_[1]->seg_first);
        else if (all) end = segs_.end_index();
        out.push_back(Ready{std::move(cs.call), cs.seg_first, end});
        calls_.pop_front();
        if (last_done != SIZE_MAX && last_done > 0) --last_done;
    }
    return out;
}

std::vector<Call> ExchangeTracker::provisional() const {
    std::vector<Call> out;
    for (auto& cs : calls_)
        if (cs->start_line) out.push_back(cs->call);
    return out;
}

uint64_t ExchangeTracker::oldest_needed_segment() const {
    if (calls_.empty()) return segs_.end_index();
    return calls_.front()->seg_first;
}

} // namespace stallscope
