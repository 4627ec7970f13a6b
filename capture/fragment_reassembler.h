#pragma once
// IPv4 and IPv6 fragment reassembly, bounded. Fragments of one datagram
// (same version, addresses, protocol and id) are put together in any order;
// where fragments overlap the first copy wins (as the TCP reassembler does),
// with a warning when the bytes differ. Incomplete datagrams are dropped with
// a warning when they time out (capture time), when a cap needs room, and at
// the end of the capture. Pure: no I/O, unit-tested from bytes.
#include "capture/packet_decoder.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stallscope {

struct FragmentLimits {
    size_t max_bytes = 16u << 20;          // payload bytes held over all incomplete datagrams
    size_t max_datagrams = 4096;           // incomplete datagrams held at once
    size_t max_pieces = 256;               // disjoint pieces one datagram may be in (out-of-order fragments)
    int64_t timeout_ns = 30'000'000'000;   // capture time from a datagram's first fragment (Linux ipfrag_time)
};

class FragmentReassembler {
public:
    // Called for every problem: what happened, and the frame it concerns.
    using WarnFn = std::function<void(const std::string& message, uint64_t frame)>;

    FragmentReassembler(FragmentLimits limits, WarnFn warn);

    // Adds the fragment captured in `frame` at `ts_ns`. When it completes its
    // datagram, returns the whole datagram: a rebuilt IP header (no options,
    // no extension headers) and the reassembled payload. The span is valid
    // until the next call.
    std::optional<std::span<const uint8_t>> add(const IpFragment& f, uint64_t frame, int64_t ts_ns);
    // Capture time moves on (any frame): datagrams past the timeout are dropped.
    void advance(int64_t now_ns);
    // End of capture: every datagram still incomplete is dropped with a warning.
    void finish();

    size_t bytes_held() const { return bytes_held_; }
    size_t datagrams_held() const { return datagrams_.size(); }
    uint64_t fragments_dropped() const { return fragments_dropped_; }  // fragments of datagrams never completed

private:
    struct Key {
        uint8_t version = 0, protocol = 0;
        IpAddress src, dst;
        uint32_t id = 0;
        friend auto operator<=>(const Key&, const Key&) = default;
    };
    struct Piece { uint32_t begin, end; };
    struct Datagram {
        uint64_t serial = 0;               // creation order, for expiry and eviction
        uint64_t first_frame = 0;
        int64_t first_ts = 0;
        uint32_t fragments = 0;
        std::optional<uint32_t> total;     // payload length, once the last fragment is seen
        std::vector<uint8_t> data;
        std::vector<Piece> pieces;         // sorted, disjoint, not touching
        bool overlap_warned = false;
    };
    using Map = std::map<Key, Datagram>;

    // Copies the parts of [offset, offset + bytes.size()) not held yet;
    // true when an overlapping part differs from what is held.
    static bool insert(Datagram& d, uint32_t offset, std::span<const uint8_t> bytes);
    bool complete(const Datagram& d) const;
    std::span<const uint8_t> rebuild(const Key& k, const Datagram& d);
    void drop(Map::iterator it, const std::string& why, bool warn = true);
    void expire(int64_t now_ns);
    bool make_room(size_t bytes, const Map::iterator& keep, uint64_t frame);
    static std::string describe(const Key& k);

    FragmentLimits limits_;
    WarnFn warn_;
    Map datagrams_;
    std::map<uint64_t, Key> order_;  // serial -> key, oldest first
    uint64_t next_serial_ = 0;
    size_t bytes_held_ = 0;
    int64_t now_ns_ = 0;
    uint64_t fragments_dropped_ = 0;
    uint64_t cap_dropped_ = 0, cap_frame_ = 0;  // datagrams dropped to make room; frame of the first
    std::vector<uint8_t> out_;
};

} // namespace stallscope
