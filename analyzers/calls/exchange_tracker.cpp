#include "analyzers/calls/exchange_tracker.h"

#include "analyzers/calls/message_content.h"
#include "analyzers/calls/response_pairing.h"
#include "analyzers/calls/segment_attribution.h"
#include "analyzers/accounting/summary.h"
#include "dissectors/http/http_sniffer.h"

#include <algorithm>
#include <vector>

namespace stallscope {

class ExchangeTracker::Listener : public HttpStreamListener {
public:
    Listener(ExchangeTracker& t, Side dir) : t_(t), dir_(dir) {}
    void on_message_begin(uint64_t offset) override;
    void on_start_line(const HttpMessageHead& head, uint64_t end_offset) override;
    void on_headers_complete(const HttpMessageHead& head, uint64_t end_offset) override;
    void on_body(std::span<const uint8_t> data, uint64_t body_pos) override;
    void on_message_complete(uint64_t end_offset) override;
    void on_error(const HttpParseError& error) override;
private:
    ExchangeTracker& t_;
    Side dir_;
};

// One direction: the sniffer, then the parser, and where its bytes go (SegmentAttribution).
struct ExchangeTracker::Dir : SegmentAttribution {
    int http = -1;                 // -1 not sniffed yet, 0 not HTTP, 1 HTTP
    std::unique_ptr<HttpSniffer> sniffer;  // until the first valid start line
    uint64_t base = 0;             // stream offset where the parser started
    std::unique_ptr<Listener> listener;
    std::unique_ptr<HttpStreamParser> parser;
    MessageInfo scratch;           // interim responses and orphans
    std::vector<std::string> pending_methods;  // requests seen before this parser existed
    uint32_t errors = 0;
    uint64_t seen_end = 0;         // stream offset past the last byte or gap seen
    // After 101 Switching Protocols or a CONNECT 2xx the connection carries
    // another protocol in both directions: bytes are opaque, not parsed.
    bool tunnel = false;
    bool tunnel_candidate = false; // client: the last request asked for Upgrade or CONNECT
    // Server: bytes since the last message that were never captured.
    bool hole = false;
    uint64_t hole_from = 0;
    bool hole_explained = false;   // a response dropped by the hole accounts for one missing response
    uint64_t given_up = 0;         // server: requests the pending cap gave up whose responses may still come
    // Inside parser->gap(): where the gap is and how much of it no message took.
    bool in_gap = false;
    uint64_t gap_at = 0, gap_left = 0;
    bool ended = false;            // end of stream (FIN/RST): no more bytes come
};

ExchangeTracker::ExchangeTracker(uint64_t connection_id, SegmentStore& segments, ExchangeHost& host,
                                 const AnalysisOptions& options)
    : conn_id_(connection_id), segs_(segments), host_(host), opt_(options) {
    for (auto& d : dirs_) d = std::make_unique<Dir>();
}

ExchangeTracker::~ExchangeTracker() = default;

int ExchangeTracker::http_state(Side dir) const { return parked_ ? parked_http_[dir] : dirs_[dir]->http; }

void ExchangeTracker::Listener::on_message_begin(uint64_t offset) {
    Dir& d = *t_.dirs_[dir_];
    uint64_t off = d.base + offset;
    d.attribute(t_.segs_, off);
    SegmentInfo* seg = t_.segs_.at(d.cur_seg);
    d.active = MsgTrack{};
    d.have_active = true;
    d.active.begin_frame = seg ? seg->frame : 0;
    d.active.begin_ns = seg ? seg->ts_ns : 0;
    d.active.begin_seg = d.cur_seg;
    d.active.begin_seg_prior = seg ? seg->carries : 0;
    if (dir_ == Side::Client) {
        CallStatePtr cs = new_call_state();
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
        d.scratch = MessageInfo{};
        d.active.info = &d.scratch;  // until the status line says interim or final
        d.active.head_bit = carries::kResponseHeaders;
        d.active.body_bit = carries::kResponseBody;
        d.active.begin_offset = off;  // paired once its status line proves it a response
    }
    if (d.active.info) { d.active.info->first_frame = d.active.begin_frame; d.active.info->first_ns = d.active.begin_ns; }
}

void ExchangeTracker::Listener::on_start_line(const HttpMessageHead& head, uint64_t) {
    Dir& d = *t_.dirs_[dir_];
    if (dir_ == Side::Server && d.have_active) {
        d.active.call = t_.pair_response(d.active.begin_offset, t_.segs_.at(d.active.begin_seg));
        if (!d.active.call) d.active.info = nullptr;
        return;
    }
    if (dir_ != Side::Client || !d.have_active || !d.active.call) return;
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
    // 101 Switching Protocols and a CONNECT 2xx end the call: what follows
    // on the connection is another protocol, in both directions.
    bool switches = head.status == 101 || (dir_ == Side::Server && cs && cs->call.method == "CONNECT" && head.status / 100 == 2);
    if (dir_ == Side::Server && switches) t_.enter_tunnel(true);
    if (dir_ == Side::Server && cs) {
        if (head.status >= 100 && head.status < 200 && !switches) {
            m.interim = true;
            m.head_bit = m.body_bit = carries::kContinue;
            relabel_interim_head(t_.segs_, m.begin_seg, m.begin_seg_prior, d.cur_seg);
            if (head.status == 100 && !cs->call.got_continue) {
                cs->call.got_continue = true;
                cs->call.continue_frame = m.begin_frame;
                cs->call.continue_ns = m.begin_ns;
            }
        } else {
            // The final response: move what was tracked so far into the call.
            cs->call.response = d.scratch;
            cs->final_head = true;
            m.info = &cs->call.response;
            const HeadFields fields(head);
            fill_response_fields(cs->call, head, fields);
            cs->bodies[Side::Server].set_head(fields);
        }
    }
    if (dir_ == Side::Client && cs) {
        const HeadFields fields(head);  // one pass over the fields for all that is read of them
        fill_request_fields(cs->call, head, fields);
        cs->bodies[Side::Client].set_head(fields);
        d.tunnel_candidate = head.method == "CONNECT" || fields.upgrade != nullptr;
        t_.request_waits(*cs, d.base + end_offset, head.method);
    }
    d.attribute(t_.segs_, d.base + end_offset);
    if (m.info) {
        SegmentInfo* seg = t_.segs_.at(d.cur_seg);
        m.info->header_bytes = head.header_bytes;
        m.info->headers_end_frame = seg ? seg->frame : 0;
        m.info->headers_end_ns = seg ? seg->ts_ns : 0;
    }
    m.in_body = true;
}

void ExchangeTracker::Listener::on_body(std::span<const uint8_t> data, uint64_t) {
    Dir& d = *t_.dirs_[dir_];
    if (!d.have_active || !d.active.call || d.active.interim) return;
    d.active.call->bodies[dir_].append(data, t_.opt_.max_soap_body_bytes);
    t_.borrowed_ = true;
}

void ExchangeTracker::keep_bodies(Side dir) {
    if (!borrowed_) return;
    borrowed_ = false;
    for (auto& cs : calls_) cs->bodies[dir].keep();
}

void ExchangeTracker::Listener::on_message_complete(uint64_t end_offset) {
    Dir& d = *t_.dirs_[dir_];
    d.attribute(t_.segs_, d.base + end_offset);
    if (!d.have_active) return;
    if (d.in_gap && d.active.info) {
        // A gap that ran into this body ended it: its part of the gap is missing.
        uint64_t k = std::min(d.gap_left, d.base + end_offset - std::min(d.base + end_offset, d.gap_at));
        d.active.info->missing_bytes += k;
        d.gap_at += k;
        d.gap_left -= k;
    }
    MsgTrack m = d.active;
    d.have_active = false;
    d.active = MsgTrack{};
    if (!m.call || m.interim) return;
    CallState& cs = *m.call;
    if (dir_ == Side::Client) {
        cs.call.request.complete = cs.call.request.missing_bytes == 0;
        t_.finish_soap(cs, false);
        return;
    }
    Call& c = cs.call;
    // A message with bytes never captured is not complete (its framing held).
    c.response.complete = c.response.missing_bytes == 0;
    c.complete = c.response.complete && c.request.missing_bytes == 0;
    c.response_last_frame = c.complete ? c.response.last_frame : 0;  // documented: null when incomplete
    c.end_ns = c.response.last_ns;
    c.latency_ms = double(c.end_ns - c.start_ns) / 1e6;
    t_.set_done(cs);
    t_.finish_soap(cs, true);
}

void ExchangeTracker::Listener::on_error(const HttpParseError& e) {
    Dir& d = *t_.dirs_[dir_];
    SegmentInfo* seg = t_.segs_.at(d.cur_seg);
    if (dir_ == Side::Client && d.tunnel_candidate && e.effect == HttpErrorEffect::Rejected) {
        // The client started talking the protocol it asked for (WebSocket,
        // h2c, TLS through CONNECT) before the 101/2xx was processed.
        t_.enter_tunnel(false);
        return;
    }
    static constexpr const char* kWhat[] = {
        "",                                                 // Warning
        ", message dropped; parsing resumes at the next message",  // Dropped
        ", not HTTP/1.x; parsing resumes at the next message",     // Rejected
        ", bytes skipped up to the next message",                  // Skipped
    };
    if (e.code != HttpError::TunnelEntered && ++d.errors <= 20) {
        t_.host_.warn(WarningCode::HttpStreamError, std::string(dir_ == Side::Client ? "request" : "response") + " stream: " + e.message + " (stream offset " +
                          std::to_string(d.base + e.offset) + kWhat[size_t(e.effect)] + ")",
                      seg ? seg->frame : 0);
    }
    if (d.in_gap && e.effect != HttpErrorEffect::Warning) t_.gap_dropped(dir_, e.effect == HttpErrorEffect::Rejected);
    if (e.effect != HttpErrorEffect::Warning && d.have_active) {
        // Bytes that never had a valid HTTP/1.x start line are not a call:
        // drop the one opened at message begin.
        CallState* cs = d.active.call;
        if (e.effect == HttpErrorEffect::Rejected && dir_ == Side::Client && cs && !cs->start_line && !t_.calls_.empty() &&
            t_.calls_.back().get() == cs) {
            t_.calls_.pop_back();
            --t_.calls_started_;
        }
        d.have_active = false;
        d.active = MsgTrack{};
    }
}

void ExchangeTracker::finish_soap(CallState& cs, bool response) {
    if (!response) cs.request_ended = true;
    MessageInfo& msg = response ? cs.call.response : cs.call.request;
    // One answer per call, once its operation is known (the request's head):
    // a response ending before its request is read whole, as its call's key
    // is not known yet (analyzers/accounting/xml_sample.h).
    DeflateSampler* xml = opt_.full_xml ? nullptr : host_.xml_sampler();
    // The request body's size weighs in the pick (sample_weight); asked for
    // the response, it is the request's measured size (0 if it had none).
    auto read_whole = [&](uint64_t bytes) {
        if (response && !cs.request_ended) return true;
        const uint64_t request_bytes = response ? cs.call.request.content_bytes : bytes;
        if (cs.whole_xml < 0) cs.whole_xml = xml->picks(operation_key(cs.call), cs.call.request.first_frame, request_bytes) ? 1 : 0;
        return cs.whole_xml == 1;
    };
    // The body's name is for warnings only: made when one is given.
    auto what = [&] { return std::string(response ? "response" : "request") + " body of call {call}"; };
    auto warn = [&](WarningCode code, const std::string& w) { host_.warn(code, w, msg.last_frame, cs.call.id); };
    auto sample_key = [&] { return std::string(response ? "response " : "request ") + operation_key(cs.call); };
    cs.bodies[response ? Side::Server : Side::Client].finish(opt_, msg, response ? cs.call.soap_response : cs.call.soap, what,
                                       warn, host_.deflate_sampler(), sample_key,
                                       xml ? FunctionRef<bool(uint64_t)>(read_whole) : FunctionRef<bool(uint64_t)>());
}

void ExchangeTracker::set_done(CallState& cs) {
    if (cs.waiting()) --waiting_;
    cs.done = true;
}

// The response parser still holds the method of a request whose response
// will never be parsed: drop it so HEAD responses stay aligned.
void ExchangeTracker::discard_method(CallState& cs) {
    if (cs.final_head || !cs.have_request_head) return;
    Dir& resp = *dirs_[Side::Server];
    if (resp.parser) resp.parser->discard_request_method();
    else if (!resp.pending_methods.empty()) resp.pending_methods.erase(resp.pending_methods.begin());
}

// A request head is complete: it waits for a response, unless one was
// captured before it; past the pending cap the oldest waiting one is given up.
void ExchangeTracker::request_waits(CallState& cs, uint64_t head_end, const std::string& method) {
    cs.have_request_head = true;
    cs.req_head_end = head_end;
    if (SegmentInfo* s = segs_.at(dirs_[Side::Client]->active.begin_seg)) cs.req_ack = host_.stream_ack(Side::Server, s->ack);
    ++waiting_;
    if (!early_.empty() && ack_covers(early_.front().ack, head_end)) {
        // The early response popped a method already: do not push this one.
        host_.warn(WarningCode::ResponseBeforeRequest,
                   "the response at frame " + std::to_string(early_.front().frame) +
                       " was captured before its request (frame " + std::to_string(cs.call.request.first_frame) +
                       ", call {call}): not paired, the request is reported unanswered",
                   cs.call.request.first_frame, cs.call.id);
        early_.pop_front();
        set_done(cs);
        return;
    }
    Dir& resp = *dirs_[Side::Server];
    // A response direction given up as not HTTP (the capture began inside a
    // response longer than the sniffing budget) is sniffed again from its
    // next bytes: this request waits for an answer there.
    if (resp.http == 0 && !resp.tunnel && !resp.ended) resp.http = -1;
    if (resp.parser) resp.parser->push_request_method(method);
    else resp.pending_methods.push_back(method);
    if (waiting_ <= opt_.max_pending_requests) return;
    for (auto& c : calls_) {
        if (!c->waiting()) continue;
        if (!pending_cap_warned_) {
            pending_cap_warned_ = true;
            host_.warn(WarningCode::PendingRequestCap, "pending-request cap (" + std::to_string(opt_.max_pending_requests) + ") hit at frame " +
                           std::to_string(cs.call.request.first_frame) +
                           ": more requests wait for a response than that; the oldest are given up (reported "
                           "unanswered, their responses not timed)",
                       cs.call.request.first_frame);
        }
        set_done(*c);
        ++resp.given_up;
        break;
    }
}

// Which waiting request the response starting at server offset `off` answers.
CallState* ExchangeTracker::pair_response(uint64_t off, const SegmentInfo* seg) {
    Dir& d = *dirs_[Side::Server];
    const uint64_t frame = seg ? seg->frame : 0;
    ResponseStart r;
    r.offset = off;
    r.ack = seg ? host_.stream_ack(Side::Client, seg->ack) : 0;
    r.hole = d.hole;
    r.hole_from = d.hole_from;
    r.hole_explained = d.hole_explained;
    d.hole = d.hole_explained = false;
    if (d.given_up > 0) { --d.given_up; return nullptr; }  // answers a request the pending cap gave up
    // Reused from response to response (per thread): no allocation per response.
    thread_local std::vector<CallState*> calls;
    thread_local std::vector<WaitingRequest> waiting;
    calls.clear();
    waiting.clear();
    for (auto& cs : calls_) {
        if (!cs->waiting()) continue;
        if (!ack_covers(r.ack, cs->req_head_end)) break;  // nor can any later one
        calls.push_back(cs.get());
        waiting.push_back({cs->req_head_end, cs->req_ack});
    }
    PairingChoice pc = choose_request(waiting, r);
    if (!pc.answers_one) {
        std::string why;
        for (auto& cs : calls_)
            if (cs->waiting()) {
                why = "; the server had not received the request at frame " + std::to_string(cs->call.request.first_frame) +
                      " when it sent this (ACK)";
                break;
            }
        host_.warn(WarningCode::ResponseWithoutRequest, "response without a request (stream offset " + std::to_string(off) + why + ")", frame);
        // It acknowledges client bytes not seen yet: its request comes later in the capture.
        if (r.ack && ack_covers(r.ack, dirs_[Side::Client]->seen_end + 1) && early_.size() < kMaxEarlyResponses)
            early_.push_back({r.ack, frame});
        return nullptr;
    }
    CallState* answered = calls[pc.index];
    for (size_t i = 0; i < pc.index; ++i) {
        CallState& lost = *calls[i];
        host_.warn(WarningCode::ResponseNotCaptured,
                   "no response captured for the request at frame " + std::to_string(lost.call.request.first_frame) +
                       " (call {call}): the server's stream has a hole from offset " +
                       std::to_string(r.hole_from) + " to " + std::to_string(off) + " before the response at frame " +
                       std::to_string(frame) + ", which answers the request at frame " +
                       std::to_string(answered->call.request.first_frame),
                   lost.call.request.first_frame, lost.call.id);
        discard_method(lost);
        set_done(lost);
    }
    return answered;
}

// A gap ended the message in progress on `dir`, or lay between messages
// (the parser resynchronises). `rejected`: the message had no complete start
// line, so it is not a message at all (the caller forgets it).
void ExchangeTracker::gap_dropped(Side dir, bool rejected) {
    Dir& d = *dirs_[dir];
    if (dir == Side::Server && !d.hole) { d.hole = true; d.hole_from = d.gap_at; }
    if (!d.have_active || rejected) return;
    MsgTrack& m = d.active;
    if (m.info) m.info->missing_bytes += d.gap_left;
    d.gap_left = 0;
    if (m.call && dir == Side::Server && !m.interim) {
        // Its response was cut short: the request is answered, incompletely
        // (the parser consumed its method with the dropped head).
        set_done(*m.call);
        d.hole_explained = true;
    } else if (m.call && dir == Side::Client && !m.call->have_request_head) {
        // A request cut inside its head still gets a response.
        request_waits(*m.call, d.gap_at, m.call->call.method);
    }
}

// The connection stops being HTTP (`both`: the server switched; else only
// the client started early); a message the client began in the new
// protocol's bytes is not a call.
void ExchangeTracker::enter_tunnel(bool both) {
    for (Side dir : kSides) {
        if (dir == Side::Server && !both) break;
        Dir& d = *dirs_[dir];
        d.tunnel = true;
        if (dir == Side::Client && d.have_active && d.active.call && !d.active.call->have_request_head && !calls_.empty() &&
            calls_.back().get() == d.active.call) {
            calls_.pop_back();
            --calls_started_;
            d.have_active = false;
            d.active = MsgTrack{};
        }
    }
}

void ExchangeTracker::begin_packet() {
    if (parked_) return;
    for (auto& d : dirs_) d->begin_packet();
}

void ExchangeTracker::on_data(Side dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg) {
    if (parked_) return;
    Dir& d = *dirs_[dir];
    d.seen_end = std::max(d.seen_end, offset + data.size());
    if (d.http == 0 || d.ended) return;
    d.deliver(segs_, seg);
    if (d.tunnel) {
        if (SegmentInfo* s = segs_.at(seg)) s->carries |= carries::kOther;
        d.cursor = std::max(d.cursor, offset + data.size());
        return;
    }
    if (!d.parser) {
        // Find HTTP by content, on the reassembled stream: a direction is
        // HTTP once a whole valid start line is seen (split over segments
        // or not). Until then (capture began mid-message, or not HTTP) its
        // bytes are not parsed.
        if (!d.sniffer) d.sniffer = std::make_unique<HttpSniffer>(dir == Side::Client, HttpSniffer::kDefaultBudget, opt_.max_header_bytes);
        auto verdict = d.sniffer->feed(offset, data, seg);
        if (auto at = d.sniffer->take_rejected_first_line()) {
            SegmentInfo* s = segs_.at(*at);
            host_.warn(WarningCode::NotHttp, dir == Side::Client ? "request stream: first line is not an HTTP/1.x request line (HTTP/0.9 or malformed): not a call"
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
        first_message_[dir] = d.base;
        d.cursor = d.base;
        d.listener = std::make_unique<Listener>(*this, dir);
        HttpParserLimits lim;
        lim.max_header_bytes = opt_.max_header_bytes;
        d.parser = std::make_unique<HttpStreamParser>(dir == Side::Client ? HttpStreamParser::Role::Request
                                                               : HttpStreamParser::Role::Response,
                                                      *d.listener, lim);
        for (auto& m : d.pending_methods) d.parser->push_request_method(m);
        d.pending_methods.clear();
        // The first message's bytes from earlier segments, each with its segment.
        auto sniffer = std::move(d.sniffer);
        for (const auto& h : sniffer->held()) {
            d.cur_seg = h.tag;
            d.parser->feed(h.bytes);
            d.attribute(segs_, h.offset + h.bytes.size());
        }
        d.cur_seg = seg;
        uint64_t skip = d.base > offset ? d.base - offset : 0;
        d.cursor = std::max(d.cursor, offset + skip);
        d.parser->feed(data.subspan(size_t(skip)));
        keep_bodies(dir);  // before the sniffer's held bytes go
    } else {
        d.cursor = std::max(d.cursor, offset);
        d.parser->feed(data);
        keep_bodies(dir);
    }
    d.attribute(segs_, offset + data.size());
    // After 101 or CONNECT 2xx the request direction carries no more HTTP either.
    Dir& req = *dirs_[Side::Client];
    if (dir == Side::Server && d.parser->in_tunnel()) {
        if (req.parser && !req.parser->in_tunnel()) req.parser->enter_tunnel();
        if (!req.parser && req.http != 0) {  // its request was never seen: still no HTTP in the tunnel
            req.http = 0;
            req.sniffer.reset();
        }
    }
}

void ExchangeTracker::on_gap(Side dir, uint64_t offset, uint64_t len) {
    if (parked_) return;
    Dir& d = *dirs_[dir];
    d.seen_end = std::max(d.seen_end, offset + len);
    if (d.tunnel || d.ended) return;
    if (!d.parser) {
        // Not parsing yet (the sniffer sees the jump in offsets); a response may be in it.
        if (dir == Side::Server && !d.hole) { d.hole = true; d.hole_from = offset; }
        return;
    }
    // Gap bytes are no message's bytes on the wire: never attributed.
    d.cursor = std::max(d.cursor, offset + len);
    d.in_gap = true;
    d.gap_at = offset;
    d.gap_left = len;
    d.parser->gap(len);
    d.in_gap = false;
    // Skipped inside a body of known (or close-delimited) length: the
    // message keeps its framing but is not complete.
    if (d.gap_left && d.have_active && d.active.info) {
        d.active.info->missing_bytes += d.gap_left;
        SegmentInfo* s = segs_.at(d.cur_seg);
        if (d.active.call && ++d.errors <= 20)
            host_.warn(WarningCode::BodyNotCaptured,
                       std::string(dir == Side::Client ? "request" : "response") + " body of call {call}: " +
                           std::to_string(d.gap_left) + " bytes never captured (stream offset " +
                           std::to_string(offset) + "); the call is not complete",
                       s ? s->frame : 0, d.active.call->call.id);
    }
    d.gap_left = 0;
}

void ExchangeTracker::on_end_of_stream(Side dir) {
    if (parked_) return;
    Dir& d = *dirs_[dir];
    if (d.parser && !d.tunnel) d.parser->end_of_stream();
    d.ended = true;
    if (!dirs_[other_side(dir)]->ended) return;
    // Both directions are over: the parsers have nothing more to do. A closed
    // connection lingers a while for late ACKs; it keeps only its calls.
    for (auto& e : dirs_) {
        e->parser.reset();
        e->listener.reset();
        e->sniffer.reset();
        e->pending_methods = {};
        if (!e->have_active) e->scratch = MessageInfo{};
    }
}

void ExchangeTracker::take_ready(bool all, std::vector<Ready>& out) {
    out.clear();
    if (parked_) {
        if (all) parked_calls_.take_all(segs_.end_index(), calls_started_, out);
        return;
    }
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
        // In a tunnel no more HTTP comes: every call is finished.
        bool ready = all || dirs_[Side::Server]->tunnel || (cs.done && last_done != SIZE_MAX && last_done > 0);
        if (!ready) break;
        // Its window runs to where the next call begins (or to now).
        uint64_t end = cs.seg_last + 1;
        if (calls_.size() > 1) end = std::max(end, calls_[1]->seg_first);
        else if (all) end = segs_.end_index();
        const uint64_t first = cs.seg_first;
        out.push_back(Ready{std::move(calls_.front()), first, end});
        calls_.pop_front();
        if (last_done != SIZE_MAX && last_done > 0) --last_done;
    }
}

std::vector<Call> ExchangeTracker::provisional() const {
    std::vector<Call> out;
    for (auto& cs : calls_)
        if (cs->start_line) out.push_back(cs->call);
    parked_calls_.provisional(out);
    return out;
}

uint64_t ExchangeTracker::oldest_needed_segment() const {
    if (parked_) return parked_calls_.oldest_needed_segment(segs_.end_index());
    if (calls_.empty()) return segs_.end_index();
    return calls_.front()->seg_first;
}

void ExchangeTracker::park() {
    if (parked_) return;
    parked_ = true;
    parked_calls_.park(calls_);
    early_ = {};
    for (Side d : kSides) {
        parked_http_[d] = dirs_[d]->http;
        dirs_[d].reset();
    }
}

} // namespace stallscope
