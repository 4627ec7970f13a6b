#pragma once
// Reads every frame of a capture reader into memory (tests only), copying
// each frame's bytes since they live only until the next call.
#include "capture/pcap/pcap_file_reader.h"
#include "capture/tests/packet_builder.h"

#include <vector>

namespace stallscope::test {

struct ReadAll {
    std::vector<Frame> frames;   // data emptied: the bytes are in `data`
    std::vector<Bytes> data;
    PcapFileReader::Status last = PcapFileReader::Status::Ok;
};

inline ReadAll read_all(PcapFileReader& r) {
    ReadAll out;
    Frame f;
    for (int guard = 0; guard < 100000; ++guard) {
        out.last = r.next(f);
        if (out.last != PcapFileReader::Status::Ok) break;
        out.frames.push_back(f);
        out.data.emplace_back(f.data.begin(), f.data.end());
        out.frames.back().data = {};
    }
    return out;
}

} // namespace stallscope::test
