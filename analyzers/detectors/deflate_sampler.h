#pragma once
// The gzip estimate of message_size is a ratio per operation, so it needs a
// sample of each operation's messages, not all of them: compressing every
// body of 512 B or more was a third of the analysis time.
//
// The sample does not depend on the order messages are seen in, so a
// capture analysed by one thread or by several (connections sharded across
// workers) gives the same figure: per (operation, direction) it is the
// first `first` bodies by frame number, plus every body whose first frame
// number hashes to 0 modulo `every` (about one in `every`, spread over the
// whole capture; a body past 8 KiB as many times more rarely as it holds
// 4 KiB blocks, and weighing as much more in the ratio: sample_weight in
// analyzers/accounting/xml_sample.h). DeflateSampler decides, where the body is, whether to
// compress it; DeflateEstimate, where the calls meet, adds up the estimate.
#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace stallscope {

struct MessageInfo;

// Deflate size (zlib wrapper included) of `content`, or its estimate from a
// bounded part (`out` bytes for `in` bytes; the estimate for the whole scales
// the ratio). A body of up to kDeflateWholeUpTo bytes, or any body when
// `whole`, is compressed whole: the exact figure. A larger one costs a fixed
// amount whatever its size: its first kDeflateHead bytes, then
// kDeflateSlices slices of kDeflateSlice bytes spread evenly over the rest, in
// one deflate stream (so the slices compress against what came before, as
// in the whole body); the rest is charged the slices' ratio.
struct DeflateSample { uint64_t in = 0, out = 0; bool ok = false; };
constexpr size_t kDeflateHead = 8192, kDeflateSlices = 4, kDeflateSlice = 2048;
constexpr size_t kDeflateWholeUpTo = kDeflateHead + kDeflateSlices * kDeflateSlice;
DeflateSample deflate_sample(std::string_view content, bool whole = false);

// Picked whatever came before: the frame number hashes into the 1 in
// sized_every(every, bytes) (every = 0: every body, the full computation).
bool deflate_hash_pick(uint64_t frame, uint64_t every, uint64_t bytes = 0);

class DeflateSampler {
public:
    static constexpr uint64_t kFirst = 32;
    static constexpr uint64_t kEvery = 64;
    // Past this many distinct keys every message is compressed (exact, only slower).
    static constexpr size_t kMaxKeys = 4096;

    // `whole`: each compressed body is compressed whole (deflate_sample).
    explicit DeflateSampler(uint64_t first = kFirst, uint64_t every = kEvery, bool whole = false)
        : first_(first), every_(every), whole_(whole) {}

    // Fills m.deflate_estimate (>= 512 B bodies) and m.deflate_pick for the
    // body `content` of a message whose first frame is m.first_frame.
    // Compresses it when it is hash-picked or among the `first` lowest
    // frame numbers of `key` seen so far here: a superset of the first
    // `first` of the whole capture, whatever share of it this sampler sees.
    void measure(const std::string& key, std::string_view content, MessageInfo& m);

    uint64_t compressed() const { return compressed_; }

    // Hash-picked (for a body of `bytes`), or among the `first` lowest frames
    // of `key` seen here (the whole-XML sample's superset per worker,
    // analyzers/accounting/xml_sample.h).
    bool picks(const std::string& key, uint64_t frame, uint64_t bytes);

private:
    bool among_first(const std::string& key, uint64_t frame);
    uint64_t first_, every_;
    bool whole_;
    std::map<std::string, std::priority_queue<uint64_t>> lowest_;  // per key, its `first` lowest frames
    uint64_t compressed_ = 0;
};

// The estimated deflate size of one (operation, direction)'s bodies, the
// same in any order they are added: the hash-picked bodies and the `first`
// lowest by (frame, call id) are the sample, each counted at its own
// compressed size; the others get the sample's ratio, in which a hash-picked
// body weighs sample_weight(its size) when `sized` (the sampler's every > 1).
class DeflateEstimate {
public:
    explicit DeflateEstimate(uint64_t first = DeflateSampler::kFirst, bool sized = true) : first_(first), sized_(sized) {}
    // `counted`: the body is part of the figure (a complete call); others only
    // take their place in the sample order.
    void add(const MessageInfo& m, uint64_t call_id, bool counted);
    double deflated() const;  // of the counted bodies

private:
    struct Body {
        uint64_t frame, call, size, estimate;
        bool counted;
        bool operator<(const Body& o) const { return std::tie(frame, call) < std::tie(o.frame, o.call); }
    };
    uint64_t first_;
    bool sized_;
    std::priority_queue<Body> lowest_;  // the `first` lowest bodies so far
    double sample_size_ = 0, sample_estimate_ = 0;    // hash-picked bodies: the ratio
    double counted_estimate_ = 0, unsampled_size_ = 0;  // counted bodies: their estimate, or size to scale
    uint64_t unsampled_ = 0;
    double small_ = 0;                  // counted bodies under 512 B: incompressible
};

} // namespace stallscope
