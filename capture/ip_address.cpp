#include "capture/ip_address.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>

namespace stallscope {

namespace {
// The dotted quad at p (room for 15 bytes); returns its end. inet_ntop and
// the string concatenations cost ~2,000 instructions an endpoint, and the
// JSON report prints two per connection.
char* dotted_quad(char* p, const uint8_t* b) {
    for (int i = 0; i < 4; ++i) {
        if (i) *p++ = '.';
        p = std::to_chars(p, p + 3, unsigned(b[i])).ptr;
    }
    return p;
}
}

std::string IpAddress::to_string() const {
    char buf[INET6_ADDRSTRLEN] = {};
    if (family == 4) {
        return std::string(buf, dotted_quad(buf, bytes.data()));
    } else if (family == 6) {
        // glibc's inet_ntop follows RFC 5952 (lower case, longest zero run
        // compressed, single zero groups kept, ::ffff:a.b.c.d for mapped).
        if (inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf)) return buf;
    }
    return "?";
}

std::string Endpoint::to_string() const {
    if (addr.family == 4) {  // 255.255.255.255:65535 at most
        char buf[24];
        char* p = dotted_quad(buf, addr.bytes.data());
        *p++ = ':';
        return std::string(buf, std::to_chars(p, buf + sizeof buf, port).ptr);
    }
    std::string a = addr.to_string();
    std::string p = std::to_string(port);
    if (addr.family == 6) return "[" + a + "]:" + p;
    return a + ":" + p;
}

} // namespace stallscope
