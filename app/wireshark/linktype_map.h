#pragma once
// Wireshark hands the plugin WTAP_ENCAP_* values; the analysis wants the
// LINKTYPE_* values of pcap files. libwiretap 4.0 exports only the pcap ->
// wtap direction, so the map is built by asking it about each link type the
// analysis can decode.
namespace stallscope::ws {

// The LINKTYPE_* value for a WTAP_ENCAP_* value, or -1 when the analysis
// cannot decode that encapsulation anyway.
int linktype_for_wtap_encap(int wtap_encap);

} // namespace stallscope::ws
