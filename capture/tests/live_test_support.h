#pragma once
// Live-capture tests need root or CAP_NET_RAW. Without it a test calls
// skip_unless_can_capture(), which prints why and exits with 77, the code
// ctest is told to report as "skipped" (SKIP_RETURN_CODE 77).
#include "capture/pcap/live_capture.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace stallscope::test {

constexpr int kSkipExitCode = 77;

inline void skip_unless_can_capture() {
    std::string err;
    LiveCapture::OpenError kind = LiveCapture::OpenError::None;
    LiveCaptureOptions o;
    o.iface = "lo";
    o.buffer_bytes = 1 << 20;
    auto cap = LiveCapture::open(o, err, &kind);
    if (cap) return;
    std::fprintf(stderr,
                 "SKIPPED: live capture on 'lo' is not permitted here (%s). Run the tests as root or give the "
                 "test binary CAP_NET_RAW,CAP_NET_ADMIN (setcap cap_net_raw,cap_net_admin=eip <binary>).\n",
                 err.c_str());
    std::fflush(stderr);
    std::_Exit(kSkipExitCode);
}

} // namespace stallscope::test
