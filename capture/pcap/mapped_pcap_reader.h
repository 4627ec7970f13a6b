#pragma once
// Classic pcap records read straight out of a read-only memory map: a
// frame's bytes are where they lie in the file, never copied (libpcap's
// pcap_next_ex copies each record out of stdio's buffer, which fread copied
// out of the page cache). The file header is still read by libpcap (see
// pcap_file_reader.cpp): this reader only walks the records after it, with
// libpcap's rules (caplen past the link type's maximum is an error; past the
// file's snaplen it is cut to the snaplen; a short header or body at the end
// is a truncated file). Pages behind the reader are dropped as it goes, so
// its resident memory stays a few MB whatever the file's size.
#include "capture/pcap/pcap_file_reader.h"

#include <cstdint>
#include <memory>
#include <string>

namespace stallscope::capture_detail {

struct ClassicPcapFormat {
    int linktype = 0;          // LINKTYPE_*
    uint32_t snaplen = 0;      // the file's (libpcap's view of it)
    uint32_t max_caplen = 0;   // libpcap's maximum for the link type
    bool swapped = false;      // fields in the other byte order
    bool nanoseconds = false;  // pcap-ns
    std::string format;        // "pcap", "pcap-ns"
};

// nullptr (error set) if the file cannot be mapped; records start at offset 24.
std::unique_ptr<PcapFileReader> open_mapped_pcap(const std::string& path, uint64_t size, const ClassicPcapFormat& f,
                                                 std::string& error);

// Whether classic pcap goes through the map (default) or through libpcap's
// pcap_next_ex (STALLSCOPE_PCAP_READER=libpcap: to measure one against the other).
bool mapped_pcap_enabled();

} // namespace stallscope::capture_detail
