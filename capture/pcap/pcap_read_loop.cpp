#include "capture/pcap/pcap_read_loop.h"

#include <pcap/pcap.h>

namespace stallscope {

ReadLoopStats bare_pcap_read(const std::string& path) {
    ReadLoopStats s;
    char err[PCAP_ERRBUF_SIZE] = {0};
    pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) { s.error = err; return s; }
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    int rc;
    while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
        ++s.packets;
        s.bytes += h->caplen;
    }
    s.ok = rc == -2;  // -2: end of file (PCAP_ERROR_BREAK) ; -1: damaged record
    if (rc == -1) s.error = pcap_geterr(p);
    pcap_close(p);
    return s;
}

} // namespace stallscope
