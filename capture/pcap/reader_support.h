#pragma once
// Small pieces shared by the pcap and pcapng readers: the error text format
// and the "timestamps went backwards" warning.
#include "capture/pcap/pcap_file_reader.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace stallscope::capture_detail {

// "<path>: <reason> (offset N)" -- the one error format of both readers.
inline std::string file_error(const std::string& path, const std::string& reason, uint64_t offset) {
    return path + ": " + reason + " (offset " + std::to_string(offset) + ")";
}

// Collects a warning each time a frame is older than the one before it.
// Capped, because an unsorted merge can go backwards on every other frame.
class TimestampOrderCheck {
public:
    static constexpr size_t kMaxWarnings = 100;

    void observe(uint64_t frame_number, int64_t ts_ns, uint64_t file_offset) {
        if (have_prev_ && ts_ns < prev_ts_) {
            ++count_;
            if (count_ <= kMaxWarnings) {
                const int64_t back = prev_ts_ - ts_ns;
                char buf[160];
                std::snprintf(buf, sizeof buf,
                              "frame %llu: timestamp goes backwards by %lld.%09lld s (frame %llu is later)",
                              (unsigned long long)frame_number, (long long)(back / 1000000000),
                              (long long)(back % 1000000000), (unsigned long long)prev_frame_);
                pending_.push_back({buf, frame_number, file_offset});
            } else if (count_ == kMaxWarnings + 1) {
                pending_.push_back({"frame " + std::to_string(frame_number) +
                                        ": more timestamps go backwards; further ones not reported",
                                    frame_number, file_offset});
            }
        }
        have_prev_ = true;
        prev_ts_ = ts_ns;
        prev_frame_ = frame_number;
    }
    std::vector<ReaderWarning> take() {
        std::vector<ReaderWarning> out;
        out.swap(pending_);
        return out;
    }

private:
    bool have_prev_ = false;
    int64_t prev_ts_ = 0;
    uint64_t prev_frame_ = 0;
    size_t count_ = 0;
    std::vector<ReaderWarning> pending_;
};

} // namespace stallscope::capture_detail
