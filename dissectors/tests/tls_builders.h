#pragma once
// Builders of TLS bytes for the tests: records, handshake messages, hellos.
#include <cstdint>
#include <string>
#include <vector>

namespace tlstest {

using Bytes = std::vector<uint8_t>;

inline void put(Bytes& b, uint32_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(uint8_t(v >> (8 * i)));
}
inline void append(Bytes& b, const Bytes& x) { b.insert(b.end(), x.begin(), x.end()); }
inline Bytes vec(const Bytes& body, int len_bytes) {
    Bytes b;
    put(b, uint32_t(body.size()), len_bytes);
    append(b, body);
    return b;
}
inline Bytes record(uint8_t type, const Bytes& body, uint16_t version = 0x0303) {
    Bytes b{type};
    put(b, version, 2);
    put(b, uint32_t(body.size()), 2);
    append(b, body);
    return b;
}
inline Bytes handshake(uint8_t type, const Bytes& body) {
    Bytes b{type};
    put(b, uint32_t(body.size()), 3);
    append(b, body);
    return b;
}
inline Bytes ext(uint16_t type, const Bytes& data) {
    Bytes b;
    put(b, type, 2);
    append(b, vec(data, 2));
    return b;
}
inline Bytes str(const std::string& s) { return Bytes(s.begin(), s.end()); }

inline Bytes sni_ext(const std::string& host) {
    Bytes name{0};
    append(name, vec(str(host), 2));
    return ext(0, vec(name, 2));
}
inline Bytes alpn_ext(const std::vector<std::string>& protos) {
    Bytes list;
    for (auto& p : protos) append(list, vec(str(p), 1));
    return ext(16, vec(list, 2));
}

inline Bytes client_hello(const Bytes& session_id, const Bytes& extensions, uint8_t random_fill = 0x11) {
    Bytes b;
    put(b, 0x0303, 2);
    b.insert(b.end(), 32, random_fill);
    append(b, vec(session_id, 1));
    Bytes suites;
    put(suites, 0x1301, 2);
    put(suites, 0xc02f, 2);
    append(b, vec(suites, 2));
    append(b, vec(Bytes{0}, 1));
    append(b, vec(extensions, 2));
    return handshake(1, b);
}

inline Bytes server_hello(const Bytes& session_id, uint16_t suite, const Bytes& extensions,
                          uint8_t random_fill = 0x22) {
    Bytes b;
    put(b, 0x0303, 2);
    b.insert(b.end(), 32, random_fill);
    append(b, vec(session_id, 1));
    put(b, suite, 2);
    b.push_back(0);
    append(b, vec(extensions, 2));
    return handshake(2, b);
}

} // namespace tlstest
