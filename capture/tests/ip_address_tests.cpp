#include "capture/ip_address.h"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <unordered_set>
#include <vector>

using namespace stallscope;

namespace {
IpAddress v6(std::initializer_list<uint16_t> groups) {
    uint8_t b[16] = {};
    int i = 0;
    for (uint16_t g : groups) {
        b[i++] = uint8_t(g >> 8);
        b[i++] = uint8_t(g);
    }
    return IpAddress::v6(b);
}
} // namespace

TEST_CASE("IPv4 dotted quad") {
    const uint8_t a[4] = {192, 0, 2, 255};
    CHECK(IpAddress::v4(a).to_string() == "192.0.2.255");
}

// IPv4 text is formatted by hand (ip_address.cpp): it must read as
// inet_ntop writes it, for every length of every byte and of the port.
TEST_CASE("IPv4 address and endpoint text as inet_ntop writes them") {
    const uint8_t values[] = {0, 1, 9, 10, 42, 99, 100, 199, 255};
    const uint16_t ports[] = {0, 7, 80, 443, 8080, 65535};
    int checked = 0;
    for (uint8_t x : values)
        for (uint8_t y : values) {
            const uint8_t a[4] = {x, y, uint8_t(255 - x), uint8_t(y ^ 0x5a)};
            char ref[INET_ADDRSTRLEN] = {};
            REQUIRE(inet_ntop(AF_INET, a, ref, sizeof ref));
            CHECK(IpAddress::v4(a).to_string() == ref);
            for (uint16_t p : ports) {
                CHECK(Endpoint{IpAddress::v4(a), p}.to_string() == std::string(ref) + ":" + std::to_string(p));
                ++checked;
            }
        }
    CHECK(checked == 9 * 9 * 6);
    const uint8_t top[4] = {255, 255, 255, 255};
    CHECK(Endpoint{IpAddress::v4(top), 65535}.to_string() == "255.255.255.255:65535");
}

TEST_CASE("IPv6 per RFC 5952") {
    CHECK(v6({0, 0, 0, 0, 0, 0, 0, 1}).to_string() == "::1");
    CHECK(v6({0, 0, 0, 0, 0, 0, 0, 0}).to_string() == "::");
    CHECK(v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}).to_string() == "2001:db8::1");
    // a single zero group is not compressed (4.2.2)
    CHECK(v6({0x2001, 0xdb8, 0, 1, 1, 1, 1, 1}).to_string() == "2001:db8:0:1:1:1:1:1");
    // the longest run is compressed; on a tie the first (4.2.3)
    CHECK(v6({0x2001, 0, 0, 1, 0, 0, 0, 1}).to_string() == "2001:0:0:1::1");
    CHECK(v6({0x2001, 0xdb8, 0, 0, 1, 0, 0, 1}).to_string() == "2001:db8::1:0:0:1");
    // lower case hex, no leading zeros (4.3, 4.1)
    CHECK(v6({0x2001, 0xDB8, 0xABCD, 0x0012, 0, 0, 0, 0x00ff}).to_string() == "2001:db8:abcd:12::ff");
}

TEST_CASE("Endpoint text, equality and hash") {
    const uint8_t a[4] = {127, 0, 0, 1};
    Endpoint e4{IpAddress::v4(a), 8080};
    Endpoint e6{v6({0, 0, 0, 0, 0, 0, 0, 1}), 80};
    CHECK(e4.to_string() == "127.0.0.1:8080");
    CHECK(e6.to_string() == "[::1]:80");
    CHECK(IpAddress{}.to_string() == "?");
    std::unordered_set<Endpoint, EndpointHash> set{e4, e6, e4};
    CHECK(set.size() == 2);
    CHECK(e4 != e6);
}

TEST_CASE("Endpoint hash keeps its defining value (worker choice and flow order depend on it)") {
    // The definition: h = h * 131 + byte, from port ^ family << 20.
    auto reference = [](const Endpoint& e) {
        size_t h = size_t(e.port) ^ (size_t(e.addr.family) << 20);
        for (uint8_t b : e.addr.bytes) h = h * 131 + b;
        return h;
    };
    const uint8_t a[4] = {10, 255, 0, 7};
    std::vector<Endpoint> eps{{IpAddress::v4(a), 49152}, {IpAddress::v4(a), 0}, {IpAddress{}, 65535},
                              {v6({0x2001, 0xdb8, 0xffff, 0, 0xabcd, 0, 0, 1}), 443}};
    uint32_t x = 12345;  // a fixed pseudo-random sequence of addresses and ports
    for (int i = 0; i < 200; ++i) {
        uint8_t b[16];
        for (uint8_t& v : b) v = uint8_t((x = x * 1103515245 + 12345) >> 16);
        eps.push_back({i % 2 ? IpAddress::v4(b) : IpAddress::v6(b), uint16_t(x >> 8)});
    }
    for (const Endpoint& e : eps) CHECK(EndpointHash{}(e) == reference(e));
}
