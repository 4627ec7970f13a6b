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

// The value is h = h * 131 + byte over the 16 address bytes, starting from
// port ^ family << 20 (the sharded analysis picks workers by it, the flow
// table's order of open connections follows it: it must not change). Written
// as the expanded sum with 131's powers, the 16 products are independent
// instead of one chain of 16 dependent multiplications (a lookup per packet).
struct EndpointHash {
    static constexpr std::array<size_t, 17> kPow = [] {
        std::array<size_t, 17> p{};
        p[0] = 1;
        for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 131;
        return p;
    }();
    size_t operator()(const Endpoint& e) const noexcept {
        const auto& b = e.addr.bytes;
        size_t h = (size_t(e.port) ^ (size_t(e.addr.family) << 20)) * kPow[16] + size_t(b[0]) * kPow[15] +
                   size_t(b[1]) * kPow[14] + size_t(b[2]) * kPow[13] + size_t(b[3]) * kPow[12];
        uint64_t rest[2];  // bytes 4..15: zero for IPv4, so their terms are 0
        std::memcpy(rest, b.data() + 4, 8);
        std::memcpy(&rest[1], b.data() + 8, 8);
        if ((rest[0] | rest[1]) == 0) return h;
        for (size_t i = 4; i < 16; ++i) h += size_t(b[i]) * kPow[15 - i];
        return h;
    }
};

} // namespace stallscope
