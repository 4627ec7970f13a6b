#include "analyzers/calls/tls_keyless_calls.h"

#include "analyzers/calls/tls_record_sizes.h"
#include "analyzers/result/tls_carries.h"
#include "dissectors/tls/tls_handshake.h"
#include "dissectors/tls/tls_record.h"

#include <algorithm>
#include <utility>

namespace stallscope {

namespace {
constexpr uint32_t kContinueBytes = 25;  // "HTTP/1.1 100 Continue\r\n\r\n" (and the 1.0 form)
constexpr uint32_t bit(uint8_t handshake_type) { return 1u << handshake_type; }
} // namespace

TlsKeylessCalls::TlsKeylessCalls(uint64_t connection_id, SegmentStore& segments, ExchangeHost& host,
                                 const TlsSession& session)
    : conn_id_(connection_id), segs_(segments), host_(host), session_(session) {}

uint32_t TlsKeylessCalls::plaintext(uint32_t length) const {
    const TlsConnectionInfo& info = session_.info();
    TlsRecordOverhead o = tls_record_overhead(info.version, info.cipher_suite);
    return length > o.bytes ? length - o.bytes : 0;
}

// Sets `bits` on the segments of direction `dir` that carried the record.
void TlsKeylessCalls::mark(Side dir, const TlsRecordEvent& r, uint16_t bits) {
    for (uint64_t i = r.first_seg; i <= r.last_seg; ++i)
        if (SegmentInfo* s = segs_.at(i); s && s->from == dir && s->len > 0) s->carries |= bits;
}

// Decrypted records go to the HTTP tracker; 0-RTT records wait for the
// ServerHello there while secrets are given and nothing failed yet.
bool TlsKeylessCalls::read_with_keys(const TlsRecordEvent& r) const {
    const TlsDecryption& d = session_.decryption();
    return r.inner_type != 0 || (d.attempted && d.failure == TlsDecryptFailure::None) || session_.holding_early_data();
}

bool TlsKeylessCalls::is_handshake_record(Side dir, const TlsRecordEvent& r) {
    if (r.type != tls::kApplicationData) return true;  // handshake, ChangeCipherSpec, alerts, heartbeats
    if (r.inner_type) {  // decrypted: its real type
        if (dir == Side::Client && session_.info().tls13()) client_finished_ = true;
        return r.inner_type != tls::kApplicationData;
    }
    const TlsConnectionInfo& info = session_.info();
    if (!info.tls13()) return false;
    // TLS 1.3 hides its handshake in application-data records (see the header).
    if (!client_finished_) {
        if (dir == Side::Client) client_finished_ = true;
        return true;
    }
    if (dir == Side::Server && !any_response_ && (!any_request_ || (ticket_len_ && r.length == ticket_len_))) {
        ticket_len_ = r.length;
        ++keyless_tickets_;
        ticket_guess_ = true;
        return true;
    }
    return is_alert(r);
}

// An alert in the clear, decrypted, or (TLS 1.3 without keys) a record of
// exactly 2 bytes of plaintext: no handshake message is that short.
bool TlsKeylessCalls::is_alert(const TlsRecordEvent& r) const {
    if (r.type == tls::kAlert || r.inner_type == tls::kAlert) return true;
    if (r.type != tls::kApplicationData || r.inner_type || !session_.info().tls13()) return false;
    TlsRecordOverhead o = tls_record_overhead(session_.info().version, session_.info().cipher_suite);
    return o.exact && r.length == 2 + o.bytes;
}

// The handshake messages a record completed, as carries::kTls* bits (on its last segment).
// `finished12`: the record is TLS 1.2's (or earlier's) encrypted Finished.
// `ticket`: TLS 1.3's NewSessionTicket by its place (read without keys).
static uint16_t tls_messages(const TlsRecordEvent& r, bool finished12, bool alert, bool ticket) {
    if (r.type == tls::kChangeCipherSpec) return carries::kTlsChangeCipherSpec;
    if (alert) return carries::kTlsAlert;
    const uint32_t t = r.handshake_types;
    uint16_t m = 0;
    if (t & bit(tls::kClientHello)) m |= carries::kTlsClientHello;
    if (t & bit(tls::kServerHello)) m |= carries::kTlsServerHello;
    if (t & bit(tls::kCertificate)) m |= carries::kTlsCertificate;
    if (t & (bit(tls::kServerKeyExchange) | bit(tls::kClientKeyExchange) | bit(tls::kServerHelloDone) |
             bit(tls::kCertificateRequest) | bit(tls::kCertificateVerify)))
        m |= carries::kTlsKeyExchange;
    if (t & bit(tls::kFinished)) m |= carries::kTlsFinished;
    if (t & bit(tls::kNewSessionTicket)) m |= carries::kTlsSessionTicket;
    if (!m && finished12) m = carries::kTlsFinished;
    if (!m && ticket) m = carries::kTlsSessionTicket;
    // Nothing readable: TLS 1.3's encrypted flight (or a TLS 1.2 renegotiation).
    if (!m && (r.type == tls::kApplicationData || r.encrypted)) m = carries::kTlsEncryptedHandshake;
    return m;
}

void TlsKeylessCalls::on_handshake_record(Side dir, const TlsRecordEvent& r) {
    mark(dir, r, carries::kTlsHandshake);
    // Before TLS 1.3 the first handshake message encrypted after ChangeCipherSpec is always the Finished.
    bool finished12 = r.type == tls::kHandshake && r.encrypted && !r.handshake_types && !session_.info().tls13() &&
                      !encrypted_finished_[dir];
    if (finished12) encrypted_finished_[dir] = true;
    if (SegmentInfo* s = segs_.at(r.last_seg); s && s->len > 0 && s->from == dir)
        s->carries |= tls_messages(r, finished12, is_alert(r), std::exchange(ticket_guess_, false));
    if (r.type == tls::kAlert || any_request_) return;  // the handshake ends before the first request
    const SegmentInfo* first = segs_.at(r.first_seg);
    const SegmentInfo* last = segs_.at(r.last_seg);
    if (!hs_first_frame_ && first) {
        hs_first_frame_ = first->frame;
        hs_start_ns_ = first->ts_ns;
    }
    // Tickets come after the handshake: they do not lengthen it.
    bool ticket = (r.handshake_types & bit(tls::kNewSessionTicket)) && session_.info().tls13();
    if (last && !ticket && !(dir == Side::Server && client_finished_ && session_.info().tls13())) {
        hs_last_frame_ = last->frame;
        hs_end_ns_ = last->ts_ns;
    }
}

void TlsKeylessCalls::on_tls_record(Side dir, const TlsRecordEvent& r) {
    // The server's first flight: from its ServerHello until the client answers.
    if (dir == Side::Server && (r.handshake_types & bit(tls::kServerHello)) && !flight_closed_) flight_open_ = true;
    if (dir == Side::Client && flight_open_) { flight_open_ = false; flight_closed_ = true; }
    if (dir == Side::Server && flight_open_) {
        flight_bytes_ += uint64_t(r.length) + tls::kHeaderBytes;
        for (uint64_t i = r.first_seg; i <= r.last_seg; ++i) {
            if (flight_seg_counted_ && i <= flight_last_seg_) continue;
            if (const SegmentInfo* s = segs_.at(i); s && s->from == Side::Server && s->len > 0) ++flight_segments_;
        }
        flight_last_seg_ = r.last_seg;
        flight_seg_counted_ = true;
    }
    if (is_handshake_record(dir, r)) on_handshake_record(dir, r);
    else on_data_record(dir, r);
}

void TlsKeylessCalls::on_data_record(Side dir, const TlsRecordEvent& r) {
    if (read_with_keys(r)) {  // the tracker makes the calls (with HTTP carries on the segments)
        keyed_data_ = true;
        (dir == Side::Client ? any_request_ : any_response_) = true;  // the handshake is over
        return;
    }
    Record rec{r.first_seg, r.last_seg, plaintext(r.length)};
    if (dir == Side::Client) {
        // The client speaks after the server answered: the call before is over,
        // unless that answer was an interim 100 Continue.
        if (!open_.empty() && !open_.back().resp.empty() && !take_as_continue(open_.back())) close_open(r.first_seg);
        if (open_.empty()) {
            Open o;
            o.call.id = host_.new_call_id();
            o.call.connection_id = conn_id_;
            o.call.index_on_connection = calls_started_++;
            o.call.encrypted = true;
            o.seg_first = o.call.index_on_connection == 0 ? 0 : r.first_seg;  // the first call keeps the handshake
            open_.push_back(std::move(o));
        }
        open_.back().req.push_back(rec);
        any_request_ = true;
        mark(dir, r, carries::kRequestBody | carries::kEncrypted);
        return;
    }
    if (open_.empty()) {  // server data before any request (capture began mid-response): no call
        mark(dir, r, carries::kOther);
        return;
    }
    open_.back().resp.push_back(rec);
    any_response_ = true;
    mark(dir, r, carries::kResponseBody | carries::kEncrypted);
}

void TlsKeylessCalls::on_tls_end_of_stream(Side) {}

bool TlsKeylessCalls::take_as_continue(Open& o) {
    const TlsConnectionInfo& info = session_.info();
    if (o.head_records || o.resp.size() != 1 || o.resp.front().plaintext != kContinueBytes) return false;
    if (!tls_record_overhead(info.version, info.cipher_suite).exact) return false;
    const SegmentInfo* s = segs_.at(o.resp.front().last_seg);
    if (!s) return false;
    o.call.expect_continue = o.call.got_continue = true;  // inferred: the 100 says the request asked for it
    o.call.continue_frame = s->frame;
    o.call.continue_ns = s->ts_ns;
    o.head_records = o.req.size();
    o.resp.clear();
    return true;
}

void TlsKeylessCalls::fill_message(MessageInfo& m, const std::vector<Record>& recs, size_t head_records) {
    if (recs.empty()) return;
    const SegmentInfo* first = segs_.at(recs.front().first_seg);
    const SegmentInfo* last = segs_.at(recs.back().last_seg);
    if (!first || !last) return;  // past the segment cap: the message is unknown
    // No HTTP head is visible: the whole message is "body" from its first record on.
    m.first_frame = m.headers_end_frame = m.body_first_frame = first->frame;
    m.first_ns = m.headers_end_ns = m.body_first_ns = first->ts_ns;
    m.last_frame = last->frame;
    m.last_ns = last->ts_ns;
    // Before an interim 100 Continue: the records sent first were the head.
    const SegmentInfo* head_end = head_records ? segs_.at(recs[head_records - 1].last_seg) : nullptr;
    const SegmentInfo* body = head_records && head_records < recs.size() ? segs_.at(recs[head_records].first_seg) : nullptr;
    if (head_end && body) {
        m.headers_end_frame = head_end->frame;
        m.headers_end_ns = head_end->ts_ns;
        m.body_first_frame = body->frame;
        m.body_first_ns = body->ts_ns;
    }
    m.header_bytes = 0;
    m.body_bytes = 0;
    for (size_t i = 0; i < recs.size(); ++i) {
        const Record& r = recs[i];
        (i < head_records ? m.header_bytes : m.body_bytes) += r.plaintext;
        m.write_sizes.push_back(r.plaintext);  // per record (one SSL_write each, up to 16 KB)
        if (const SegmentInfo* s = segs_.at(r.last_seg)) m.frames.push_back(s->frame);
    }
    m.complete = true;
}

void TlsKeylessCalls::close_open(uint64_t seg_end) {
    Open o = std::move(open_.front());
    open_.erase(open_.begin());
    Call& c = o.call;
    fill_message(c.request, o.req, o.head_records);
    fill_message(c.response, o.resp);
    c.request_first_frame = c.request.first_frame;
    c.start_ns = c.request.first_ns;
    c.complete = c.request.first_frame && c.response.last_frame;
    c.response_last_frame = c.response.last_frame;
    c.end_ns = c.complete ? c.response.last_ns : c.request.last_ns;
    c.latency_ms = c.complete ? double(c.end_ns - c.start_ns) / 1e6 : 0.0;
    done_.push_back(Ready{std::move(c), o.seg_first, std::max(seg_end, o.seg_first)});
}

void TlsKeylessCalls::take_ready(bool all, std::vector<Ready>& out) {
    out.clear();
    if (all)
        while (!open_.empty()) close_open(segs_.end_index());
    for (auto& r : done_) out.push_back(std::move(r));
    done_.clear();
}

void TlsKeylessCalls::release_spare() {
    if (done_.empty()) done_ = std::vector<Ready>();
}

uint64_t TlsKeylessCalls::oldest_needed_segment() const {
    if (!done_.empty()) return done_.front().seg_first;
    if (!open_.empty()) return open_.front().seg_first;
    if (calls_started_ == 0 && !keyed_data_) return 0;  // the first call will take the handshake's segments
    return segs_.end_index();
}

void TlsKeylessCalls::describe(ConnectionTls& t) const {
    const TlsConnectionInfo& info = session_.info();
    // describe() runs after every packet: the names and the reason are
    // built only when what they say changed (`t` is written only here).
    if (info.version != named_.version || info.cipher_suite != named_.suite || !named_.valid) {
        t.version = info.version ? tls_version_name(info.version) : "";
        t.cipher_suite = info.cipher_suite ? tls_cipher_suite_name(info.cipher_suite) : "";
    }
    t.sni = info.sni;
    t.alpn = info.alpn;
    t.resumed = info.resumed;
    if (const auto& ch = info.client_hello) {
        // TLS 1.3's legacy session id is random (middlebox compatibility): only a PSK offers a session there.
        bool tls13 = ch->max_version() >= tls::kTls13;
        t.resumption_offered = ch->pre_shared_key || ch->session_ticket_bytes > 0 || (!tls13 && !ch->session_id.empty());
    }
    // reason: the failure's token (tls_decrypt_failure_name), then what was done instead.
    const TlsDecryption& d = session_.decryption();
    t.decrypted = d.decrypted && d.failure == TlsDecryptFailure::None;
    TlsDecryptFailure why = d.failure;
    if (!info.client_hello) why = TlsDecryptFailure::HandshakeMissing;
    else if (!d.attempted || why == TlsDecryptFailure::None) why = TlsDecryptFailure::NoKeyLog;
    const Named now{info.version, info.cipher_suite, why, t.decrypted, d.decrypted, d.failure_frame, true};
    if (!(now == named_)) {
        if (t.decrypted) t.reason = "";
        else if (d.decrypted)  // decrypted up to a point, then not
            t.reason = std::string(tls_decrypt_failure_name(why)) + " from frame " + std::to_string(d.failure_frame) +
                       ": later calls from TLS records and timing";
        else
            t.reason = std::string(tls_decrypt_failure_name(why)) + ": calls from TLS records and timing";
        named_ = now;
    }
    t.handshake_first_frame = hs_first_frame_;
    t.handshake_last_frame = hs_last_frame_;
    t.handshake_start_ns = hs_start_ns_;
    t.handshake_end_ns = hs_end_ns_;
    t.certificate_bytes = info.certificate_bytes;
    t.server_flight_bytes = flight_bytes_;
    t.server_flight_segments = flight_segments_;
    t.session_tickets = info.session_tickets + keyless_tickets_;
    TlsRecordOverhead o = tls_record_overhead(info.version, info.cipher_suite);
    t.record_overhead = o.bytes;
    t.sizes_exact = o.exact;
}

} // namespace stallscope
