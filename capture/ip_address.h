#pragma once
// An IPv4 or IPv6 address as a value (comparable, hashable, printable).
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

namespace stallscope {

struct IpAddress {
    uint8_t family = 0;              // 4 or 6; 0 = unset
    std::array<uint8_t, 16> bytes{}; // IPv4 uses the first 4

    static IpAddress v4(const uint8_t* p) { IpAddress a; a.family = 4; std::memcpy(a.bytes.data(), p, 4); return a; }
    static IpAddress v6(const uint8_t* p) { IpAddress a; a.family = 6; std::memcpy(a.bytes.data(), p, 16); return a; }
    std::string to_string() const;   // dotted quad, or RFC 5952 IPv6

    friend bool operator==(const IpAddress&, const IpAddress&) = default;
    friend auto operator<=>(const IpAddress&, const IpAddress&) = default;
};

struct Endpoint {
    IpAddress addr;
    uint16_t port = 0;
    std::string to_string() const;  // 1.2.3.4:80 or [::1]:80
    friend bool operator==(const Endpoint&, const Endpoint&) = default;
    friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
};

struct EndpointHash {
    size_t operator()(const Endpoint& e) const noexcept {
        size_t h = std::hash<uint16_t>{}(e.port) ^ (size_t(e.addr.family) << 20);
        for (uint8_t b : e.addr.bytes) h = h * 131 + b;
        return h;
    }
};

} // namespace stallscope
