#pragma once
// TLS record layer framing for one direction of a connection, on the
// reassembled byte stream: records may span segments, a segment may carry
// several records. Detection is by content (a plausible record header),
// never by port. Bounded: at most one record (2^14 + 2048 bytes of body) is
// held, plus a small window while resynchronising after a gap.
#include "dissectors/tls/tls_error.h"

#include <cstdint>
#include <span>
#include <vector>

namespace stallscope {

namespace tls {
enum ContentType : uint8_t {
    kChangeCipherSpec = 20,
    kAlert = 21,
    kHandshake = 22,
    kApplicationData = 23,
    kHeartbeat = 24,
};
constexpr size_t kHeaderBytes = 5;
// The longest record body any TLS version allows (TLSCiphertext of TLS 1.2:
// 2^14 + 2048); TLS 1.3 allows 2^14 + 256.
constexpr size_t kMaxRecordBody = (1u << 14) + 2048;
} // namespace tls

// Is `data` (a direction's first bytes) the start of a TLS record? Needs 5
// bytes for Yes; fewer bytes that could begin a header give NeedMore.
enum class TlsSniff : uint8_t { No, NeedMore, Yes };
TlsSniff sniff_tls_record(std::span<const uint8_t> data);

struct TlsRecord {
    uint8_t type = 0;           // tls::ContentType
    uint16_t version = 0;       // record-layer version (0x0301 for most ClientHellos, 0x0303 after)
    uint16_t length = 0;        // body bytes
    std::span<const uint8_t> body;  // valid during the callback only
    // Stream offsets of the record's first (header) byte and its last byte,
    // and the caller's tags for the chunks that carried them: the record is
    // complete in the chunk tagged last_tag.
    uint64_t first_offset = 0, last_offset = 0;
    uint64_t first_tag = 0, last_tag = 0;
};

class TlsRecordListener {
public:
    virtual ~TlsRecordListener() = default;
    virtual void on_record(const TlsRecord& record) = 0;
    // A framing fault at stream offset `offset` (chunk `tag`). After any error
    // but Resynchronised the direction is desynchronised: bytes are skipped
    // until a run of plausible record headers is found again.
    virtual void on_record_error(TlsError code, uint64_t offset, uint64_t tag) = 0;
};

class TlsRecordReader {
public:
    explicit TlsRecordReader(TlsRecordListener& listener) : l_(listener) {}

    // The next stream bytes at `offset`, from the caller's chunk `tag`. Bytes
    // missing before `offset` count as a gap.
    void feed(uint64_t offset, std::span<const uint8_t> data, uint64_t tag);
    void gap(uint64_t offset, uint64_t len, uint64_t tag);
    // End of stream: a record in progress is truncated.
    void end(uint64_t tag);

    bool in_sync() const { return sync_; }
    uint64_t offset() const { return next_; }       // stream offset past the last byte fed
    uint64_t records() const { return records_; }
    uint64_t skipped_bytes() const { return skipped_; }  // bytes passed over while desynchronised

private:
    struct Chunk { uint64_t offset, tag; };
    void fail(TlsError code, uint64_t offset, uint64_t tag);
    // Frames records from `data`; returns the bytes used (fewer than given
    // only when a bad header desynchronised the direction).
    size_t frame(std::span<const uint8_t> data, uint64_t offset, uint64_t tag);
    void emit(uint8_t type, uint16_t version, std::span<const uint8_t> body, uint64_t first, uint64_t last,
              uint64_t first_tag, uint64_t last_tag);
    void hold(std::span<const uint8_t> data, uint64_t offset, uint64_t tag);
    void drain();
    size_t find_sync(size_t& keep_from) const;
    void drop_held(size_t n);

    TlsRecordListener& l_;
    bool started_ = false;
    bool sync_ = true;
    uint64_t next_ = 0;
    // The record in progress: header and body bytes so far.
    std::vector<uint8_t> buf_;
    uint64_t rec_first_ = 0, rec_first_tag_ = 0;
    // Bytes not framed yet (while desynchronised: searched for a header),
    // from stream offset win_off_, with the chunks they came in.
    std::vector<uint8_t> win_;
    uint64_t win_off_ = 0;
    std::vector<Chunk> chunks_;
    uint16_t last_version_ = 0;   // the record version seen before the desync
    uint64_t records_ = 0, skipped_ = 0;
};

} // namespace stallscope
