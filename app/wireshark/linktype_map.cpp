#include "app/wireshark/linktype_map.h"

#include "capture/packet_decoder.h"

#include <wiretap/pcap-encap.h>

#include <array>
#include <utility>

namespace stallscope::ws {

int linktype_for_wtap_encap(int wtap_encap) {
    // Built once (function-local static initialisation is thread-safe).
    static const auto table = [] {
        constexpr std::array<int, 9> decodable = {linktype::kEthernet, linktype::kLinuxSll, linktype::kLinuxSll2,
                                                  linktype::kNull,     linktype::kLoop,     linktype::kRaw,
                                                  linktype::kIpv4,     linktype::kIpv6,     linktype::kNflog};
        std::array<std::pair<int, int>, decodable.size()> t{};
        for (size_t i = 0; i < decodable.size(); ++i)
            t[i] = {wtap_pcap_encap_to_wtap_encap(decodable[i]), decodable[i]};
        return t;
    }();
    for (auto& [encap, lt] : table)
        if (encap == wtap_encap && encap >= 0) return lt;
    return -1;
}

} // namespace stallscope::ws
