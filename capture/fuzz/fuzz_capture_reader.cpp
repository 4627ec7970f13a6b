// libFuzzer: any bytes as a capture file -> PcapFileReader (libpcap for
// classic pcap, our block reader for pcapng) -> decode_packet on every frame.
#include "capture/fuzz/memfd_input.h"
#include "capture/packet_decoder.h"
#include "capture/pcap/pcap_file_reader.h"

#include <cstdint>
#include <cstdlib>

using namespace stallscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = fuzz::memfd_path_with(data, size);
    std::string error;
    auto reader = PcapFileReader::open(path, error);
    if (!reader) {
        if (error.find(path) == std::string::npos) std::abort();  // errors name the file
        return 0;
    }
    Frame f;
    uint64_t last_number = 0;
    // A file of `size` bytes cannot hold more frames than bytes (+ SPB reuse).
    for (size_t i = 0; i <= size + 1; ++i) {
        auto st = reader->next(f);
        if (st == PcapFileReader::Status::End) break;
        if (st == PcapFileReader::Status::Error) {
            if (reader->error().find(path) == std::string::npos) std::abort();
            if (reader->error_offset() > size) std::abort();
            break;
        }
        if (f.number != last_number + 1 || f.file_offset >= size) std::abort();
        last_number = f.number;
        volatile uint8_t sink = 0;
        for (uint8_t b : f.data) sink = sink ^ b;  // every captured byte must be readable
        (void)sink;
        DecodeResult d = decode_packet(f.linktype, f.data);
        if (d.status == DecodeStatus::Tcp && d.tcp.payload.size() > f.data.size()) std::abort();
    }
    return 0;
}
