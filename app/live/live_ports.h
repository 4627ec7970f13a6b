#pragma once
// Waiting for a scenario's server: which TCP ports a capture filter names,
// and whether something listens on one of them yet (read from /proc/net,
// not probed with a connection: a probe would land in the capture).
#include <string>
#include <vector>

namespace stallscope::live {

// Ports named as "port N" / "tcp port N" / "dst port N" ... in a BPF filter.
std::vector<int> filter_ports(const std::string& filter);
// Is there a TCP socket in LISTEN state on this port (IPv4 or IPv6)?
bool tcp_port_listening(int port);

} // namespace stallscope::live
