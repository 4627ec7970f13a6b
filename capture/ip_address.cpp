#include "capture/ip_address.h"

#include <arpa/inet.h>
#include <sys/socket.h>

namespace stallscope {

std::string IpAddress::to_string() const {
    char buf[INET6_ADDRSTRLEN] = {};
    if (family == 4) {
        if (inet_ntop(AF_INET, bytes.data(), buf, sizeof buf)) return buf;
    } else if (family == 6) {
        // glibc's inet_ntop follows RFC 5952 (lower case, longest zero run
        // compressed, single zero groups kept, ::ffff:a.b.c.d for mapped).
        if (inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf)) return buf;
    }
    return "?";
}

std::string Endpoint::to_string() const {
    std::string a = addr.to_string();
    std::string p = std::to_string(port);
    if (addr.family == 6) return "[" + a + "]:" + p;
    return a + ":" + p;
}

} // namespace stallscope
