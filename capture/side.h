#pragma once
// The two ends of a TCP connection, and state kept once per end. It lives
// at the bottom (no code, no dependencies) so that the TLS dissector and the
// analysis index their per-direction state by the same Side: no 0/1 ints,
// no casts. A side's name for reports: side_name (analyzers/result/model.h).
#include <array>
#include <cstddef>
#include <cstdint>

namespace stallscope {

// Client: the end that opened the connection (or sent the first request);
// a direction is named by the side that sends it.
enum class Side : uint8_t { Client, Server };

constexpr Side other_side(Side s) { return s == Side::Client ? Side::Server : Side::Client; }

// Both sides, client first: `for (Side s : kSides)`.
inline constexpr std::array<Side, 2> kSides = {Side::Client, Side::Server};

// One T per side, indexed by Side. An aggregate: `PerSide<int> n = {1, 2}`
// is 1 for the client and 2 for the server; unnamed values are value-initialised.
template <class T>
struct PerSide {
    T by_side[2]{};

    constexpr T& operator[](Side s) { return by_side[static_cast<size_t>(s)]; }
    constexpr const T& operator[](Side s) const { return by_side[static_cast<size_t>(s)]; }
    // Client first.
    constexpr T* begin() { return by_side; }
    constexpr T* end() { return by_side + 2; }
    constexpr const T* begin() const { return by_side; }
    constexpr const T* end() const { return by_side + 2; }
};

} // namespace stallscope
