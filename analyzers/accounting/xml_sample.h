#pragma once
// Which calls' SOAP bodies are read whole. A latency report needs only an
// envelope's head (version, operation, fault: dissectors/soap, SoapRead::Head),
// which costs the same whatever the envelope's size; the whole-document
// figures (element_count, max_depth, well-formedness past the head,
// markup_bytes) are statistics, taken on a sample of each operation's calls:
// the first `first` calls by request frame (call id) that are not hash-picked,
// plus every call whose request frame hashes into one in `every` (rarer for a
// request body past 8 KiB, each pick then weighing more: sample_weight; the gzip
// estimate's idea, analyzers/detectors/deflate_sampler.h). The sample depends
// on the calls' frames and ids only, so a report is the same for any number
// of threads: workers read whole a superset (DeflateSampler::picks, per
// worker), and the report keeps exactly the sample (XmlCallSelector).
#include "analyzers/result/model.h"

#include <cstdint>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stallscope {

struct XmlSampling {
    bool full = false;  // every call read whole (analyze --full-xml)
    uint64_t first = 32, every = 64;
};

// How `r`'s figures were taken (AnalysisResult::xml_sample_first/every; both 0: every call).
inline XmlSampling xml_sampling_of(const AnalysisResult& r) {
    return {r.xml_sample_first == 0 && r.xml_sample_every == 0, r.xml_sample_first, r.xml_sample_every};
}

// The frame number hashes into one in `every` (splitmix64's finaliser, so
// frame numbers spread evenly; every <= 1: all).
bool sample_hash_pick(uint64_t frame, uint64_t every);

// A body past 8 KiB is hash-picked as many times more rarely as it holds
// 4 KiB blocks: one in every * sample_weight(bytes). So what the samples read
// and compress per call stays about the same whatever the envelopes' size
// (issue 26: time per call flat when envelopes grow tenfold), and each such
// pick stands for sample_weight(bytes) bodies in the figures. The size is
// the body's decoded bytes (MessageInfo::content_bytes), known wherever the
// choice is made or replayed, so the sample still depends on nothing else.
constexpr uint64_t kSampleBlockBytes = 4096;
inline uint64_t sample_weight(uint64_t bytes) { return bytes / kSampleBlockBytes > 1 ? bytes / kSampleBlockBytes : 1; }
// Saturates: a huge --xml-sample EVERY times a big body stays huge, never wraps.
inline uint64_t sized_every(uint64_t every, uint64_t bytes) {
    uint64_t out = 0;
    if (every <= 1) return every;
    return __builtin_mul_overflow(every, sample_weight(bytes), &out) ? UINT64_MAX : out;
}
// Hash-picked, for a body of `bytes` (the request's, for a call).
inline bool sample_hash_pick(uint64_t frame, uint64_t every, uint64_t bytes) {
    return sample_hash_pick(frame, sized_every(every, bytes));
}

// Were the whole-document figures of both of the call's bodies measured?
inline bool whole_xml_measured(const Call& c) { return c.request.whole_xml && c.response.whole_xml; }

// The sample, for calls met in call-id order (a report writing its calls).
class XmlCallSelector {
public:
    explicit XmlCallSelector(XmlSampling s) : s_(s) {}
    // In the sample (not yet asking whether it was measured).
    bool selected(const Call& c);
    // The same, from what it looks at: the request's first frame and content
    // bytes and operation_key(c) (a report reading its calls' records).
    bool selected(uint64_t request_frame, uint64_t request_bytes, std::string_view operation);

private:
    // Counts a call not hash-picked: among its operation's first `first`?
    bool among_first(std::string_view operation);
    // Looked up by a string_view: no key built for an operation seen before.
    struct KeyHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    XmlSampling s_;
    // Per operation: calls not hash-picked so far. A node never moves.
    std::unordered_map<std::string, uint64_t, KeyHash, std::equal_to<>> seen_;
    // The last operation's entry: calls mostly follow one of their operation.
    const std::string* last_key_ = nullptr;
    uint64_t* last_count_ = nullptr;
};

// The sample's sums for one operation, from its calls met in any order (a
// detector): the hash-picked calls and the `first` others with the lowest
// ids, as XmlCallSelector keeps them; of those, the ones counted (complete)
// and measured (whole_xml_measured) make the figures.
class XmlSampleSums {
public:
    struct Figures {
        uint64_t calls = 0;  // the calls the figures come from
        double weight = 0;   // the calls they stand for (a pick of a large body weighs more)
        double elements = 0, markup = 0, content = 0;  // weighted sums
    };
    explicit XmlSampleSums(XmlSampling s) : s_(s) {}
    void add(const Call& c, bool counted);
    Figures figures() const;

private:
    struct Entry {
        uint64_t id;
        bool use;  // counted and measured
        double weight, elements, markup, content;
        bool operator<(const Entry& o) const { return id < o.id; }
    };
    static void add_to(Figures& f, const Entry& e);
    XmlSampling s_;
    std::priority_queue<Entry> lowest_;  // the `first` lowest ids not hash-picked so far
    Figures picked_;
};

} // namespace stallscope
