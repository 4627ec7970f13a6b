#pragma once
// Calls from TLS records without keys (the direction-change method): a call
// is the client's application-data records up to the server's answer and
// the server's records up to the client's next record. Sizes are the
// records' plaintext (record length minus the suite's overhead); method,
// URI, status and operation stay unknown (Call::encrypted). Pipelined
// requests cannot be told apart: two requests sent before the first answer
// are one call. Also keeps the connection's handshake facts (ConnectionTls).
//
// TLS 1.3 hides its handshake in application-data records; taken for
// handshake, not data: the server's records between its ServerHello and the
// client's first encrypted record (EncryptedExtensions ... Finished), that
// client record (its Finished; a client certificate would add records we
// then take for a request), the server's records after it and before the
// first request record (session tickets) and, until the first response,
// server records of a ticket's exact length (the second ticket often comes
// after the request started); records of an alert's length (close_notify).
//
// Expect: 100-continue: a server answer that is one record of exactly the
// plaintext of "HTTP/1.1 100 Continue\r\n\r\n" (25 bytes, AEAD suites only),
// followed by more client records, is taken for the interim response: the
// call goes on (got_continue), the records before it are the request head.
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/calls/segment_store.h"
#include "analyzers/calls/tls_session.h"
#include "analyzers/result/model.h"

#include <cstdint>
#include <vector>

namespace stallscope {

class TlsKeylessCalls : public TlsSessionObserver {
public:
    TlsKeylessCalls(uint64_t connection_id, SegmentStore& segments, ExchangeHost& host, const TlsSession& session);

    void on_tls_record(Side dir, const TlsRecordEvent& record) override;
    void on_tls_end_of_stream(Side dir) override;

    struct Ready {
        Call call;
        uint64_t seg_first = 0, seg_end = 0;  // the call's segment window [first, end)
    };
    // Finished calls (every call but the open one, or all when `all`), in order.
    void take_ready(bool all, std::vector<Ready>& out);
    // The connection is closed: no buffer for finished calls is kept while
    // it lingers (a call's worth, about 900 bytes, for every closed TLS
    // connection of the last second); one is made again if a call finishes.
    void release_spare();
    uint64_t oldest_needed_segment() const;
    uint32_t calls_started() const { return calls_started_; }
    // The handshake as far as it was seen, and the record sizes' overhead.
    void describe(ConnectionTls& out) const;

private:
    struct Record { uint64_t first_seg, last_seg; uint32_t plaintext; };
    struct Open {
        Call call;
        std::vector<Record> req, resp;
        uint64_t seg_first = 0;
        size_t head_records = 0;  // records before an interim 100 Continue (0: none seen)
    };
    bool is_handshake_record(Side dir, const TlsRecordEvent& r);
    bool is_alert(const TlsRecordEvent& r) const;
    bool read_with_keys(const TlsRecordEvent& r) const;
    void on_handshake_record(Side dir, const TlsRecordEvent& r);
    void on_data_record(Side dir, const TlsRecordEvent& r);
    void mark(Side dir, const TlsRecordEvent& r, uint16_t bits);
    void close_open(uint64_t seg_end);
    void fill_message(MessageInfo& m, const std::vector<Record>& recs, size_t head_records = 0);
    bool take_as_continue(Open& o);
    uint32_t plaintext(uint32_t length) const;

    uint64_t conn_id_;
    SegmentStore& segs_;
    ExchangeHost& host_;
    const TlsSession& session_;
    std::vector<Open> open_;       // at most one being assembled, finished ones waiting to be taken
    std::vector<Ready> done_;
    uint32_t calls_started_ = 0;
    // Handshake as the records showed it.
    uint64_t hs_first_frame_ = 0, hs_last_frame_ = 0;
    int64_t hs_start_ns_ = 0, hs_end_ns_ = 0;
    bool client_finished_ = false;    // TLS 1.3: the client's first encrypted record went by
    PerSide<bool> encrypted_finished_ = {false, false};  // TLS 1.2: this direction's encrypted Finished went by
    bool ticket_guess_ = false;  // TLS 1.3 without keys: the record being read is taken for a ticket
    bool any_request_ = false, any_response_ = false;
    bool keyed_data_ = false;  // application data went to the HTTP tracker (decrypted)
    uint32_t ticket_len_ = 0, keyless_tickets_ = 0;
    // The server's first flight (ServerHello up to the client's next record).
    bool flight_open_ = false, flight_closed_ = false;
    uint64_t flight_bytes_ = 0, flight_last_seg_ = 0;
    uint32_t flight_segments_ = 0;
    bool flight_seg_counted_ = false;
    // What describe() last wrote its names and reason from.
    struct Named {
        uint16_t version = 0, suite = 0;
        TlsDecryptFailure why = TlsDecryptFailure::None;
        bool decrypted = false, some_decrypted = false;
        uint64_t failure_frame = 0;
        bool valid = false;
        bool operator==(const Named&) const = default;
    };
    mutable Named named_;
};

} // namespace stallscope
