#include "analyzers/pipeline/front_stage.h"

#include <algorithm>
#include <cstdio>

namespace stallscope {

namespace {
constexpr size_t kMaxUnsupportedKinds = 64;  // distinct "unsupported encapsulation" warnings
constexpr size_t kMaxUntimedFrames = 10000;  // frames held for a first timestamp, see docs/limits.md

std::string seconds(int64_t ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
    return buf;
}
} // namespace

AnalysisFront::AnalysisFront(FrontSink& sink)
    : sink_(sink), fragments_(FragmentLimits{}, [this](const std::string& message, uint64_t frame) {
          warn({WarningCode::FragmentDropped, message, frame, 0, 0});
      }) {}

bool AnalysisFront::resolve_decoded(const Frame& f, DecodeResult& d) {
    CaptureInfo& cap = capture_;
    auto skipped = [&](const std::string& what, WarningCode code = WarningCode::FrameUndecodable) {
        ++cap.undecodable_packets;
        warn({code, "frame " + std::to_string(f.number) + ": " + what, f.number, f.file_offset, 0});
        return false;
    };
    // A reassembled datagram can hold another fragment (inside a tunnel):
    // bounded like tunnel nesting.
    for (int round = 0; round <= kMaxTunnelDepth; ++round) {
        switch (d.status) {
        case DecodeStatus::Tcp: return true;
        case DecodeStatus::NotTcp: ++cap.non_tcp_packets; return false;
        case DecodeStatus::UnsupportedLink:
            if (!unsupported_links_warned_.insert(f.linktype).second) {
                ++cap.undecodable_packets;
                return false;
            }
            return skipped(std::string("unsupported link type ") + linktype_name(f.linktype) +
                           " (packets of this link type are skipped)",
                           WarningCode::UnsupportedLinkType);
        case DecodeStatus::Unsupported:
            // Once per kind: a capture of one unknown encapsulation has thousands.
            if (unsupported_warned_.size() >= kMaxUnsupportedKinds || !unsupported_warned_.insert(d.detail).second) {
                ++cap.undecodable_packets;
                return false;
            }
            return skipped(d.detail + " (packets like this one are skipped)");
        case DecodeStatus::Malformed: return skipped(d.detail + " (packet skipped)");
        case DecodeStatus::Fragment: {
            auto whole = fragments_.add(d.fragment, f.number, f.ts_ns);
            if (!whole) return false;  // held (or dropped with a warning)
            d = decode_ip_datagram(*whole, d.fragment.depth);
            continue;
        }
        }
    }
    return skipped("IP fragments nested deeper than " + std::to_string(kMaxTunnelDepth) + " (packet skipped)");
}

void AnalysisFront::on_frame(const Frame& raw) {
    if (!clock_.started() && raw.ts_ns <= 0) {
        // No time yet: wait for the first timed frame (bounded; past the cap
        // the capture is taken as untimed and runs at time 0).
        if (untimed_.size() < kMaxUntimedFrames) {
            UntimedFrame u{raw, std::vector<uint8_t>(raw.data.begin(), raw.data.end())};
            u.frame.data = {};
            untimed_.push_back(std::move(u));
            return;
        }
        warn({WarningCode::UntimedFramesCap, "frame " + std::to_string(raw.number) + ": " + std::to_string(kMaxUntimedFrames) +
                  " frames without a timestamp before any timed frame: the capture is analysed as untimed "
                  "(time 0) until a timestamp appears",
              raw.number, raw.file_offset, 0});
        clock_.start_untimed();
        replay_untimed();
    }
    FrameClock::Fix fix;
    Frame f = raw;
    f.ts_ns = clock_.time_of(raw.ts_ns, fix);
    note_time_fix(raw, fix, f.ts_ns);
    if (fix == FrameClock::Fix::None) latest_frame_ = f.number;
    replay_untimed();
    analyse_frame(f);
}

void AnalysisFront::replay_untimed() {
    if (untimed_.empty()) return;
    auto held = std::move(untimed_);
    untimed_.clear();
    for (auto& u : held) {
        u.frame.data = u.bytes;
        u.frame.ts_ns = clock_.latest();
        note_time_fix(u.frame, FrameClock::Fix::Missing, u.frame.ts_ns);
        analyse_frame(u.frame);
    }
}

void AnalysisFront::note_time_fix(const Frame& f, FrameClock::Fix fix, int64_t fixed_ns) {
    if (fix == FrameClock::Fix::Missing && ++missing_ts_ == 1)
        warn({WarningCode::MissingTimestamp, "frame " + std::to_string(f.number) +
                  ": no timestamp (stamped 0, or a pcapng simple packet block); timed as the timed frame "
                  "before it (or the first timed frame)",
              f.number, f.file_offset, 0});
    if (fix == FrameClock::Fix::Backwards && ++backwards_ts_ == 1)
        warn({WarningCode::BackwardsTimestamp, "frame " + std::to_string(f.number) + ": timestamp goes back " + seconds(fixed_ns - f.ts_ns) +
                  " s behind frame " + std::to_string(latest_frame_) + "; timed as frame " +
                  std::to_string(latest_frame_) + " (analysis time never goes backwards)",
              f.number, f.file_offset, 0});
}

void AnalysisFront::analyse_frame(const Frame& f) {
    CaptureInfo& cap = capture_;
    ++cap.packets;
    if (cap.first_ns == 0 || f.ts_ns < cap.first_ns) cap.first_ns = f.ts_ns;
    cap.last_ns = std::max(cap.last_ns, f.ts_ns);
    // A set lookup only when the link type changes (a file has one or a few).
    if (f.linktype != last_linktype_) {
        last_linktype_ = f.linktype;
        if (link_types_.insert(f.linktype).second) cap.link_types.push_back(linktype_name(f.linktype));
    }

    if (fragments_.datagrams_held()) fragments_.advance(f.ts_ns);
    DecodeResult d = decode_packet(f.linktype, f.data);
    if (!resolve_decoded(f, d)) return;
    sink_.segment(f, d.tcp);
}

void AnalysisFront::finish() {
    if (!untimed_.empty()) {  // not one timed frame: the capture runs at time 0
        clock_.start_untimed();
        replay_untimed();
    }
    fragments_.finish();
    capture_.undecodable_packets += fragments_.fragments_dropped();
}

} // namespace stallscope
