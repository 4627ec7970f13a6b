#include "dissectors/tls/tls_handshake.h"

#include <algorithm>
#include <cstring>

namespace stallscope {

namespace {

// Bounds-checked reads over a message body: a failed read poisons the
// reader, so a parser checks ok() once at the end of each structure.
class Reader {
public:
    explicit Reader(std::span<const uint8_t> d) : d_(d) {}
    bool ok() const { return ok_; }
    size_t left() const { return d_.size() - pos_; }
    bool empty() const { return left() == 0; }
    uint32_t u(size_t n) {
        if (!need(n)) return 0;
        uint32_t v = 0;
        for (size_t i = 0; i < n; ++i) v = v << 8 | d_[pos_ + i];
        pos_ += n;
        return v;
    }
    std::span<const uint8_t> bytes(size_t n) {
        if (!need(n)) return {};
        auto s = d_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    // A vector with an n-byte length prefix, as a sub-reader.
    Reader vec(size_t len_bytes) {
        size_t n = u(len_bytes);
        auto s = bytes(n);
        return Reader(s, ok_);
    }

private:
    Reader(std::span<const uint8_t> d, bool ok) : d_(d), ok_(ok) {}
    bool need(size_t n) {
        if (!ok_ || left() < n) { ok_ = false; return false; }
        return true;
    }
    std::span<const uint8_t> d_;
    size_t pos_ = 0;
    bool ok_ = true;
};

namespace ext {
constexpr uint16_t kServerName = 0, kAlpn = 16, kEncryptThenMac = 22, kExtendedMasterSecret = 23,
                   kSessionTicket = 35, kPreSharedKey = 41, kEarlyData = 42, kSupportedVersions = 43, kKeyShare = 51;
}

// RFC 8446 4.1.3: a ServerHello with this random is a HelloRetryRequest.
constexpr std::array<uint8_t, 32> kHelloRetryRandom = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

std::string str(std::span<const uint8_t> s) { return std::string(s.begin(), s.end()); }

std::vector<std::string> read_alpn(Reader e) {
    std::vector<std::string> out;
    Reader list = e.vec(2);
    while (list.ok() && !list.empty()) {
        auto name = list.bytes(list.u(1));
        if (list.ok() && out.size() < 32) out.push_back(str(name));
    }
    return out;
}

// Walks an extensions block, calling f(type, reader-over-its-data). False when its lengths do not add up.
template <class F>
bool for_each_extension(Reader& r, F&& f) {
    if (r.empty()) return r.ok();  // extensions are optional before TLS 1.3
    Reader exts = r.vec(2);
    while (exts.ok() && !exts.empty()) {
        uint16_t type = uint16_t(exts.u(2));
        Reader data = exts.vec(2);
        if (!exts.ok()) return false;
        f(type, data);
    }
    return exts.ok() && r.ok();
}

void copy_random(Reader& r, std::array<uint8_t, 32>& out) {
    auto rnd = r.bytes(32);
    if (r.ok()) std::memcpy(out.data(), rnd.data(), 32);
}

} // namespace

void HandshakeReassembler::feed(std::span<const uint8_t> data, uint64_t tag) {
    if (broken_) return;
    while (!data.empty()) {
        if (buf_.empty()) first_tag_ = tag;
        // Whole messages in this record need no copy.
        if (buf_.empty() && data.size() >= tls::kHandshakeHeaderBytes) {
            size_t len = size_t(data[1]) << 16 | size_t(data[2]) << 8 | data[3];
            if (len > lim_.max_handshake_bytes) {
                broken_ = true;
                l_.on_handshake_error(TlsError::HandshakeTooLong, tag);
                return;
            }
            if (data.size() >= tls::kHandshakeHeaderBytes + len) {
                l_.on_handshake_message({data[0], data.subspan(tls::kHandshakeHeaderBytes, len), tag, tag});
                data = data.subspan(tls::kHandshakeHeaderBytes + len);
                continue;
            }
        }
        if (buf_.size() < tls::kHandshakeHeaderBytes) {
            size_t take = std::min(tls::kHandshakeHeaderBytes - buf_.size(), data.size());
            buf_.insert(buf_.end(), data.begin(), data.begin() + ptrdiff_t(take));
            data = data.subspan(take);
            if (buf_.size() < tls::kHandshakeHeaderBytes) return;
            size_t len = size_t(buf_[1]) << 16 | size_t(buf_[2]) << 8 | buf_[3];
            if (len > lim_.max_handshake_bytes) {
                buf_.clear();
                broken_ = true;
                l_.on_handshake_error(TlsError::HandshakeTooLong, tag);
                return;
            }
        }
        size_t len = size_t(buf_[1]) << 16 | size_t(buf_[2]) << 8 | buf_[3];
        size_t total = tls::kHandshakeHeaderBytes + len;
        size_t take = std::min(total - buf_.size(), data.size());
        buf_.insert(buf_.end(), data.begin(), data.begin() + ptrdiff_t(take));
        data = data.subspan(take);
        if (buf_.size() == total) {
            std::vector<uint8_t> msg;
            msg.swap(buf_);  // the listener may feed again (it does not, but stay safe)
            l_.on_handshake_message(
                {msg[0], std::span<const uint8_t>(msg).subspan(tls::kHandshakeHeaderBytes), first_tag_, tag});
        }
    }
}

uint16_t ClientHello::max_version() const {
    uint16_t v = 0;
    for (uint16_t s : supported_versions)
        if ((s >> 8) == 3) v = std::max(v, s);  // GREASE values (0x?a?a) are not versions
    return v ? v : legacy_version;
}

std::optional<ClientHello> parse_client_hello(std::span<const uint8_t> body, TlsError& error) {
    ClientHello ch;
    Reader r(body);
    ch.legacy_version = uint16_t(r.u(2));
    copy_random(r, ch.random);
    auto sid = r.bytes(r.u(1));
    ch.session_id.assign(sid.begin(), sid.end());
    Reader suites = r.vec(2);
    while (suites.ok() && suites.left() >= 2) ch.cipher_suites.push_back(uint16_t(suites.u(2)));
    r.vec(1);  // compression methods
    bool ok = r.ok() && ch.session_id.size() <= 32 && for_each_extension(r, [&](uint16_t type, Reader e) {
        switch (type) {
        case ext::kServerName: {
            Reader list = e.vec(2);
            while (list.ok() && !list.empty()) {
                uint8_t kind = uint8_t(list.u(1));
                auto name = list.bytes(list.u(2));
                if (list.ok() && kind == 0 && ch.sni.empty()) ch.sni = str(name);
            }
            break;
        }
        case ext::kAlpn: ch.alpn = read_alpn(e); break;
        case ext::kSupportedVersions: {
            Reader list = e.vec(1);
            while (list.ok() && list.left() >= 2 && ch.supported_versions.size() < 64)
                ch.supported_versions.push_back(uint16_t(list.u(2)));
            break;
        }
        case ext::kSessionTicket: ch.session_ticket = true; ch.session_ticket_bytes = e.left(); break;
        case ext::kPreSharedKey: ch.pre_shared_key = true; break;
        case ext::kEarlyData: ch.early_data = true; break;
        case ext::kEncryptThenMac: ch.encrypt_then_mac = true; break;
        case ext::kExtendedMasterSecret: ch.extended_master_secret = true; break;
        case ext::kKeyShare: ch.key_share = true; break;
        default: break;
        }
    });
    if (!ok) { error = TlsError::MalformedHandshake; return std::nullopt; }
    return ch;
}

std::optional<ServerHello> parse_server_hello(std::span<const uint8_t> body, TlsError& error) {
    ServerHello sh;
    Reader r(body);
    sh.legacy_version = uint16_t(r.u(2));
    copy_random(r, sh.random);
    auto sid = r.bytes(r.u(1));
    sh.session_id.assign(sid.begin(), sid.end());
    sh.cipher_suite = uint16_t(r.u(2));
    r.u(1);  // compression method
    sh.hello_retry_request = r.ok() && sh.random == kHelloRetryRandom;
    bool ok = r.ok() && sh.session_id.size() <= 32 && for_each_extension(r, [&](uint16_t type, Reader e) {
        switch (type) {
        case ext::kSupportedVersions: sh.selected_version = uint16_t(e.u(2)); break;
        case ext::kAlpn: {
            auto names = read_alpn(e);
            if (!names.empty()) sh.alpn = names.front();
            break;
        }
        case ext::kKeyShare: sh.key_share = true; break;
        case ext::kPreSharedKey: sh.pre_shared_key = true; break;
        case ext::kEncryptThenMac: sh.encrypt_then_mac = true; break;
        case ext::kExtendedMasterSecret: sh.extended_master_secret = true; break;
        case ext::kSessionTicket: sh.session_ticket = true; break;
        default: break;
        }
    });
    if (!ok) { error = TlsError::MalformedHandshake; return std::nullopt; }
    return sh;
}

std::optional<EncryptedExtensions> parse_encrypted_extensions(std::span<const uint8_t> body, TlsError& error) {
    EncryptedExtensions ee;
    Reader r(body);
    bool ok = !r.empty() && for_each_extension(r, [&](uint16_t type, Reader e) {
        if (type == ext::kAlpn) {
            auto names = read_alpn(e);
            if (!names.empty()) ee.alpn = names.front();
        } else if (type == ext::kEarlyData) {
            ee.early_data = true;
        }
    });
    if (!ok) { error = TlsError::MalformedHandshake; return std::nullopt; }
    return ee;
}

std::optional<NewSessionTicket> parse_new_session_ticket(std::span<const uint8_t> body, bool tls13, TlsError& error) {
    NewSessionTicket t;
    Reader r(body);
    t.lifetime = r.u(4);
    if (tls13) {
        r.u(4);          // ticket_age_add
        r.bytes(r.u(1)); // ticket_nonce
    }
    t.ticket_bytes = r.vec(2).left();
    if (tls13) r.vec(2);  // extensions
    if (!r.ok()) { error = TlsError::MalformedHandshake; return std::nullopt; }
    return t;
}

} // namespace stallscope
