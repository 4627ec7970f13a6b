#pragma once
// The capture time the analysis uses. A file's timestamps can be missing
// (0: a zeroed record, a pcapng Simple Packet Block before any timed frame)
// or go backwards (an unsorted merge, a clock step). Rules (docs/robustness.md):
//   - a frame stamped <= 0 has no time: it takes the time of the frame
//     before it (frames before the first timed frame take that frame's time);
//   - a frame older than the latest time so far is timed at that latest time.
// So analysis time never decreases in frame order, and every interval
// computed from it is >= 0 and no longer than the capture.
#include <cstdint>

namespace stallscope {

class FrameClock {
public:
    enum class Fix { None, Missing, Backwards };

    // False until a frame with a time has been seen.
    bool started() const { return started_; }
    // The time to use for a frame stamped `raw` (started() or raw > 0).
    int64_t time_of(int64_t raw, Fix& fix) {
        fix = Fix::None;
        if (raw <= 0) { fix = Fix::Missing; return latest_; }
        if (started_ && raw < latest_) { fix = Fix::Backwards; return latest_; }
        started_ = true;
        latest_ = raw;
        return raw;
    }
    // A capture with no timed frame at all: everything happens at time 0.
    void start_untimed() { started_ = true; }
    int64_t latest() const { return latest_; }

private:
    bool started_ = false;
    int64_t latest_ = 0;
};

} // namespace stallscope
