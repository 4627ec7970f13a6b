#include "capture/decode_internal.h"

#include <algorithm>
#include <cstdio>

// IPv4, IPv6 (extension headers, fragments) and TCP.
namespace stallscope::decode {

// ---- TCP -------------------------------------------------------------------

// A malformed option stops parsing but keeps the segment (the rest of the
// header is fine and the segment still matters).
void parse_tcp_options(ByteReader opts, TcpPacket& tcp, std::string& detail) {
    // Each iteration consumes at least one byte, so this ends within 40 steps.
    while (opts.remaining() > 0) {
        uint8_t kind = *opts.u8();
        if (kind == 0) break;     // end of option list
        if (kind == 1) continue;  // NOP
        auto len = opts.u8();
        if (!len || *len < 2 || !opts.has(size_t(*len) - 2)) {
            detail = "bad TCP option length (kind " + std::to_string(kind) + ")";
            return;
        }
        ByteReader body = *opts.sub(size_t(*len) - 2);
        switch (kind) {
        case 2:  // MSS
            if (*len == 4) tcp.mss = *body.be16();
            break;
        case 3:  // window scale; RFC 7323 2.3: values above 14 are used as 14
            if (*len == 3) {
                uint8_t ws = *body.u8();
                if (ws > 14) {
                    detail = "window scale " + std::to_string(ws) + " clamped to 14";
                    ws = 14;
                }
                tcp.wscale = ws;
            }
            break;
        case 4:  // SACK permitted
            if (*len == 2) tcp.sack_permitted = true;
            break;
        default:
            break;
        }
    }
}

namespace {

constexpr uint8_t kProtoTcp = 6;
constexpr int kMaxIpv6ExtHeaders = 16;

// `seg` holds the IP payload as captured; `seg_len_on_wire` is the TCP
// segment length according to the IP header. Fills `r` (which holds the
// addresses) in place: the result is built once per packet, never copied
// from layer to layer.
void decode_tcp(ByteReader seg, uint32_t seg_len_on_wire, DecodeResult& r) {
    const size_t captured = seg.remaining();
    auto sport = seg.be16(), dport = seg.be16();
    auto seq = seg.be32(), ack = seg.be32();
    auto off_flags = seg.be16(), window = seg.be16();
    if (!sport || !dport || !seq || !ack || !off_flags || !window || !seg.skip(4)) {
        r = malformed("truncated TCP header (" + std::to_string(captured) + " of 20 bytes)");
        return;
    }
    const size_t hlen = size_t(*off_flags >> 12) * 4;
    if (hlen < 20) {
        r = malformed("bad TCP data offset " + std::to_string(hlen) + " (< 20)");
        return;
    }
    if (hlen > seg_len_on_wire) {
        r = malformed("TCP header (" + std::to_string(hlen) + " bytes) longer than the segment (" +
                      std::to_string(seg_len_on_wire) + " bytes)");
        return;
    }
    auto opts = seg.sub(hlen - 20);
    if (!opts) {
        r = malformed("truncated TCP options (" + std::to_string(captured) + " of " + std::to_string(hlen) +
                      " header bytes captured)");
        return;
    }

    TcpPacket& t = r.tcp;
    t.src.port = *sport;
    t.dst.port = *dport;
    t.seq = *seq;
    t.ack = *ack;
    t.flags = uint8_t(*off_flags & 0x3f);
    t.window = *window;
    parse_tcp_options(*opts, t, r.detail);
    t.payload_len = seg_len_on_wire - uint32_t(hlen);
    // Captured payload: never more than the IP lengths say (padding excluded).
    t.payload = seg.rest().first(std::min<size_t>(seg.remaining(), t.payload_len));
    r.status = DecodeStatus::Tcp;
}

// What an IP header's protocol / next header leads to, into `r` (which
// holds the addresses). `seg` is the payload as captured, trimmed to `len_on_wire`.
void decode_transport(uint8_t proto, ByteReader seg, uint32_t len_on_wire, DecodeResult& r, Context& c,
                      const char* ip_field) {
    switch (proto) {
    case kProtoTcp: decode_tcp(seg, len_on_wire, r); return;
    case 4:   // IPv4 in IP
    case 41:  // IPv6 in IP (6in4, 6to4, ISATAP)
        r = decode_ip_in_ip(proto, seg, c);
        return;
    case 47: r = decode_gre(seg, c); return;
    case 17: r = decode_udp(seg, c); return;
    case 59: r = not_tcp("IPv6 no next header"); return;
    default: r = not_tcp(std::string(ip_field) + " " + std::to_string(proto)); return;
    }
}

// `r` holds the addresses; `fr` the rest of what the reassembler needs.
void as_fragment(DecodeResult& r, IpFragment fr, std::string detail) {
    fr.src = r.tcp.src.addr;
    fr.dst = r.tcp.dst.addr;
    r.status = DecodeStatus::Fragment;
    r.fragment = fr;
    r.detail = std::move(detail);
}

// Every path of the IP decoders ends in the one result the caller made:
// built once per packet, never copied from layer to layer.
void put(DecodeResult& r, DecodeResult v) { r = std::move(v); }

void decode_ipv4_into(ByteReader ip, Context& c, DecodeResult& r);
void decode_ipv6_into(ByteReader ip, Context& c, DecodeResult& r);

} // namespace

// ---- IP --------------------------------------------------------------------

DecodeResult decode_ipv4(ByteReader ip, Context& c) {
    DecodeResult r;
    decode_ipv4_into(ip, c, r);
    return r;
}

DecodeResult decode_ipv6(ByteReader ip, Context& c) {
    DecodeResult r;
    decode_ipv6_into(ip, c, r);
    return r;
}

namespace {

void decode_ipv4_into(ByteReader ip, Context& c, DecodeResult& r) {
    const size_t captured = ip.remaining();
    auto vihl = ip.u8();
    if (!vihl) return put(r, malformed("truncated IPv4 header (0 of 20 bytes)"));
    if ((*vihl >> 4) != 4) return put(r, malformed("IPv4 header with version " + std::to_string(*vihl >> 4)));
    const size_t ihl = size_t(*vihl & 0x0f) * 4;
    if (ihl < 20) return put(r, malformed("bad IPv4 header length " + std::to_string(ihl) + " (< 20)"));
    ip.skip(1);  // DSCP/ECN
    auto total = ip.be16(), id = ip.be16(), frag = ip.be16();
    auto ttl = ip.u8(), proto = ip.u8();
    bool ok = total && id && frag && ttl && proto && ip.skip(2);
    auto src = ip.bytes(4), dst = ip.bytes(4);
    if (!ok || !src || !dst || !ip.skip(ihl - 20))
        return put(r, malformed("truncated IPv4 header (" + std::to_string(captured) + " of " +
                                std::to_string(ihl) + " bytes)"));

    // Total length 0 is what TSO/GSO captures show: trust the captured length.
    size_t total_len = *total;
    if (total_len == 0) total_len = captured;
    if (total_len < ihl)
        return put(r, malformed("IPv4 total length " + std::to_string(total_len) + " < header length " +
                                std::to_string(ihl)));

    r.tcp.src.addr = IpAddress::v4(src->data());
    r.tcp.dst.addr = IpAddress::v4(dst->data());
    r.tcp.ttl = *ttl;  // a tunnel's inner header overwrites it below

    // Bytes past total length are link padding, not payload.
    const size_t payload_on_wire = total_len - ihl;
    ByteReader seg(ip.rest().first(std::min(ip.remaining(), payload_on_wire)));

    const bool more_fragments = (*frag & 0x2000) != 0;
    const uint16_t frag_offset = *frag & 0x1fff;
    if (more_fragments || frag_offset != 0) {
        as_fragment(r,
                    {.version = 4, .id = *id, .protocol = *proto, .offset = uint32_t(frag_offset) * 8,
                     .more = more_fragments, .len_on_wire = uint32_t(payload_on_wire), .payload = seg.rest(),
                     .depth = c.depth},
                    "IPv4 fragment (id " + hex16(*id) + ", offset " + std::to_string(frag_offset * 8) +
                        (more_fragments ? ", more fragments" : ", last") + ", proto " + std::to_string(*proto) + ")");
        return;
    }
    decode_transport(*proto, seg, uint32_t(payload_on_wire), r, c, "IPv4 protocol");
}

void decode_ipv6_into(ByteReader ip, Context& c, DecodeResult& r) {
    const size_t captured = ip.remaining();
    auto vtc = ip.be32();
    auto plen = ip.be16();
    auto next = ip.u8(), hop_limit = ip.u8();
    bool ok = vtc && plen && next && hop_limit;
    auto src = ip.bytes(16), dst = ip.bytes(16);
    if (!ok || !src || !dst) return put(r, malformed("truncated IPv6 header (" + std::to_string(captured) + " of 40 bytes)"));
    if ((*vtc >> 28) != 6) return put(r, malformed("IPv6 header with version " + std::to_string(*vtc >> 28)));

    r.tcp.src.addr = IpAddress::v6(src->data());
    r.tcp.dst.addr = IpAddress::v6(dst->data());
    r.tcp.ttl = *hop_limit;

    // Payload length 0 means a jumbogram or a TSO capture: use what we have.
    size_t remaining_on_wire = *plen ? *plen : ip.remaining();
    // Work on the part that belongs to the packet (drops link padding).
    ByteReader body(ip.rest().first(std::min(ip.remaining(), remaining_on_wire)));

    uint8_t proto = *next;
    for (int n = 0;; ++n) {
        if (n > kMaxIpv6ExtHeaders) return put(r, malformed("too many IPv6 extension headers"));
        if (proto == 0 || proto == 43 || proto == 60 || proto == 51) {
            // hop-by-hop, routing, destination options: (len+1)*8; AH: (len+2)*4
            auto nh = body.u8(), len = body.u8();
            if (!nh || !len) return put(r, malformed("truncated IPv6 extension header " + std::to_string(proto)));
            size_t ext_len = proto == 51 ? (size_t(*len) + 2) * 4 : (size_t(*len) + 1) * 8;
            if (ext_len > remaining_on_wire)
                return put(r, malformed("IPv6 extension header " + std::to_string(proto) + " longer than the payload"));
            if (!body.skip(ext_len - 2))
                return put(r, malformed("truncated IPv6 extension header " + std::to_string(proto)));
            remaining_on_wire -= ext_len;
            proto = *nh;
            continue;
        }
        if (proto == 44) {  // fragment header
            auto nh = body.u8();
            bool ok2 = nh && body.skip(1);
            auto offflags = body.be16();
            auto ident = body.be32();
            if (!ok2 || !offflags || !ident) return put(r, malformed("truncated IPv6 fragment header"));
            if (remaining_on_wire < 8) return put(r, malformed("IPv6 fragment header longer than the payload"));
            remaining_on_wire -= 8;
            const uint16_t offset = *offflags & 0xfff8;
            const bool more = (*offflags & 1) != 0;
            if (offset == 0 && !more) {
                // RFC 6946 atomic fragment: a whole packet, process as such.
                proto = *nh;
                continue;
            }
            char idbuf[16];
            std::snprintf(idbuf, sizeof idbuf, "0x%08x", *ident);
            as_fragment(r,
                        {.version = 6, .id = *ident, .protocol = *nh, .offset = offset, .more = more,
                         .len_on_wire = uint32_t(remaining_on_wire), .payload = body.rest(), .depth = c.depth},
                        std::string("IPv6 fragment (id ") + idbuf + ", offset " + std::to_string(offset) +
                            (more ? ", more fragments" : ", last") + ", next header " + std::to_string(*nh) + ")");
            return;
        }
        break;
    }
    decode_transport(proto, body, uint32_t(remaining_on_wire), r, c, "IPv6 next header");
}

} // namespace

DecodeResult decode_ip_by_version(ByteReader ip, Context& c) {
    auto first = ip.peek_u8();
    if (!first) return malformed("empty IP packet");
    if ((*first >> 4) == 4) return decode_ipv4(ip, c);
    if ((*first >> 4) == 6) return decode_ipv6(ip, c);
    return malformed("raw IP packet with version " + std::to_string(*first >> 4));
}

} // namespace stallscope::decode
