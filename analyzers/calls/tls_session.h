#pragma once
// The TLS side of one connection: its directions' streams go here instead
// of the HTTP exchange tracker once a direction's first bytes are a TLS
// record header (ConnectionAnalyzer decides). Frames records, parses the
// clear handshake, warns about framing faults naming the frame, and hands
// every record, with the segments that carried its first and last byte, to
// an observer (the keyless call model). With keys, decrypted application
// data will go to the exchange tracker as plaintext.
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/calls/segment_store.h"
#include "dissectors/tls/tls_connection.h"

#include <cstdint>
#include <span>

namespace stallscope {

// One TLS record as the connection saw it.
struct TlsRecordEvent {
    uint8_t type = 0;               // tls::ContentType
    uint16_t length = 0;            // body bytes (ciphertext for encrypted records)
    uint64_t first_offset = 0, last_offset = 0;  // stream offsets of its header's first byte and its last byte
    uint64_t first_seg = 0, last_seg = 0;        // SegmentStore indexes: complete in last_seg
    bool encrypted = false;
    uint32_t handshake_types = 0;   // bit t: a clear handshake message of type t ended in it
};

class TlsSessionObserver {
public:
    virtual ~TlsSessionObserver() = default;
    virtual void on_tls_record(int dir, const TlsRecordEvent& record) = 0;
    virtual void on_tls_end_of_stream(int dir) {}
};

class TlsSession : private TlsConnectionListener {
public:
    TlsSession(SegmentStore& segments, ExchangeHost& host);
    ~TlsSession() override;

    void on_data(int dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg);
    void on_gap(int dir, uint64_t offset, uint64_t len);
    void on_end_of_stream(int dir);

    // Not owned; null to stop. Set before the first bytes to see every record.
    void set_observer(TlsSessionObserver* observer) { observer_ = observer; }
    const TlsConnectionInfo& info() const { return parser_.info(); }
    // Segments must be kept for someone (an observer builds calls from them).
    bool needs_segments() const { return observer_ != nullptr; }
    uint64_t framing_errors() const { return framing_errors_; }

private:
    void on_tls_record(int dir, const TlsRecord& record, bool encrypted, uint32_t handshake_types) override;
    void on_tls_error(int dir, TlsError code, uint64_t offset, uint64_t tag) override;
    uint64_t frame_of(uint64_t seg);

    SegmentStore& segs_;
    ExchangeHost& host_;
    TlsConnectionParser parser_;
    TlsSessionObserver* observer_ = nullptr;
    uint64_t last_seg_[2] = {0, 0};
    bool desync_warned_[2] = {false, false};
    bool handshake_warned_[2] = {false, false};
    uint64_t framing_errors_ = 0;
};

} // namespace stallscope
