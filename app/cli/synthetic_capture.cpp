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

} // namespace

bool write_synthetic_capture(const std::string& path, uint64_t target, SyntheticStats& st, std::string& error,
                             const std::string& tls_keylog, uint64_t connections, size_t envelope_bytes) {
    if (envelope_bytes > kMaxEnvelope) {
        error = "envelopes of at most " + std::to_string(kMaxEnvelope) + " bytes (one segment each)";
        return false;
    }
    const Messages msgs = messages(envelope_bytes);
    const bool tls = !tls_keylog.empty();
    FILE* keys = nullptr;
    if (tls && !(keys = std::fopen(tls_keylog.c_str(), "w"))) { error = tls_keylog + ": " + std::strerror(errno); return false; }
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        error = path + ": " + std::strerror(errno);
        if (keys) std::fclose(keys);
        return false;
    }
    bool sealed_ok = true;
    std::vector<char> buf(1 << 20);
    std::setvbuf(f, buf.data(), _IOFBF, buf.size());
    // Classic pcap, nanosecond magic, Ethernet.
    uint32_t hdr[6] = {0xa1b23c4d, 0x00040002, 0, 0, 262144, 1};
    std::fwrite(hdr, sizeof hdr, 1, f);

    std::priority_queue<Conn*, std::vector<Conn*>, Later> q;
    std::vector<Conn> pool(kConcurrent);
    uint64_t started = 0;
    int64_t now = 1'700'000'000LL * 1'000'000'000LL;
    auto start = [&](Conn& c, int64_t t) {
        c.keepalive = started % 3 != 2;  // two keep-alive connections for each HTTP/1.0 one
        c.pkts = script(c.keepalive, c.keepalive ? 10 : 1, tls);
        if (tls) {
            if (c.tls) sealed_ok = sealed_ok && c.tls->ok();  // the previous connection on this slot
            c.tls = std::make_unique<SyntheticTls>(started);
            std::fputs(c.tls->keylog_lines().c_str(), keys);
        }
        c.next = 0;
        c.t = t;
        c.client_ip = 0xC0000200u | uint32_t(1 + started % 200);  // 192.0.2.x (documentation range)
        c.server_ip = 0xC6336401u;                                 // 198.51.100.1
        c.cport = uint16_t(1024 + started % 60000);
        c.cseq = uint32_t(started * 7919u);
        c.sseq = uint32_t(started * 104729u);
        c.order = started++;
        ++st.connections;
        st.calls += c.keepalive ? 10 : 1;
        q.push(&c);
    };
    for (int i = 0; i < kConcurrent && (!connections || started < connections); ++i)
        start(pool[size_t(i)], now + i * 37 * kUs);

    const std::string hk = msgs.request_head(true), h0 = msgs.request_head(false), rk = msgs.response(true),
                      r0 = msgs.response(false);
    const std::string& body = msgs.request_body;
    std::vector<uint8_t> pkt;
    while (!q.empty()) {
        Conn* c = q.top();
        q.pop();
        const Pkt& p = c->pkts[c->next];
        const std::string* payload = nullptr;
        std::string whole;
        switch (p.kind) {
        case 1: payload = &h0; break;
        case 2: payload = &body; break;
        case 3: whole = hk + body; payload = &whole; break;
        case 4: payload = c->keepalive ? &rk : &r0; break;
        case 5: whole = c->tls->client_hello(); payload = &whole; break;
        case 6: whole = c->tls->server_flight(); payload = &whole; break;
        case 7: whole = c->tls->client_finished(); payload = &whole; break;
        }
        if (tls && p.kind >= 1 && p.kind <= 4) {  // one SSL_write per write: one record
            whole = c->tls->seal(p.from_client, *payload);
            payload = &whole;
        }
        const uint16_t server_port = tls ? 443 : 80;
        uint32_t len = payload ? uint32_t(payload->size()) : 0;
        pkt.clear();
        // Ethernet
        for (int i = 0; i < 12; ++i) pkt.push_back(uint8_t(i));
        put16(pkt, 0x0800);
        // IPv4
        put16(pkt, 0x4500);
        put16(pkt, uint16_t(20 + 20 + len));
        put32(pkt, 0);
        put16(pkt, 0x4006);
        put16(pkt, 0);
        put32(pkt, p.from_client ? c->client_ip : c->server_ip);
        put32(pkt, p.from_client ? c->server_ip : c->client_ip);
        // TCP
        put16(pkt, p.from_client ? c->cport : server_port);
        put16(pkt, p.from_client ? server_port : c->cport);
        put32(pkt, p.from_client ? c->cseq : c->sseq);
        put32(pkt, (p.flags & kA) ? (p.from_client ? c->sseq : c->cseq) : 0);
        put16(pkt, uint16_t(0x5000 | p.flags));
        put16(pkt, 65535);
        put32(pkt, 0);
        if (payload) pkt.insert(pkt.end(), payload->begin(), payload->end());
        uint32_t& seq = p.from_client ? c->cseq : c->sseq;
        seq += len + ((p.flags & (kS | kF)) ? 1 : 0);

        uint32_t rec[4] = {uint32_t(c->t / 1'000'000'000), uint32_t(c->t % 1'000'000'000), uint32_t(pkt.size()),
                           uint32_t(pkt.size())};
        std::fwrite(rec, sizeof rec, 1, f);
        std::fwrite(pkt.data(), 1, pkt.size(), f);
        ++st.packets;
        st.bytes += sizeof rec + pkt.size();

        if (++c->next < c->pkts.size()) {
            c->t += c->pkts[c->next].delay;
            q.push(c);
        } else if (connections ? started < connections : st.packets < target) {
            start(*c, c->t + 50 * kUs);
        }
    }
    bool ok = std::fclose(f) == 0;
    if (!ok) error = path + ": " + std::strerror(errno);
    if (keys) {
        for (Conn& c : pool) sealed_ok = sealed_ok && (!c.tls || c.tls->ok());
        if (std::fclose(keys) != 0 && ok) { ok = false; error = tls_keylog + ": " + std::strerror(errno); }
        if (!sealed_ok && ok) { ok = false; error = "libcrypto could not seal the synthetic TLS records"; }
    }
    return ok;
}

} // namespace stallscope::cli
