#include "dissectors/tls/tls_record.h"

#include <algorithm>

namespace stallscope {

namespace {

struct Header {
    uint8_t type;
    uint16_t version;
    uint16_t length;
};

Header read_header(const uint8_t* p) {
    return {p[0], uint16_t(p[1] << 8 | p[2]), uint16_t(p[3] << 8 | p[4])};
}

bool valid_type(uint8_t t) { return t >= tls::kChangeCipherSpec && t <= tls::kHeartbeat; }

// The first fault of a header, or nothing.
bool header_fault(const Header& h, TlsError& code) {
    if (!valid_type(h.type)) { code = TlsError::BadContentType; return true; }
    if ((h.version >> 8) != 3) { code = TlsError::BadVersion; return true; }
    if (h.length > tls::kMaxRecordBody) { code = TlsError::RecordTooLong; return true; }
    return false;
}

// A header to resynchronise on: stricter than a valid one (the version the
// direction used before, no heartbeat, no empty record).
bool resync_candidate(const uint8_t* p, uint16_t version) {
    Header h = read_header(p);
    TlsError code;
    if (header_fault(h, code) || h.type == tls::kHeartbeat || h.length == 0) return false;
    return version == 0 ? (h.version & 0xff) <= 4 : h.version == version;
}

// The first `n` (< 5) bytes could begin such a header.
bool candidate_prefix(const uint8_t* p, size_t n, uint16_t version) {
    if (n >= 1 && (!valid_type(p[0]) || p[0] == tls::kHeartbeat)) return false;
    if (n >= 2 && p[1] != 3) return false;
    if (n >= 3 && version != 0 && p[2] != (version & 0xff)) return false;
    return true;
}

constexpr size_t kScanWindow = 64 * 1024;  // bytes held while resynchronising

} // namespace

TlsSniff sniff_tls_record(std::span<const uint8_t> d) {
    if (d.empty()) return TlsSniff::NeedMore;
    if (d[0] < tls::kChangeCipherSpec || d[0] > tls::kApplicationData) return TlsSniff::No;
    if (d.size() >= 2 && d[1] != 3) return TlsSniff::No;
    if (d.size() >= 3 && d[2] > 4) return TlsSniff::No;
    if (d.size() < tls::kHeaderBytes) return TlsSniff::NeedMore;
    size_t len = size_t(d[3]) << 8 | d[4];
    return len <= tls::kMaxRecordBody ? TlsSniff::Yes : TlsSniff::No;
}

void TlsRecordReader::feed(uint64_t offset, std::span<const uint8_t> data, uint64_t tag) {
    if (data.empty()) return;
    if (!started_) { started_ = true; next_ = offset; }
    if (offset < next_) {  // bytes seen already
        uint64_t skip = next_ - offset;
        if (skip >= data.size()) return;
        data = data.subspan(size_t(skip));
        offset = next_;
    }
    if (offset > next_) gap(next_, offset - next_, tag);
    next_ = offset + data.size();
    if (sync_ && win_.empty()) {
        size_t used = frame(data, offset, tag);
        if (used == data.size()) return;
        data = data.subspan(used);
        offset += used;
    }
    hold(data, offset, tag);
    drain();
}

void TlsRecordReader::gap(uint64_t offset, uint64_t len, uint64_t tag) {
    if (len == 0) return;
    if (!started_) { started_ = true; next_ = offset; }
    if (offset + len <= next_) return;
    next_ = offset + len;
    skipped_ += win_.size();
    win_.clear();
    chunks_.clear();
    fail(TlsError::Gap, offset, tag);
}

void TlsRecordReader::end(uint64_t tag) {
    if (sync_ && !buf_.empty()) fail(TlsError::Truncated, rec_first_, tag);
    skipped_ += win_.size();
    // Nothing more comes: the buffers' memory goes too.
    std::vector<uint8_t>().swap(buf_);
    std::vector<uint8_t>().swap(win_);
    std::vector<Chunk>().swap(chunks_);
}

void TlsRecordReader::fail(TlsError code, uint64_t offset, uint64_t tag) {
    sync_ = false;
    skipped_ += buf_.size();
    buf_.clear();
    l_.on_record_error(code, offset, tag);
}

size_t TlsRecordReader::frame(std::span<const uint8_t> data, uint64_t offset, uint64_t tag) {
    const size_t given = data.size();
    auto used = [&] { return given - data.size(); };
    while (!data.empty()) {
        if (buf_.empty()) {
            rec_first_ = offset;
            rec_first_tag_ = tag;
            if (data.size() >= tls::kHeaderBytes) {
                Header h = read_header(data.data());
                TlsError code;
                if (header_fault(h, code)) {
                    fail(code, offset, tag);
                    return used() + 1;  // framing may start inside the bad header: scan from its next byte
                }
                size_t total = tls::kHeaderBytes + h.length;
                if (data.size() >= total) {  // the whole record is here: no copy
                    emit(h.type, h.version, data.subspan(tls::kHeaderBytes, h.length), offset, offset + total - 1,
                         tag, tag);
                    data = data.subspan(total);
                    offset += total;
                    continue;
                }
            }
        }
        if (buf_.size() < tls::kHeaderBytes) {
            size_t take = std::min(tls::kHeaderBytes - buf_.size(), data.size());
            buf_.insert(buf_.end(), data.begin(), data.begin() + ptrdiff_t(take));
            data = data.subspan(take);
            offset += take;
            if (buf_.size() < tls::kHeaderBytes) break;
            TlsError code;
            if (header_fault(read_header(buf_.data()), code)) {
                fail(code, rec_first_, rec_first_tag_);
                return used();
            }
            // On to the body, even with no bytes left: an empty record ends with its header.
        }
        Header h = read_header(buf_.data());
        size_t total = tls::kHeaderBytes + h.length;
        size_t take = std::min(total - buf_.size(), data.size());
        buf_.insert(buf_.end(), data.begin(), data.begin() + ptrdiff_t(take));
        data = data.subspan(take);
        offset += take;
        if (buf_.size() == total) {
            emit(h.type, h.version, std::span<const uint8_t>(buf_).subspan(tls::kHeaderBytes), rec_first_,
                 offset - 1, rec_first_tag_, tag);
            buf_.clear();
        }
    }
    return used();
}

void TlsRecordReader::emit(uint8_t type, uint16_t version, std::span<const uint8_t> body, uint64_t first,
                           uint64_t last, uint64_t first_tag, uint64_t last_tag) {
    TlsRecord r;
    r.type = type;
    r.version = version;
    r.length = uint16_t(body.size());
    r.body = body;
    r.first_offset = first;
    r.last_offset = last;
    r.first_tag = first_tag;
    r.last_tag = last_tag;
    ++records_;
    if (type != tls::kHeartbeat) last_version_ = version;
    l_.on_record(r);
}

void TlsRecordReader::hold(std::span<const uint8_t> data, uint64_t offset, uint64_t tag) {
    if (data.empty()) return;
    if (win_.empty()) { win_off_ = offset; chunks_.clear(); }
    win_.insert(win_.end(), data.begin(), data.end());
    chunks_.push_back({offset, tag});
}

// Desynchronised: a header that a second header (or the end of the bytes
// so far, exactly) confirms. SIZE_MAX when there is none yet; `keep_from`
// is then where a header may still begin.
size_t TlsRecordReader::find_sync(size_t& keep_from) const {
    keep_from = win_.size() > 4 ? win_.size() - 4 : 0;  // a header may begin in the last 4 bytes
    for (size_t i = 0; i + tls::kHeaderBytes <= win_.size(); ++i) {
        const uint8_t* p = win_.data() + i;
        if (!resync_candidate(p, last_version_)) continue;
        size_t end = i + tls::kHeaderBytes + read_header(p).length;
        if (end > win_.size()) { keep_from = i; return SIZE_MAX; }  // not confirmed yet: wait for more
        size_t rest = win_.size() - end;
        bool confirmed = rest == 0 || (rest >= tls::kHeaderBytes ? resync_candidate(win_.data() + end, last_version_)
                                                                 : candidate_prefix(win_.data() + end, rest, last_version_));
        if (confirmed) return i;
    }
    return SIZE_MAX;
}

// Frames the held bytes, or searches them for a header while desynchronised.
void TlsRecordReader::drain() {
    while (!win_.empty()) {
        if (!sync_) {
            size_t keep_from = 0;
            size_t at = find_sync(keep_from);
            if (at == SIZE_MAX) {
                if (win_.size() - keep_from > kScanWindow) keep_from = win_.size() - kScanWindow;
                drop_held(keep_from);
                return;
            }
            drop_held(at);
            sync_ = true;
            l_.on_record_error(TlsError::Resynchronised, win_off_, chunks_.front().tag);
        }
        // The front chunk, so each record gets its own chunks' tags.
        uint64_t chunk_end = chunks_.size() > 1 ? chunks_[1].offset : win_off_ + win_.size();
        size_t n = size_t(chunk_end - win_off_);
        size_t used = frame(std::span<const uint8_t>(win_).first(n), win_off_, chunks_.front().tag);
        if (used == 0) { drop_held(1); continue; }  // never stall on a byte (frame always uses one)
        win_.erase(win_.begin(), win_.begin() + ptrdiff_t(used));
        win_off_ += used;
        if (used == n && !chunks_.empty()) chunks_.erase(chunks_.begin());
        else if (!chunks_.empty()) chunks_.front().offset = win_off_;
        if (win_.empty()) chunks_.clear();
    }
}

void TlsRecordReader::drop_held(size_t n) {
    if (n == 0) return;
    n = std::min(n, win_.size());
    win_.erase(win_.begin(), win_.begin() + ptrdiff_t(n));
    skipped_ += n;
    win_off_ += n;
    size_t first = 0;  // the chunk holding the new first byte stays
    while (first + 1 < chunks_.size() && chunks_[first + 1].offset <= win_off_) ++first;
    chunks_.erase(chunks_.begin(), chunks_.begin() + ptrdiff_t(first));
    if (win_.empty()) chunks_.clear();
    else chunks_.front().offset = win_off_;
}

} // namespace stallscope
