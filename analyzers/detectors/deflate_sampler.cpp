#include "analyzers/detectors/deflate_sampler.h"

#include "analyzers/accounting/xml_sample.h"
#include "analyzers/result/model.h"

#include <algorithm>

#include <zlib.h>

namespace stallscope {

namespace {
// compress2 adds a 6-byte zlib wrapper; gzip adds 18 bytes instead.
constexpr uint64_t kGzipExtra = 12;
constexpr uint64_t kSmall = 512;  // smaller bodies count as incompressible (measure_content)
uint64_t scale(uint64_t in, uint64_t out, size_t size) { return uint64_t(double(out) / double(in) * double(size)) + kGzipExtra; }

} // namespace

namespace {

// One zlib stream (level 6, zlib wrapper: what compress2 makes) fed piece by
// piece; counts its output bytes, which go to a scratch buffer.
class DeflateCounter {
public:
    DeflateCounter() { ok_ = deflateInit(&z_, 6) == Z_OK; }
    ~DeflateCounter() { if (ok_) deflateEnd(&z_); }
    DeflateCounter(const DeflateCounter&) = delete;
    DeflateCounter& operator=(const DeflateCounter&) = delete;

    // Compresses `in`; `flush` Z_SYNC_FLUSH makes out() include all of it so far.
    bool feed(std::string_view in, int flush) {
        if (!ok_) return false;
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
        z_.avail_in = uInt(in.size());
        unsigned char buf[16384];
        int rc;
        do {
            z_.next_out = buf;
            z_.avail_out = sizeof buf;
            rc = deflate(&z_, flush);
            if (rc == Z_STREAM_ERROR) return ok_ = false;
        } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
        return true;
    }
    uint64_t out() const { return z_.total_out; }

private:
    z_stream z_{};
    bool ok_ = false;
};

} // namespace

DeflateSample deflate_sample(std::string_view content, bool whole) {
    DeflateSample s;
    if (content.empty()) return s;
    DeflateCounter z;
    if (whole || content.size() <= kDeflateWholeUpTo) {
        if (!z.feed(content, Z_FINISH)) return s;
        s.in = content.size();
        s.out = z.out();
        s.ok = true;
        return s;
    }
    // The head, then the slices, each in the middle of its share of the rest.
    if (!z.feed(content.substr(0, kDeflateHead), Z_SYNC_FLUSH)) return s;
    const uint64_t head_out = z.out();
    const size_t rest = content.size() - kDeflateHead, step = rest / kDeflateSlices;
    for (size_t i = 0; i < kDeflateSlices; ++i) {
        size_t at = kDeflateHead + i * step + (step - kDeflateSlice) / 2;
        if (!z.feed(content.substr(at, kDeflateSlice), i + 1 == kDeflateSlices ? Z_FINISH : Z_NO_FLUSH)) return s;
    }
    const double slices_ratio = double(z.out() - head_out) / double(kDeflateSlices * kDeflateSlice);
    s.in = content.size();
    s.out = head_out + uint64_t(slices_ratio * double(rest) + 0.5);
    s.ok = true;
    return s;
}

bool deflate_hash_pick(uint64_t frame, uint64_t every, uint64_t bytes) { return sample_hash_pick(frame, every, bytes); }

bool DeflateSampler::picks(const std::string& key, uint64_t frame, uint64_t bytes) {
    return deflate_hash_pick(frame, every_, bytes) || among_first(key, frame);
}

bool DeflateSampler::among_first(const std::string& key, uint64_t frame) {
    auto it = lowest_.find(key);
    if (it == lowest_.end()) {
        if (lowest_.size() >= kMaxKeys) return true;
        it = lowest_.emplace(key, std::priority_queue<uint64_t>{}).first;
    }
    auto& q = it->second;
    if (q.size() < first_) {
        q.push(frame);
        return true;
    }
    if (first_ == 0 || frame > q.top()) return false;
    // Ties compress too: the order within one frame is settled by DeflateEstimate.
    q.push(frame);
    q.pop();
    return true;
}

void DeflateSampler::measure(const std::string& key, std::string_view content, MessageInfo& m) {
    m.deflate_pick = deflate_hash_pick(m.first_frame, every_, content.size());
    if (!m.deflate_pick && !among_first(key, m.first_frame)) return;
    DeflateSample s = deflate_sample(content, whole_);
    ++compressed_;
    if (s.ok) m.deflate_estimate = scale(s.in, s.out, content.size());
}

void DeflateEstimate::add(const MessageInfo& m, uint64_t call_id, bool counted) {
    if (m.content_bytes == 0) return;
    if (m.content_bytes < kSmall) {
        if (counted) small_ += double(m.content_bytes);
        return;
    }
    if (m.deflate_pick) {
        if (!m.deflate_estimate) {  // not compressible by zlib: scaled like an unsampled body
            if (counted) unsampled_size_ += double(m.content_bytes), ++unsampled_;
            return;
        }
        const double w = sized_ ? double(sample_weight(m.content_bytes)) : 1.0;
        sample_size_ += w * double(m.content_bytes);
        sample_estimate_ += w * double(m.deflate_estimate - kGzipExtra);
        if (counted) counted_estimate_ += double(m.deflate_estimate);
        return;
    }
    lowest_.push(Body{m.first_frame, call_id, m.content_bytes, m.deflate_estimate, counted});
    if (lowest_.size() <= first_) return;
    const Body& out = lowest_.top();  // no longer among the first: scaled
    if (out.counted) unsampled_size_ += double(out.size), ++unsampled_;
    lowest_.pop();
}

double DeflateEstimate::deflated() const {
    double sample_size = sample_size_, sample_estimate = sample_estimate_, counted = counted_estimate_;
    double unsampled_size = unsampled_size_;
    uint64_t unsampled = unsampled_;
    auto lowest = lowest_;
    for (; !lowest.empty(); lowest.pop()) {
        const Body& b = lowest.top();
        if (!b.estimate) {
            if (b.counted) unsampled_size += double(b.size), ++unsampled;
            continue;
        }
        sample_size += double(b.size);
        sample_estimate += double(b.estimate - kGzipExtra);
        if (b.counted) counted += double(b.estimate);
    }
    // No sample at all (nothing zlib could compress): the bodies count whole.
    double ratio = sample_size > 0 ? sample_estimate / sample_size : 1.0;
    return small_ + counted + unsampled_size * ratio + double(unsampled * (sample_size > 0 ? kGzipExtra : 0));
}

} // namespace stallscope
