#include "dissectors/tls/keylog.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <random>

namespace stallscope {

namespace {

constexpr size_t kMaxLineWarnings = 5;
// load_file reads this much at a time: the file is never whole in memory
// (an 18 MB key log was 18 MB more peak RSS), and what was read is wiped.
constexpr size_t kReadBlock = 1 << 20;

// Hex digit values, -1 for any other byte: one load a digit (a branch chain
// per digit was a third of loading an 18 MB key log).
constexpr std::array<int8_t, 256> kHex = [] {
    std::array<int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int c = 0; c < 10; ++c) t[size_t('0' + c)] = int8_t(c);
    for (int c = 0; c < 6; ++c) t[size_t('a' + c)] = t[size_t('A' + c)] = int8_t(10 + c);
    return t;
}();

// `s` (2 * out.size() hex digits) into `out`; false on any other length or byte.
bool unhex(std::string_view s, std::span<uint8_t> out) {
    if (s.size() != 2 * out.size()) return false;
    int bad = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        const int hi = kHex[uint8_t(s[2 * i])], lo = kHex[uint8_t(s[2 * i + 1])];
        bad |= hi | lo;  // negative once any digit was not one
        out[i] = uint8_t(hi << 4 | lo);
    }
    return bad >= 0;
}

void wipe(std::vector<uint8_t>& v) {
    if (!v.empty()) OPENSSL_cleanse(v.data(), v.size());
}

constexpr size_t kNoSlot = SIZE_MAX;

// The slot a label's secret goes to (TlsSecrets' fields in order); kNoSlot
// for labels that are ignored.
size_t slot(std::string_view label) {
    if (label == "CLIENT_RANDOM") return 0;
    if (label == "CLIENT_HANDSHAKE_TRAFFIC_SECRET") return 1;
    if (label == "SERVER_HANDSHAKE_TRAFFIC_SECRET") return 2;
    if (label == "CLIENT_TRAFFIC_SECRET_0") return 3;
    if (label == "SERVER_TRAFFIC_SECRET_0") return 4;
    if (label == "CLIENT_EARLY_TRAFFIC_SECRET") return 5;
    return kNoSlot;
}

std::vector<uint8_t>* field(TlsSecrets& s, size_t slot) {
    std::vector<uint8_t>* f[] = {&s.master_secret,    &s.client_handshake, &s.server_handshake,
                                 &s.client_traffic_0, &s.server_traffic_0, &s.client_early};
    return f[slot];
}

// The first (up to) four fields of `line`, split on runs of spaces/tabs; returns how many.
size_t fields(std::string_view line, std::array<std::string_view, 4>& out) {
    size_t n = 0, i = 0;
    while (i < line.size() && n < out.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        if (j > i) out[n++] = line.substr(i, j - i);
        i = j;
    }
    return n;
}

} // namespace

TlsSecrets::~TlsSecrets() {
    for (auto* v : {&master_secret, &client_handshake, &server_handshake, &client_traffic_0, &server_traffic_0,
                    &client_early})
        wipe(*v);
}

TlsKeyStore::Stored::~Stored() { wipe(bytes); }

void TlsKeyStore::Stored::set(size_t slot, std::span<const uint8_t> secret) {
    // Rebuilt whole (a key log line at a time: no hot path), the old bytes wiped.
    std::vector<uint8_t> next;
    next.reserve(bytes.size() - len[slot] + secret.size());
    size_t at = 0;
    for (size_t k = 0; k < kSlots; ++k) {
        if (k == slot) next.insert(next.end(), secret.begin(), secret.end());
        else next.insert(next.end(), bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + len[k]));
        at += len[k];
    }
    len[slot] = uint8_t(secret.size());
    wipe(bytes);
    bytes = std::move(next);
}

TlsSecrets TlsKeyStore::Stored::secrets() const {
    TlsSecrets s;
    size_t at = 0;
    for (size_t k = 0; k < kSlots; ++k) {
        field(s, k)->assign(bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + len[k]));
        at += len[k];
    }
    return s;
}

uint64_t TlsKeyStore::hash_seed() {
    try {
        std::random_device rd;
        return (uint64_t(rd()) << 32) ^ rd();
    } catch (const std::exception&) {  // no entropy source: the clock still differs from run to run
        return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ULL;
    }
}

size_t TlsKeyStore::add_lines(std::string_view text, bool last, const std::string& source,
                              const std::function<void(const std::string&)>& warn, Parse& parse) {
    ClientRandom key;
    std::array<uint8_t, 64> secret;  // the longest a label allows (checked below)
    std::array<std::string_view, 4> f;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) {
            if (!last) break;  // the rest of this line comes with the next block
            end = text.size();
        }
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++parse.line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const size_t n = fields(line, f);
        if (n == 0 || f[0].front() == '#') continue;
        const size_t k = slot(f[0]);
        if (k == kNoSlot) continue;  // a label we do not use
        const size_t len = f[2].size() / 2;
        bool ok = n == 3 && unhex(f[1], key) && (k == 0 ? len == 48 : (len == 32 || len == 48 || len == 64)) &&
                  unhex(f[2], std::span<uint8_t>(secret.data(), len));
        if (ok) secrets_[key].set(k, std::span<const uint8_t>(secret.data(), len));
        OPENSSL_cleanse(secret.data(), secret.size());
        if (!ok) {
            if (++parse.malformed <= kMaxLineWarnings && warn)
                warn(source + ": line " + std::to_string(parse.line_no) + " is not a valid key log line, ignored");
            continue;
        }
        ++parse.accepted;
    }
    return std::min(pos, text.size());
}

void TlsKeyStore::warn_rest(const Parse& parse, const std::string& source,
                            const std::function<void(const std::string&)>& warn) {
    if (parse.malformed > kMaxLineWarnings && warn)
        warn(source + ": " + std::to_string(parse.malformed - kMaxLineWarnings) + " more invalid key log lines ignored");
}

size_t TlsKeyStore::add_key_log(std::string_view text, const std::string& source,
                                const std::function<void(const std::string&)>& warn) {
    Parse parse;
    std::lock_guard lock(mu_);
    add_lines(text, true, source, warn, parse);
    warn_rest(parse, source, warn);
    return parse.accepted;
}

bool TlsKeyStore::load_file(const std::string& path, const std::function<void(const std::string&)>& warn,
                            std::string& error) {
    // A file or a pipe (`--keylog <(...)`); a device or a directory is no
    // key log (/dev/zero would be read for ever).
    std::error_code ec;
    const std::filesystem::file_type type = std::filesystem::status(path, ec).type();
    if (!ec && type != std::filesystem::file_type::regular && type != std::filesystem::file_type::fifo) {
        error = path + ": cannot read the key log (not a file)";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot read the key log";
        return false;
    }
    // Block by block (a pipe too), each line whole: a line cut by a block's
    // end waits at the buffer's start for the rest. A line longer than a
    // block is no key log line: it is read through and warned as one.
    std::vector<char> buf(kReadBlock);
    size_t held = 0;       // bytes of an unfinished line at buf's start
    bool skipping = false; // inside an overlong line, up to its newline
    Parse parse;
    std::lock_guard lock(mu_);
    for (;;) {
        in.read(buf.data() + held, std::streamsize(buf.size() - held));
        const size_t got = size_t(in.gcount());
        const bool last = got == 0 || !in;
        size_t avail = held + got;
        std::string_view text(buf.data(), avail);
        if (skipping) {
            const size_t nl = text.find('\n');
            if (nl == std::string_view::npos && !last) {
                held = 0;
                continue;
            }
            skipping = false;
            text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        }
        const size_t used = add_lines(text, last, path, warn, parse);
        const size_t rest = text.size() - used;
        if (last) break;
        if (rest == buf.size()) {  // one line fills the whole block: count it, skip to its end
            ++parse.line_no;
            if (++parse.malformed <= kMaxLineWarnings && warn)
                warn(path + ": line " + std::to_string(parse.line_no) + " is not a valid key log line, ignored");
            skipping = true;
            held = 0;
            continue;
        }
        std::memmove(buf.data(), text.data() + used, rest);
        OPENSSL_cleanse(buf.data() + rest, buf.size() - rest);
        held = rest;
    }
    OPENSSL_cleanse(buf.data(), buf.size());
    warn_rest(parse, path, warn);
    return true;
}

std::optional<TlsSecrets> TlsKeyStore::find(const ClientRandom& random) const {
    std::lock_guard lock(mu_);
    auto it = secrets_.find(random);
    if (it == secrets_.end()) return std::nullopt;
    return it->second.secrets();
}

size_t TlsKeyStore::size() const {
    std::lock_guard lock(mu_);
    return secrets_.size();
}

} // namespace stallscope
