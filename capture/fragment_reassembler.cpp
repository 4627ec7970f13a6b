#include "capture/fragment_reassembler.h"

#include <algorithm>
#include <cstdio>

namespace stallscope {

namespace {
constexpr uint32_t kMaxIpv4Payload = 65535 - 20;  // total length is 16 bits, header included
constexpr uint32_t kMaxIpv6Payload = 65535;       // payload length is 16 bits (no jumbo fragments)

std::string frame_prefix(uint64_t frame) { return "frame " + std::to_string(frame) + ": "; }
} // namespace

FragmentReassembler::FragmentReassembler(FragmentLimits limits, WarnFn warn)
    : limits_(limits), warn_(std::move(warn)) {}

std::string FragmentReassembler::describe(const Key& k) {
    char id[16];
    std::snprintf(id, sizeof id, k.version == 4 ? "0x%04x" : "0x%08x", k.id);
    return "IPv" + std::to_string(k.version) + " datagram " + k.src.to_string() + " -> " + k.dst.to_string() +
           " id " + id + " (protocol " + std::to_string(k.protocol) + ")";
}

bool FragmentReassembler::insert(Datagram& d, uint32_t offset, std::span<const uint8_t> bytes) {
    const uint32_t a = offset, b = offset + uint32_t(bytes.size());
    if (a == b) return false;
    auto copy = [&](uint32_t from, uint32_t to) {
        std::copy(bytes.begin() + (from - a), bytes.begin() + (to - a), d.data.begin() + from);
    };
    bool differs = false;
    uint32_t pos = a;
    auto it = std::lower_bound(d.pieces.begin(), d.pieces.end(), a, [](const Piece& p, uint32_t v) { return p.end <= v; });
    for (; it != d.pieces.end() && it->begin < b; ++it) {
        if (pos < it->begin) copy(pos, it->begin);
        const uint32_t s = std::max(a, it->begin), e = std::min(b, it->end);
        if (!std::equal(d.data.begin() + s, d.data.begin() + e, bytes.begin() + (s - a))) differs = true;
        pos = std::max(pos, it->end);
    }
    if (pos < b) copy(pos, b);
    // Merge [a, b) with every piece it overlaps or touches.
    auto first = std::lower_bound(d.pieces.begin(), d.pieces.end(), a, [](const Piece& p, uint32_t v) { return p.end < v; });
    auto last = first;
    Piece merged{a, b};
    for (; last != d.pieces.end() && last->begin <= b; ++last) {
        merged.begin = std::min(merged.begin, last->begin);
        merged.end = std::max(merged.end, last->end);
    }
    first = d.pieces.erase(first, last);
    d.pieces.insert(first, merged);
    return differs;
}

bool FragmentReassembler::complete(const Datagram& d) const {
    if (!d.total) return false;
    if (*d.total == 0) return true;
    return d.pieces.size() == 1 && d.pieces[0].begin == 0 && d.pieces[0].end == *d.total;
}

std::span<const uint8_t> FragmentReassembler::rebuild(const Key& k, const Datagram& d) {
    const uint32_t len = *d.total;
    out_.clear();
    auto put16 = [&](uint32_t v) { out_.push_back(uint8_t(v >> 8)); out_.push_back(uint8_t(v)); };
    if (k.version == 4) {
        out_ = {0x45, 0};
        put16(20 + len);
        put16(k.id);
        put16(0);  // no flags, offset 0: a whole datagram
        out_.push_back(64);
        out_.push_back(k.protocol);
        put16(0);
        out_.insert(out_.end(), k.src.bytes.begin(), k.src.bytes.begin() + 4);
        out_.insert(out_.end(), k.dst.bytes.begin(), k.dst.bytes.begin() + 4);
    } else {
        out_ = {0x60, 0, 0, 0};
        put16(len);
        out_.push_back(k.protocol);
        out_.push_back(64);
        out_.insert(out_.end(), k.src.bytes.begin(), k.src.bytes.end());
        out_.insert(out_.end(), k.dst.bytes.begin(), k.dst.bytes.end());
    }
    out_.insert(out_.end(), d.data.begin(), d.data.begin() + len);
    return out_;
}

void FragmentReassembler::drop(Map::iterator it, const std::string& why, bool warn) {
    const Datagram& d = it->second;
    if (warn)
        warn_(frame_prefix(d.first_frame) + describe(it->first) + " never completed (" + why + "): its " +
                  std::to_string(d.fragments) + " fragment(s) from frame " + std::to_string(d.first_frame) +
                  " on are skipped",
              d.first_frame);
    fragments_dropped_ += d.fragments;
    bytes_held_ -= d.data.size();
    order_.erase(d.serial);
    datagrams_.erase(it);
}

void FragmentReassembler::expire(int64_t now_ns) {
    while (!order_.empty()) {
        auto it = datagrams_.find(order_.begin()->second);
        if (now_ns - it->second.first_ts <= limits_.timeout_ns) break;
        drop(it, "no fragment for " + std::to_string(limits_.timeout_ns / 1'000'000'000) + " s of capture time");
    }
}

bool FragmentReassembler::make_room(size_t bytes, const Map::iterator& keep, uint64_t frame) {
    auto over = [&] {
        const size_t others = datagrams_.size() - (keep == datagrams_.end() ? 0 : 1);
        return bytes_held_ + bytes > limits_.max_bytes || (keep == datagrams_.end() && others >= limits_.max_datagrams);
    };
    while (over()) {
        auto victim = order_.begin();
        if (victim != order_.end() && keep != datagrams_.end() && victim->first == keep->second.serial) ++victim;
        if (victim == order_.end()) return false;
        // One warning when the cap is first hit, a count at the end: a flood
        // of fragments must not flood the warnings too.
        if (cap_dropped_++ == 0) {
            cap_frame_ = frame;
            warn_(frame_prefix(frame) + "IP fragment reassembly cap (" + std::to_string(limits_.max_datagrams) +
                      " datagrams, " + std::to_string(limits_.max_bytes >> 20) +
                      " MiB) reached: the oldest incomplete datagrams are dropped",
                  frame);
        }
        drop(datagrams_.find(victim->second), "", false);
    }
    return true;
}

void FragmentReassembler::advance(int64_t now_ns) {
    now_ns_ = std::max(now_ns_, now_ns);
    expire(now_ns_);
}

std::optional<std::span<const uint8_t>> FragmentReassembler::add(const IpFragment& f, uint64_t frame, int64_t ts_ns) {
    advance(ts_ns);
    const Key key{f.version, f.protocol, f.src, f.dst, f.id};
    auto skip = [&](const std::string& why) {
        warn_(frame_prefix(frame) + "IP fragment of " + describe(key) + " skipped: " + why, frame);
        ++fragments_dropped_;
        return std::nullopt;
    };
    const uint64_t end = uint64_t(f.offset) + f.len_on_wire;
    if (end > (f.version == 4 ? kMaxIpv4Payload : kMaxIpv6Payload))
        return skip("it ends at byte " + std::to_string(end) + ", past the largest datagram");
    if (f.payload.size() < f.len_on_wire) {
        // A datagram with a hole the capture never had cannot be rebuilt.
        auto it = datagrams_.find(key);
        if (it != datagrams_.end()) drop(it, "a fragment was cut by the snapshot length");
        return skip("cut by the snapshot length (" + std::to_string(f.payload.size()) + " of " +
                    std::to_string(f.len_on_wire) + " bytes captured)");
    }

    auto it = datagrams_.find(key);
    if (it == datagrams_.end()) {
        if (!make_room(0, datagrams_.end(), frame)) return skip("no room under the reassembly cap");
        Datagram d;
        d.serial = ++next_serial_;
        d.first_frame = frame;
        d.first_ts = ts_ns;
        it = datagrams_.emplace(key, std::move(d)).first;
        order_.emplace(it->second.serial, key);
    }
    Datagram& d = it->second;
    if (!f.more && d.total && *d.total != end)
        return skip("a second last fragment says the datagram has " + std::to_string(end) + " bytes, not " +
                    std::to_string(*d.total));
    if (d.total && end > *d.total)
        return skip("it ends at byte " + std::to_string(end) + ", past the datagram's end (" +
                    std::to_string(*d.total) + ")");
    if (!f.more && d.data.size() > end)
        return skip("as the last fragment it ends at byte " + std::to_string(end) + ", before data already held");

    const size_t growth = end > d.data.size() ? end - d.data.size() : 0;
    if (!make_room(growth, it, frame)) {
        drop(it, "larger than the reassembly cap");
        return skip("no room under the reassembly cap");
    }
    bytes_held_ += growth;
    if (growth) d.data.resize(end);
    if (!f.more) d.total = uint32_t(end);
    ++d.fragments;
    if (insert(d, f.offset, f.payload) && !d.overlap_warned) {
        d.overlap_warned = true;
        warn_(frame_prefix(frame) + "IP fragment overlaps bytes already held of " + describe(key) +
                  " with different content: the first copy is kept",
              frame);
    }
    if (d.pieces.size() > limits_.max_pieces) {
        drop(it, "in more than " + std::to_string(limits_.max_pieces) + " separate pieces");
        return std::nullopt;
    }
    if (!complete(d)) return std::nullopt;
    auto whole = rebuild(key, d);
    bytes_held_ -= d.data.size();
    order_.erase(d.serial);
    datagrams_.erase(it);
    return whole;
}

void FragmentReassembler::finish() {
    if (cap_dropped_)
        warn_(frame_prefix(cap_frame_) + std::to_string(cap_dropped_) +
                  " incomplete IP datagram(s) dropped in all under the fragment reassembly cap",
              cap_frame_);
    // The first few by name, the rest counted.
    constexpr size_t kNamed = 20;
    size_t left = 0;
    uint64_t first_unnamed = 0;
    for (size_t n = 0; !order_.empty(); ++n) {
        auto it = datagrams_.find(order_.begin()->second);
        if (n == kNamed) first_unnamed = it->second.first_frame;
        if (n >= kNamed) ++left;
        drop(it, "the capture ends", n < kNamed);
    }
    if (left)
        warn_(frame_prefix(first_unnamed) + std::to_string(left) +
                  " more incomplete IP datagram(s) at the end of the capture, from this frame on",
              first_unnamed);
}

} // namespace stallscope
