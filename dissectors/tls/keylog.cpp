#include "dissectors/tls/keylog.h"

#include <openssl/crypto.h>

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

// The slot a label's secret goes to; null for labels that are ignored.
std::vector<uint8_t>* slot(TlsSecrets& s, std::string_view label) {
    if (label == "CLIENT_RANDOM") return &s.master_secret;
    if (label == "CLIENT_HANDSHAKE_TRAFFIC_SECRET") return &s.client_handshake;
    if (label == "SERVER_HANDSHAKE_TRAFFIC_SECRET") return &s.server_handshake;
    if (label == "CLIENT_TRAFFIC_SECRET_0") return &s.client_traffic_0;
    if (label == "SERVER_TRAFFIC_SECRET_0") return &s.server_traffic_0;
    if (label == "CLIENT_EARLY_TRAFFIC_SECRET") return &s.client_early;
    return nullptr;
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
        TlsSecrets probe;
        if (!slot(probe, f[0])) continue;  // a label we do not use
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
        std::vector<uint8_t>& dst = *slot(secrets_[key], f[0]);
        wipe(dst);
        dst = secret;
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
    return it->second;
}

size_t TlsKeyStore::size() const {
    std::lock_guard lock(mu_);
    return secrets_.size();
}

} // namespace stallscope
