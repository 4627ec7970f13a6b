// split_write: an HTTP message that left in more segments than its size
// needs: header block and body apart although one segment would carry both
// (boundary exactly at the end of the headers), or many small writes.
// Costs an extra packet and system call; its time is counted only when it
// armed a Nagle stall, and then in the nagle_delayed_ack finding.
// See docs/detectors/split_write.md.
#include "analyzers/detectors/builtin.h"
#include "analyzers/detectors/detector_util.h"
#include "analyzers/detectors/nagle_stalls.h"
#include "analyzers/detectors/toolkit_fixes.h"

#include <numeric>
#include <span>
#include <string_view>

namespace stallscope {

namespace {

using namespace detect;

// "Many more segments than needed": two or more beyond ceil(size / MSS).
// One extra is what a header block ahead of a multi-segment body costs and
// is left alone; it also absorbs a window- or cwnd-cut tail segment.
constexpr size_t kExtraSegments = 2;

class SplitWrite : public Detector {
public:
    const char* kind() const override { return "split_write"; }
    bool call_alone() const override { return true; }

    void on_call(const Call& call, const Connection& conn, const CallScan& scan, std::vector<Finding>& out) override {
        if (call.encrypted) return;  // sizes are TLS records there: tls_split_write
        for (int which = 0; which < 2; ++which) {
            const MessageInfo& m = which == 0 ? call.request : call.response;
            Side sender = which == 0 ? Side::Client : Side::Server;
            if (m.write_sizes.size() < 2) continue;
            // An Expect: 100-continue request is split on purpose; only its
            // body is judged (the wait itself is expect_100_wait's).
            size_t from = 0;
            if (which == 0 && call.expect_continue && m.body_first_frame && m.body_first_frame != m.headers_end_frame) {
                while (from < m.frames.size() && m.frames[from] != m.body_first_frame) ++from;
                if (from >= m.frames.size()) continue;
            }
            // Views of the judged segments: most messages make no finding,
            // and are judged without copying their sizes and frames.
            if (from > m.write_sizes.size() || from > m.frames.size()) continue;
            const std::span<const uint32_t> sizes(m.write_sizes.data() + from, m.write_sizes.size() - from);
            const std::span<const uint64_t> frames(m.frames.data() + from, m.frames.size() - from);
            if (sizes.size() < 2) continue;
            uint64_t size = std::accumulate(sizes.begin(), sizes.end(), uint64_t(0));
            uint32_t mss = usable_mss(call, conn, sender);
            size_t needed = size_t((size + mss - 1) / mss);
            bool fits_one = size <= mss;
            bool many = sizes.size() >= needed + kExtraSegments;
            if (!fits_one && !many) continue;
            bool at_header_end = from == 0 && m.header_bytes > 0 && sizes[0] == m.header_bytes;

            const std::vector<uint32_t> sizes_v(sizes.begin(), sizes.end());
            const std::string joined = join_sizes(sizes_v);
            Finding f = make_finding(kind(), sender, call);
            f.frames.assign(frames.begin(), frames.end());
            f.cost_ms = 0;
            // Not a stall: a zero-length interval, so diagrams draw no wait
            // for it (the Nagle finding draws the wait a split armed).
            f.start_ns = f.end_ns = which == 0 && from ? m.body_first_ns : m.first_ns;
            const std::string_view msg = which == 0 ? (from ? "request body" : "request") : "response";
            const std::string how = at_header_end && sizes.size() == 2
                                        ? "header block and body in separate segments (boundary at the end of the headers)"
                                        : text(sizes.size(), " segments where ", needed, " would do");
            f.explanation = text("the ", side_name(sender), "'s ", msg, " of ", size, " B left in ", sizes.size(),
                                 " segments (", joined, "): ", how);
            // Did this split arm a Nagle stall? Then that finding carries the time.
            const std::vector<NagleStall>& stalls = scan.nagle_stalls();
            double armed_ms = 0;
            uint64_t armed_frame = 0;
            for (const NagleStall& st : stalls) {
                if (st.sender != sender) continue;
                for (uint64_t fr : frames)
                    if (fr == st.b_frame) { armed_ms += st.cost_ms; armed_frame = st.b_frame; }
            }
            if (armed_ms > 0) {
                const std::string armed = fmt_ms(armed_ms);
                f.cost_method = text("0 here: it armed a Nagle stall (frame ", armed_frame, ", ", armed,
                                     " ms) counted in the nagle_delayed_ack finding");
                f.explanation += text("; it armed a ", armed, " ms Nagle stall");
            } else {
                f.cost_method = "0: an extra packet and system call per segment, no stall seen";
            }
            f.fix = "build the whole message in one buffer and send it with one write, or use a gather write "
                    "(writev/sendmsg) of header and body; TCP_CORK/MSG_MORE then flush also works";
            apply_toolkit_fix(f, call);
            f.details.push_back({"write_sizes", joined});
            f.details.push_back({"message_bytes", std::to_string(size)});
            f.details.push_back({"segments", std::to_string(sizes.size())});
            f.details.push_back({"segments_needed", std::to_string(needed)});
            f.details.push_back({"mss", std::to_string(mss)});
            if (from == 0) f.details.push_back({"header_bytes", std::to_string(m.header_bytes)});
            if (armed_ms > 0) f.details.push_back({"armed_nagle_stall_ms", fmt_ms(armed_ms)});
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<Detector> make_split_write_detector() { return std::make_unique<SplitWrite>(); }

} // namespace stallscope
