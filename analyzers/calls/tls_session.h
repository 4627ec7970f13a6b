#pragma once
// The TLS side of one connection: its directions' streams go here instead
// of the HTTP exchange tracker once a direction's first bytes are a TLS
// record header (ConnectionAnalyzer decides). Frames records, parses the
// clear handshake, warns about framing faults naming the frame, and hands
// every record, with the segments that carried its first and last byte, to
// an observer (the keyless call model).
//
// With secrets (a key log, or pcapng Decryption Secrets Blocks) it decrypts:
// application data goes to the exchange tracker exactly as plaintext would,
// each record's bytes carried by the segment that completed the record, so
// calls, phases and evidence point at real frames. A connection that cannot
// be decrypted says why, once, naming the frame (decryption()).
#include "analyzers/calls/exchange_tracker.h"
#include "analyzers/calls/fifo.h"
#include "analyzers/calls/segment_store.h"
#include "dissectors/tls/keylog.h"
#include "dissectors/tls/tls_connection.h"
#include "dissectors/tls/tls_decryptor.h"

#include <cstdint>
#include <memory>
#include <span>

namespace stallscope {

// One TLS record as the connection saw it.
struct TlsRecordEvent {
    uint8_t type = 0;               // tls::ContentType on the wire
    uint16_t length = 0;            // body bytes (ciphertext for encrypted records)
    uint64_t first_offset = 0, last_offset = 0;  // stream offsets of its header's first byte and its last byte
    uint64_t first_seg = 0, last_seg = 0;        // SegmentStore indexes: complete in last_seg
    bool encrypted = false;
    uint32_t handshake_types = 0;   // bit t: a handshake message of type t ended in it (clear or decrypted)
    // Decrypted at once: its real content type (TLS 1.3 hides it) and
    // plaintext size; 0 when not decrypted (yet).
    uint8_t inner_type = 0;
    uint32_t plaintext_length = 0;
};

class TlsSessionObserver {
public:
    virtual ~TlsSessionObserver() = default;
    virtual void on_tls_record(Side dir, const TlsRecordEvent& record) = 0;
    virtual void on_tls_end_of_stream(Side dir) {}
};

// Whether the connection's application data reached the HTTP tracker.
struct TlsDecryption {
    bool attempted = false;         // secrets were given (key log or DSB)
    bool decrypted = false;         // some application data was decrypted
    TlsDecryptFailure failure = TlsDecryptFailure::None;  // why (the rest) not
    uint64_t failure_frame = 0;     // where it stopped (0: from the start)
    uint64_t records_decrypted = 0, records_failed = 0;
};

class TlsSession : private TlsConnectionListener {
public:
    // `keys` may be null (keyless).
    TlsSession(SegmentStore& segments, ExchangeHost& host, ExchangeTracker& tracker,
               std::shared_ptr<const TlsKeyStore> keys);
    ~TlsSession() override;

    void on_data(Side dir, uint64_t offset, std::span<const uint8_t> data, uint64_t seg);
    void on_gap(Side dir, uint64_t offset, uint64_t len);
    void on_end_of_stream(Side dir);

    // Not owned; null to stop. Set before the first bytes to see every record.
    void set_observer(TlsSessionObserver* observer) { observer_ = observer; }
    const TlsConnectionInfo& info() const { return parser_.info(); }
    const TlsDecryption& decryption() const { return dec_state_; }
    // Segments must be kept for someone: an observer builds calls from
    // them, and decrypted bytes keep the segments that carried them.
    bool needs_segments() const { return observer_ != nullptr || (keyed() && !stopped_); }
    // 0-RTT records held for the ServerHello that names their suite: they
    // go to the HTTP tracker once decrypted, not to the keyless model.
    bool holding_early_data() const { return !pending_.empty(); }
    uint64_t framing_errors() const { return framing_errors_; }
    // A TCP ACK (1-based wire offset of direction `dir`) as a plaintext
    // offset (1-based): the plaintext of the records it acknowledges whole.
    // 0 (unknown) when it is older than the records remembered.
    uint32_t plain_ack(Side dir, uint32_t ack) const;

private:
    struct Pending {  // an encrypted record seen before the ServerHello (0-RTT)
        Side dir;
        TlsRecord record;             // body points into `body`
        std::vector<uint8_t> body;
    };
    void on_tls_record(Side dir, const TlsRecord& record, bool encrypted, uint32_t handshake_types) override;
    void on_tls_error(Side dir, TlsError code, uint64_t offset, uint64_t tag) override;
    void on_tls_handshake(Side dir, const HandshakeMessage& message) override;
    uint64_t frame_of(uint64_t seg);
    bool keyed() const { return keys_ && !keys_->empty(); }
    void set_up(uint64_t tag);
    void decrypt(Side dir, const TlsRecord& record, TlsRecordEvent* event);
    void fail(TlsDecryptFailure why, uint64_t tag);
    void check_alpn(uint64_t tag);

    SegmentStore& segs_;
    ExchangeHost& host_;
    ExchangeTracker& tracker_;
    std::shared_ptr<const TlsKeyStore> keys_;
    TlsConnectionParser parser_;
    TlsSessionObserver* observer_ = nullptr;
    PerSide<uint64_t> last_seg_ = {0, 0};
    PerSide<bool> desync_warned_ = {false, false};
    PerSide<bool> handshake_warned_ = {false, false};
    uint64_t framing_errors_ = 0;

    TlsDecryption dec_state_;
    std::unique_ptr<TlsDecryptor> dec_;
    bool set_up_ = false;
    bool stopped_ = false;          // a failure: no more decryption
    PerSide<bool> ended_ = {false, false};  // each direction's end of stream
    PerSide<uint64_t> plain_off_ = {0, 0};
    std::vector<uint8_t> plain_;
    // Per direction, for plain_ack: wire offset past each decrypted
    // application record and the plaintext offset past it (the latest few).
    struct Boundary { uint64_t wire_end, plain_end; };
    // Fifos, not deques: every connection has these and a deque allocates
    // ~0.6 KB even empty (closed connections linger a second in the flow table).
    PerSide<Fifo<Boundary>> bounds_;
    Fifo<Pending> pending_;
    size_t pending_bytes_ = 0;
    // After a gap: the frame it was noticed at, until a record decrypts again.
    PerSide<uint64_t> gap_frame_ = {0, 0};
    uint64_t early_skipped_ = 0;    // 0-RTT records without the early secret
    bool have_early_ = false;       // the key log had CLIENT_EARLY_TRAFFIC_SECRET
    bool client_decrypted_ = false; // a client record decrypted
};

} // namespace stallscope
