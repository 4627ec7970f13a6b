#pragma once
// TLS secrets in the NSS key log format (SSLKEYLOGFILE, as curl, Firefox,
// Chrome, OpenSSL, Python and Go write it; also the payload of a pcapng
// Decryption Secrets Block of type "TLSK"), kept by client random.
//
//   CLIENT_RANDOM <client random> <master secret>          TLS 1.0-1.2
//   CLIENT_HANDSHAKE_TRAFFIC_SECRET / SERVER_HANDSHAKE_TRAFFIC_SECRET
//   CLIENT_TRAFFIC_SECRET_0 / SERVER_TRAFFIC_SECRET_0 / CLIENT_EARLY_TRAFFIC_SECRET
//
// Unknown labels (EXPORTER_SECRET, RSA, OpenSSL's _N lines...) and comments
// are ignored; a malformed line of a known label is warned by its line
// number, never its contents. Secret bytes never leave this store except
// to the decryptor; they are wiped when the store goes. Thread-safe: the
// reader thread adds secrets from the capture while workers look them up.
#include <array>
#include <cstdint>
#include <functional>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope {

using ClientRandom = std::array<uint8_t, 32>;

struct TlsSecrets {
    std::vector<uint8_t> master_secret;              // TLS <= 1.2 (48 bytes)
    std::vector<uint8_t> client_handshake, server_handshake;
    std::vector<uint8_t> client_traffic_0, server_traffic_0;
    std::vector<uint8_t> client_early;
    ~TlsSecrets();
    TlsSecrets() = default;
    TlsSecrets(const TlsSecrets&) = default;
    TlsSecrets& operator=(const TlsSecrets&) = default;
    bool any_tls13() const { return !client_handshake.empty() || !server_handshake.empty() || !client_traffic_0.empty() ||
                                    !server_traffic_0.empty() || !client_early.empty(); }
};

class TlsKeyStore {
public:
    // Adds the secrets in `text` (a key log file's or a DSB's bytes). `warn`
    // gets one message per malformed line (at most a few, then a count),
    // naming `source` and the line number. Returns the lines accepted.
    size_t add_key_log(std::string_view text, const std::string& source,
                       const std::function<void(const std::string&)>& warn);
    // Reads a key log file; false (and `error`, naming the path) when it cannot be read.
    bool load_file(const std::string& path, const std::function<void(const std::string&)>& warn, std::string& error);

    std::optional<TlsSecrets> find(const ClientRandom& random) const;
    size_t size() const;
    // Secrets ever added (a connection without a key says whether any came at all).
    bool empty() const { return size() == 0; }

private:
    // Where add_key_log is in one source: load_file feeds a file to it in
    // blocks, and its line numbers and warnings go on across them.
    struct Parse {
        uint64_t line_no = 0;
        size_t accepted = 0, malformed = 0;
    };
    // The whole lines of `text` (a last line without its newline too when
    // `last`); returns where the unread rest starts.
    size_t add_lines(std::string_view text, bool last, const std::string& source,
                     const std::function<void(const std::string&)>& warn, Parse& parse);
    static void warn_rest(const Parse& parse, const std::string& source, const std::function<void(const std::string&)>& warn);

    // One connection's secrets in one buffer, each at most 64 bytes: a
    // TlsSecrets in the map was six vectors, four of them a heap block each
    // (about 400 bytes a client random, 11.6 MB for the 28,928 of the 1M-packet
    // HTTPS bench file's key log; now about 250). Wiped when it goes.
    struct Stored {
        static constexpr size_t kSlots = 6;  // TlsSecrets' fields, in their order
        std::array<uint8_t, kSlots> len{};
        std::vector<uint8_t> bytes;          // the slots' bytes, one after another
        ~Stored();
        void set(size_t slot, std::span<const uint8_t> secret);
        TlsSecrets secrets() const;
    };
    // All 32 bytes mixed with a seed of this process: a key log (or a
    // capture's secrets block) made to put every random in one bucket cannot
    // know it, so lookups stay constant time.
    struct RandomHash {
        uint64_t seed;
        size_t operator()(const ClientRandom& r) const {
            uint64_t h = seed;
            for (size_t at = 0; at < 32; at += 8) {
                uint64_t w;
                std::memcpy(&w, r.data() + at, 8);
                h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
                h ^= h >> 29;
            }
            return size_t(h);
        }
    };
    static uint64_t hash_seed();
    mutable std::mutex mu_;
    std::unordered_map<ClientRandom, Stored, RandomHash> secrets_{0, RandomHash{hash_seed()}};
};

} // namespace stallscope
