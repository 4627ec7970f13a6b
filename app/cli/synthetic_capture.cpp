#include "app/cli/synthetic_capture.h"

#include "app/cli/synthetic_tls.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>
#include <vector>

namespace stallscope::cli {

namespace {

constexpr int kConcurrent = 256;
constexpr int64_t kUs = 1000, kMs = 1000 * kUs;

struct Pkt {
    bool from_client;
    uint8_t flags;
    uint32_t len;
    int64_t delay;   // after the previous packet of this connection
    uint8_t kind;    // 0 none, 1 request headers, 2 request body, 3 request whole, 4 response,
                     // TLS: 5 ClientHello, 6 server flight, 7 client Finished
};

constexpr uint8_t kF = 0x01, kS = 0x02, kP = 0x08, kA = 0x10;

// The packet script of one connection.
std::vector<Pkt> script(bool keepalive, int calls, bool tls) {
    std::vector<Pkt> v;
    v.push_back({true, kS, 0, 0, 0});
    v.push_back({false, kS | kA, 0, 30 * kUs, 0});
    v.push_back({true, kA, 0, 20 * kUs, 0});
    if (tls) {  // the first request then rides on the client's Finished's heels, as in TLS 1.3
        v.push_back({true, kP | kA, 0, 20 * kUs, 5});
        v.push_back({false, kP | kA, 0, 200 * kUs, 6});
        v.push_back({true, kP | kA, 0, 100 * kUs, 7});
    }
    for (int c = 0; c < calls; ++c) {
        if (keepalive) {
            v.push_back({true, kP | kA, 0, 200 * kUs, 3});
            v.push_back({false, kA, 0, 20 * kUs, 0});
            v.push_back({false, kP | kA, 0, 300 * kUs, 4});
            v.push_back({true, kA, 0, 20 * kUs, 0});
        } else {
            v.push_back({true, kP | kA, 0, 100 * kUs, 1});
            v.push_back({false, kA, 0, 40 * kMs, 0});       // the delayed ACK
            v.push_back({true, kP | kA, 0, 15 * kUs, 2});   // body leaves on the ACK
            v.push_back({false, kA, 0, 20 * kUs, 0});
            v.push_back({false, kP | kA, 0, 300 * kUs, 4});
            v.push_back({true, kA, 0, 20 * kUs, 0});
        }
    }
    v.push_back({true, kF | kA, 0, 100 * kUs, 0});
    v.push_back({false, kF | kA, 0, 20 * kUs, 0});
    v.push_back({true, kA, 0, 20 * kUs, 0});
    return v;
}

// The envelopes and the messages around them, made once per file.
struct Messages {
    std::string request_body, response_body, action;
    std::string request_head(bool keepalive) const {
        return std::string("POST /soap HTTP/") + (keepalive ? "1.1" : "1.0") +
               "\r\nHost: bench\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:bench#" + action +
               "\"\r\nContent-Length: " + std::to_string(request_body.size()) + "\r\n\r\n";
    }
    std::string response(bool keepalive) const {
        return std::string("HTTP/") + (keepalive ? "1.1" : "1.0") +
               " 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " + std::to_string(response_body.size()) +
               "\r\n\r\n" + response_body;
    }
};

const char* kEnvelopeOpen =
    "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">";

// An array of doubles of about `bytes`, as seed 002's echoDoubles sends it.
std::string doubles(size_t bytes) {
    std::string out;
    char item[64];
    for (unsigned i = 0; out.size() + 40 < bytes; ++i) {
        std::snprintf(item, sizeof item, "<item>%.9f</item>", double(i) * 1.000000007 + 0.5);
        out += item;
    }
    return out;
}

Messages messages(size_t envelope_bytes) {
    Messages m;
    const std::string close = "</soap:Body></soap:Envelope>";
    if (envelope_bytes == 0) {
        m.action = "getString";
        m.request_body = std::string(kEnvelopeOpen) +
                         "<soap:Body><m:getString xmlns:m=\"urn:bench\"><size>200</size></m:getString>" + close;
        m.response_body = std::string(kEnvelopeOpen) + "<soap:Body><m:getStringResponse xmlns:m=\"urn:bench\"><return>" +
                          std::string(200, 'x') + "</return></m:getStringResponse>" + close;
        return m;
    }
    const std::string items = doubles(envelope_bytes > 300 ? envelope_bytes - 300 : 1);
    m.action = "echoDoubles";
    m.request_body = std::string(kEnvelopeOpen) + "<soap:Body><m:echoDoubles xmlns:m=\"urn:bench\"><input>" + items +
                     "</input></m:echoDoubles>" + close;
    m.response_body = std::string(kEnvelopeOpen) + "<soap:Body><m:echoDoublesResponse xmlns:m=\"urn:bench\"><return>" +
                      items + "</return></m:echoDoublesResponse>" + close;
    return m;
}

struct Conn {
    std::vector<Pkt> pkts;
    size_t next = 0;
    int64_t t = 0;
    uint32_t client_ip, server_ip;
    uint16_t cport;
    uint32_t cseq = 1000, sseq = 500000;
    bool keepalive;
    uint64_t order;
    std::unique_ptr<SyntheticTls> tls;
};

struct Later {
    bool operator()(const Conn* a, const Conn* b) const { return a->t != b->t ? a->t > b->t : a->order > b->order; }
};

void put16(std::vector<uint8_t>& b, uint16_t v) { b.push_back(uint8_t(v >> 8)); b.push_back(uint8_t(v)); }
void put32(std::vector<uint8_t>& b, uint32_t v) { put16(b, uint16_t(v >> 16)); put16(b, uint16_t(v)); }

// Ethernet + IPv4 + TCP (no options) of one packet of `c`, and its payload.
void build_frame(std::vector<uint8_t>& pkt, const Pkt& p, const Conn& c, uint16_t server_port,
                 const std::string* payload) {
    const uint32_t len = payload ? uint32_t(payload->size()) : 0;
    pkt.clear();
    for (int i = 0; i < 12; ++i) pkt.push_back(uint8_t(i));  // Ethernet
    put16(pkt, 0x0800);
    put16(pkt, 0x4500);  // IPv4
    put16(pkt, uint16_t(20 + 20 + len));
    put32(pkt, 0);
    put16(pkt, 0x4006);
    put16(pkt, 0);
    put32(pkt, p.from_client ? c.client_ip : c.server_ip);
    put32(pkt, p.from_client ? c.server_ip : c.client_ip);
    put16(pkt, p.from_client ? c.cport : server_port);  // TCP
    put16(pkt, p.from_client ? server_port : c.cport);
    put32(pkt, p.from_client ? c.cseq : c.sseq);
    put32(pkt, (p.flags & kA) ? (p.from_client ? c.sseq : c.cseq) : 0);
    put16(pkt, uint16_t(0x5000 | p.flags));
    put16(pkt, 65535);
    put32(pkt, 0);
    if (payload) pkt.insert(pkt.end(), payload->begin(), payload->end());
}

// The capture being written: connections in flight, ordered by the time of
// their next packet, each replaced by a new one when it ends.
class SyntheticWriter {
public:
    SyntheticWriter(FILE* f, FILE* keys, const Messages& msgs, SyntheticStats& st)
        : f_(f), keys_(keys), tls_(keys != nullptr), st_(st), pool_(kConcurrent), body_(msgs.request_body),
          hk_(msgs.request_head(true)), h0_(msgs.request_head(false)), rk_(msgs.response(true)), r0_(msgs.response(false)) {}

    void run(uint64_t target, uint64_t connections) {
        // Classic pcap, nanosecond magic, Ethernet.
        uint32_t hdr[6] = {0xa1b23c4d, 0x00040002, 0, 0, 262144, 1};
        std::fwrite(hdr, sizeof hdr, 1, f_);
        const int64_t now = 1'700'000'000LL * 1'000'000'000LL;
        for (int i = 0; i < kConcurrent && (!connections || started_ < connections); ++i)
            start(pool_[size_t(i)], now + i * 37 * kUs);
        while (!q_.empty()) {
            Conn* c = q_.top();
            q_.pop();
            write_packet(*c);
            if (++c->next < c->pkts.size()) {
                c->t += c->pkts[c->next].delay;
                q_.push(c);
            } else if (connections ? started_ < connections : st_.packets < target) {
                start(*c, c->t + 50 * kUs);
            }
        }
    }

    // Every connection's records sealed (libcrypto did not fail).
    bool sealed_ok() {
        for (Conn& c : pool_) sealed_ok_ = sealed_ok_ && (!c.tls || c.tls->ok());
        return sealed_ok_;
    }

private:
    void start(Conn& c, int64_t t) {
        c.keepalive = started_ % 3 != 2;  // two keep-alive connections for each HTTP/1.0 one
        c.pkts = script(c.keepalive, c.keepalive ? 10 : 1, tls_);
        if (tls_) {
            if (c.tls) sealed_ok_ = sealed_ok_ && c.tls->ok();  // the previous connection on this slot
            c.tls = std::make_unique<SyntheticTls>(started_);
            std::fputs(c.tls->keylog_lines().c_str(), keys_);
        }
        c.next = 0;
        c.t = t;
        c.client_ip = 0xC0000200u | uint32_t(1 + started_ % 200);  // 192.0.2.x (documentation range)
        c.server_ip = 0xC6336401u;                                  // 198.51.100.1
        c.cport = uint16_t(1024 + started_ % 60000);
        c.cseq = uint32_t(started_ * 7919u);
        c.sseq = uint32_t(started_ * 104729u);
        c.order = started_++;
        ++st_.connections;
        st_.calls += c.keepalive ? 10 : 1;
        q_.push(&c);
    }

    // What packet `p` of `c` carries (null: none); over TLS each write is one record.
    const std::string* payload(const Pkt& p, Conn& c, std::string& whole) const {
        const std::string* out = nullptr;
        switch (p.kind) {
        case 1: out = &h0_; break;
        case 2: out = &body_; break;
        case 3: whole = hk_ + body_; out = &whole; break;
        case 4: out = c.keepalive ? &rk_ : &r0_; break;
        case 5: whole = c.tls->client_hello(); out = &whole; break;
        case 6: whole = c.tls->server_flight(); out = &whole; break;
        case 7: whole = c.tls->client_finished(); out = &whole; break;
        }
        if (tls_ && p.kind >= 1 && p.kind <= 4) {  // one SSL_write per write: one record
            whole = c.tls->seal(p.from_client, *out);
            out = &whole;
        }
        return out;
    }

    void write_packet(Conn& c) {
        const Pkt& p = c.pkts[c.next];
        std::string whole;
        const std::string* data = payload(p, c, whole);
        build_frame(pkt_, p, c, tls_ ? 443 : 80, data);
        uint32_t& seq = p.from_client ? c.cseq : c.sseq;
        seq += (data ? uint32_t(data->size()) : 0) + ((p.flags & (kS | kF)) ? 1 : 0);
        uint32_t rec[4] = {uint32_t(c.t / 1'000'000'000), uint32_t(c.t % 1'000'000'000), uint32_t(pkt_.size()),
                           uint32_t(pkt_.size())};
        std::fwrite(rec, sizeof rec, 1, f_);
        std::fwrite(pkt_.data(), 1, pkt_.size(), f_);
        ++st_.packets;
        st_.bytes += sizeof rec + pkt_.size();
    }

    FILE* f_;
    FILE* keys_;
    const bool tls_;
    SyntheticStats& st_;
    std::priority_queue<Conn*, std::vector<Conn*>, Later> q_;
    std::vector<Conn> pool_;
    uint64_t started_ = 0;
    bool sealed_ok_ = true;
    const std::string& body_;
    const std::string hk_, h0_, rk_, r0_;
    std::vector<uint8_t> pkt_;
};

} // namespace

bool write_synthetic_capture(const std::string& path, uint64_t target, SyntheticStats& st, std::string& error,
                             const std::string& tls_keylog, uint64_t connections, size_t envelope_bytes) {
    if (envelope_bytes > kMaxEnvelope) {
        error = "envelopes of at most " + std::to_string(kMaxEnvelope) + " bytes (one segment each)";
        return false;
    }
    const Messages msgs = messages(envelope_bytes);
    FILE* keys = nullptr;
    if (!tls_keylog.empty() && !(keys = std::fopen(tls_keylog.c_str(), "w"))) {
        error = tls_keylog + ": " + std::strerror(errno);
        return false;
    }
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        error = path + ": " + std::strerror(errno);
        if (keys) std::fclose(keys);
        return false;
    }
    std::vector<char> buf(1 << 20);
    std::setvbuf(f, buf.data(), _IOFBF, buf.size());
    SyntheticWriter w(f, keys, msgs, st);
    w.run(target, connections);
    bool ok = std::fclose(f) == 0;
    if (!ok) error = path + ": " + std::strerror(errno);
    if (keys) {
        const bool sealed = w.sealed_ok();
        if (std::fclose(keys) != 0 && ok) { ok = false; error = tls_keylog + ": " + std::strerror(errno); }
        if (!sealed && ok) { ok = false; error = "libcrypto could not seal the synthetic TLS records"; }
    }
    return ok;
}

} // namespace stallscope::cli
