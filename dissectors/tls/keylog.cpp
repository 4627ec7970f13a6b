#include "dissectors/tls/keylog.h"

#include <openssl/crypto.h>

#include <cstdint>
#include <fstream>
#include <iterator>

namespace stallscope {

namespace {

constexpr size_t kMaxLineWarnings = 5;

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool unhex(std::string_view s, std::vector<uint8_t>& out) {
    if (s.size() % 2) return false;
    out.resize(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = uint8_t(hi << 4 | lo);
    }
    return true;
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

// Splits on runs of spaces/tabs.
std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size() && out.size() < 4) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        if (j > i) out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

} // namespace

TlsSecrets::~TlsSecrets() {
    for (auto* v : {&master_secret, &client_handshake, &server_handshake, &client_traffic_0, &server_traffic_0,
                    &client_early})
        wipe(*v);
}

TlsKeyStore::Stored::~Stored() { wipe(bytes); }

void TlsKeyStore::Stored::set(size_t slot, const std::vector<uint8_t>& secret) {
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

size_t TlsKeyStore::add_key_log(std::string_view text, const std::string& source,
                                const std::function<void(const std::string&)>& warn) {
    size_t accepted = 0, malformed = 0;
    uint64_t line_no = 0;
    std::vector<uint8_t> random, secret;
    std::lock_guard lock(mu_);
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        auto f = fields(line);
        if (f.empty() || f[0].front() == '#') continue;
        const size_t k = slot(f[0]);
        if (k == kNoSlot) continue;  // a label we do not use
        bool ok = f.size() == 3 && unhex(f[1], random) && random.size() == 32 && unhex(f[2], secret);
        if (ok) {
            size_t n = secret.size();
            ok = f[0] == "CLIENT_RANDOM" ? n == 48 : (n == 32 || n == 48 || n == 64);
        }
        if (!ok) {
            if (++malformed <= kMaxLineWarnings && warn)
                warn(source + ": line " + std::to_string(line_no) + " is not a valid key log line, ignored");
            wipe(secret);
            continue;
        }
        ClientRandom key;
        std::copy(random.begin(), random.end(), key.begin());
        secrets_[key].set(k, secret);  // its secrets are at most 64 bytes (checked above)
        wipe(secret);
        ++accepted;
    }
    if (malformed > kMaxLineWarnings && warn)
        warn(source + ": " + std::to_string(malformed - kMaxLineWarnings) + " more invalid key log lines ignored");
    return accepted;
}

bool TlsKeyStore::load_file(const std::string& path, const std::function<void(const std::string&)>& warn,
                            std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot read the key log";
        return false;
    }
    // One read into a buffer of the file's size (a byte-by-byte read was a
    // third of the loading, and its reallocations left secrets in freed
    // memory); a pipe, whose size is unknown, is read the slow way.
    std::string text;
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size > 0 && in) {
        text.resize(size_t(size));
        in.read(text.data(), size);
        text.resize(size_t(in.gcount()));
    } else {
        in.clear();
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    add_key_log(text, path, warn);
    if (!text.empty()) OPENSSL_cleanse(text.data(), text.size());
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
