"""Byte-level builders for hostile test captures (python3 stdlib only).

Packets (Ethernet/VLAN, IPv4/IPv6, TCP with checksums), TCP conversations
with explicit sequence numbers, and the pcap / pcapng container formats,
written with struct so that any field can be made wrong on purpose.
"""
import ipaddress
import struct

T0_NS = 1_704_067_200 * 1_000_000_000  # 2024-01-01T00:00:00Z

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10

LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
LINKTYPE_LINUX_SLL = 113


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip_bytes(addr):
    return ipaddress.ip_address(addr).packed


def tcp_segment(src, dst, sport, dport, seq, ack, flags, payload=b"", window=65535, options=b""):
    """A TCP header + payload with a correct checksum over the pseudo-header."""
    if len(options) % 4:
        options += b"\x00" * (4 - len(options) % 4)
    off = (20 + len(options)) // 4
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, off << 4, flags,
                      window, 0, 0) + options
    s, d = ip_bytes(src), ip_bytes(dst)
    length = len(hdr) + len(payload)
    if len(s) == 4:
        pseudo = s + d + struct.pack("!BBH", 0, 6, length)
    else:
        pseudo = s + d + struct.pack("!IxxxB", length, 6)
    c = csum(pseudo + hdr + payload)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + payload


def ipv4(src, dst, proto, payload, ident=0, frag=0x4000, total_len=None, ttl=64):
    tl = 20 + len(payload) if total_len is None else total_len
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tl, ident & 0xFFFF, frag, ttl, proto, 0, ip_bytes(src),
                      ip_bytes(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def ipv6(src, dst, next_header, payload, ext=b""):
    return struct.pack("!IHBB16s16s", 6 << 28, len(ext) + len(payload), next_header, 64, ip_bytes(src),
                       ip_bytes(dst)) + ext + payload


def ethernet(l3, ethertype, vlans=()):
    out = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01"
    tpids = [0x88A8] * (len(vlans) - 1) + [0x8100] if vlans else []
    for tpid, vid in zip(tpids, vlans):
        out += struct.pack("!HH", tpid, vid & 0x0FFF)
    return out + struct.pack("!H", ethertype) + l3


# ---- encapsulations (a capture point outside a tunnel sees these)

def udp(sport, dport, payload):
    """A UDP header (checksum 0: optional over IPv4, not checked by readers we test)."""
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def gre(proto, payload, checksum=False, key=None, seq=None):
    flags = (0x8000 if checksum else 0) | (0x2000 if key is not None else 0) | (0x1000 if seq is not None else 0)
    out = struct.pack("!HH", flags, proto)
    if checksum:
        out += struct.pack("!HH", 0, 0)
    if key is not None:
        out += struct.pack("!I", key)
    if seq is not None:
        out += struct.pack("!I", seq)
    out += payload
    if checksum:
        out = out[:4] + struct.pack("!H", csum(out)) + out[6:]
    return out


def vxlan(vni, inner_frame):
    return struct.pack("!II", 0x08000000, vni << 8) + inner_frame


def geneve(vni, inner_frame, options=b""):
    """Geneve (RFC 8926) carrying an Ethernet frame; options padded to 4 bytes."""
    options += b"\0" * ((4 - len(options) % 4) % 4)
    return struct.pack("!BBHI", len(options) // 4, 0, 0x6558, vni << 8) + options + inner_frame


def teredo(ipv6_packet, origin=None):
    """Teredo (RFC 4380): an optional origin indication, then the IPv6 packet."""
    pre = b""
    if origin is not None:
        port, addr = origin
        pre = struct.pack("!HH4s", 0, port ^ 0xFFFF, bytes(b ^ 0xFF for b in ip_bytes(addr)))
    return pre + ipv6_packet


def mpls(labels, payload):
    out = b""
    for i, label in enumerate(labels):
        out += struct.pack("!I", (label << 12) | (0x100 if i == len(labels) - 1 else 0) | 64)
    return out + payload


def pppoe_session(l3, v6, session=0x2a):
    ppp = struct.pack("!H", 0x0057 if v6 else 0x0021) + l3
    return struct.pack("!BBHH", 0x11, 0, session, len(ppp)) + ppp


def nflog(l3, v6, big_endian=False):
    """A LINKTYPE_NFLOG record: header, then TLVs in the capturing host's byte order."""
    order = ">" if big_endian else "<"
    out = struct.pack("!BBH", 10 if v6 else 2, 0, 42)

    def tlv(kind, value):
        body = struct.pack(order + "HH", 4 + len(value), kind) + value
        return body + b"\0" * ((4 - len(body) % 4) % 4)
    out += tlv(1, struct.pack("!HBB", 0x86DD if v6 else 0x0800, 3, 0))  # NFULA_PACKET_HDR
    out += tlv(10, b"http\0")                                            # NFULA_PREFIX
    out += tlv(9, l3)                                                     # NFULA_PAYLOAD
    return out


def _fragments(payload, sizes, build):
    """Cuts payload after the given sizes (multiples of 8); build(part, offset, more) makes each packet."""
    out, off = [], 0
    for n in list(sizes) + [len(payload)]:
        part = payload[off:off + n]
        more = off + len(part) < len(payload)
        out.append(build(part, off, more))
        off += len(part)
        if not more:
            break
    return out


def ipv4_fragments(src, dst, proto, payload, ident, sizes):
    """The IPv4 fragments of one datagram."""
    return _fragments(payload, sizes, lambda part, off, more: ipv4(
        src, dst, proto, part, ident=ident, frag=(0x2000 if more else 0) | (off // 8)))


def ipv6_fragments(src, dst, next_header, payload, ident, sizes):
    """The IPv6 fragments of one datagram (a Fragment header in each)."""
    return _fragments(payload, sizes, lambda part, off, more: ipv6(
        src, dst, 44, part, ext=struct.pack("!BBHI", next_header, 0, off | int(more), ident)))


class Capture:
    """Frames in capture order: (ts_ns, bytes, origlen). `encap(l3, v6)`, when
    given, builds each frame around the IP packet (a tunnel, NFLOG, PPPoE)."""

    def __init__(self, link="eth", vlans=(), t0=T0_NS, encap=None):
        self.link = link
        self.vlans = vlans
        self.t = t0
        self.frames = []
        self.ident = 1
        self.encap = encap

    def wrap(self, l3, v6):
        if self.encap:
            return self.encap(l3, v6)
        if self.link == "raw":
            return l3
        return ethernet(l3, 0x86DD if v6 else 0x0800, self.vlans)

    def add(self, data, dt_ns=100_000, origlen=None):
        self.t += dt_ns
        self.frames.append((self.t, data, len(data) if origlen is None else origlen))


class Flow:
    """One TCP connection; tracks both sides' next sequence numbers."""

    def __init__(self, cap, client=("10.0.0.1", 40001), server=("10.0.0.2", 80), isn_c=1000, isn_s=500000):
        self.cap = cap
        self.client, self.server = client, server
        self.v6 = ":" in client[0]
        self.nxt = {True: isn_c & 0xFFFFFFFF, False: isn_s & 0xFFFFFFFF}  # True = client side

    def ip_packet(self, from_client, tcp_bytes):
        src, dst = (self.client, self.server) if from_client else (self.server, self.client)
        if self.v6:
            return ipv6(src[0], dst[0], 6, tcp_bytes)
        self.cap.ident += 1
        return ipv4(src[0], dst[0], 6, tcp_bytes, ident=self.cap.ident)

    def tcp_bytes(self, from_client, flags, data=b"", seq=None, ack=None, options=b""):
        src, dst = (self.client, self.server) if from_client else (self.server, self.client)
        seq = self.nxt[from_client] if seq is None else seq
        ack = self.nxt[not from_client] if ack is None else ack
        return tcp_segment(src[0], dst[0], src[1], dst[1], seq, ack, flags, data, options=options)

    def seg(self, from_client, flags, data=b"", seq=None, ack=None, dt_ns=100_000, advance=True, options=b""):
        explicit = seq is not None
        t = self.tcp_bytes(from_client, flags, data, seq, ack, options)
        self.cap.add(self.cap.wrap(self.ip_packet(from_client, t), self.v6), dt_ns)
        if advance and not explicit:
            self.nxt[from_client] = (self.nxt[from_client] + len(data) + (1 if flags & (SYN | FIN) else 0)) & 0xFFFFFFFF

    def handshake(self):
        mss = b"\x02\x04\x05\xb4"
        self.seg(True, SYN, options=mss)
        self.seg(False, SYN | ACK, options=mss)
        self.seg(True, ACK)

    def send(self, from_client, data, mss=1460, dt_ns=100_000):
        for i in range(0, len(data), mss):
            self.seg(from_client, PSH | ACK, data[i:i + mss], dt_ns=dt_ns)

    def send_losing(self, from_client, data, lost_at, size=1000):
        """Sends `data` in `size`-byte segments; the one at offset `lost_at` is never captured."""
        base = self.nxt[from_client]
        for i in range(0, len(data), size):
            if i != lost_at:
                self.seg(from_client, PSH | ACK, data[i:i + size], seq=base + i)
        self.nxt[from_client] = (base + len(data)) & 0xFFFFFFFF

    def ack(self, from_client, dt_ns=50_000):
        self.seg(from_client, ACK, dt_ns=dt_ns)

    def call(self, req, resp, mss=1460, server_ns=2_000_000):
        self.send(True, req, mss)
        self.ack(False)
        self.send(False, resp, mss, dt_ns=server_ns)
        self.ack(True)

    def close(self):
        self.seg(True, FIN | ACK)
        self.seg(False, FIN | ACK)
        self.seg(True, ACK)


# ---- HTTP / SOAP payloads

def envelope(op="GetQuote", inner="<symbol>IBM</symbol>", prolog='<?xml version="1.0" encoding="utf-8"?>\n'):
    return (prolog + '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
            '<m:%s xmlns:m="urn:example">%s</m:%s></soap:Body></soap:Envelope>' % (op, inner, op)).encode()


def request(body=None, extra=(), method=b"POST", uri=b"/quote", length=True):
    body = envelope() if body is None else body
    lines = [method + b" " + uri + b" HTTP/1.1", b"Host: 10.0.0.2", b"Content-Type: text/xml; charset=utf-8",
             b'SOAPAction: "urn:example#GetQuote"']
    if length:
        lines.append(b"Content-Length: %d" % len(body))
    lines += list(extra)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def response(body=None, extra=(), status=b"200 OK", length=True):
    body = envelope("GetQuoteResponse", "<price>42</price>") if body is None else body
    lines = [b"HTTP/1.1 " + status, b"Server: hostile-gen", b"Content-Type: text/xml; charset=utf-8"]
    if length:
        lines.append(b"Content-Length: %d" % len(body))
    lines += list(extra)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


# ---- pcap

def pcap_header(linktype=LINKTYPE_ETHERNET, snaplen=262144, ns=False, endian="<"):
    magic = 0xA1B23C4D if ns else 0xA1B2C3D4
    return struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)


def pcap_record(ts_ns, data, origlen=None, ns=False, endian="<", caplen=None):
    sec, frac = divmod(ts_ns, 1_000_000_000)
    if not ns:
        frac //= 1000
    caplen = len(data) if caplen is None else caplen
    origlen = len(data) if origlen is None else origlen
    return struct.pack(endian + "IIII", sec, frac, caplen, origlen) + data


def pcap_bytes(cap, linktype=None, snaplen=262144, ns=False, endian="<"):
    lt = linktype if linktype is not None else (LINKTYPE_RAW if cap.link == "raw" else LINKTYPE_ETHERNET)
    out = [pcap_header(lt, snaplen, ns, endian)]
    for ts, data, orig in cap.frames:
        out.append(pcap_record(ts, data, orig, ns, endian))
    return b"".join(out)


# ---- pcapng

def ng_block(btype, body, endian="<"):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    n = len(body) + 12
    return struct.pack(endian + "II", btype, n) + body + struct.pack(endian + "I", n)


def ng_shb(endian="<"):
    return ng_block(0x0A0D0D0A, struct.pack(endian + "IHHq", 0x1A2B3C4D, 1, 0, -1), endian)


def ng_idb(linktype, snaplen=262144, endian="<", options=b""):
    return ng_block(1, struct.pack(endian + "HHI", linktype, 0, snaplen) + options, endian)


def ng_epb(iface, ts_ns, data, endian="<", origlen=None):
    us = ts_ns // 1000
    return ng_block(6, struct.pack(endian + "IIIII", iface, us >> 32, us & 0xFFFFFFFF, len(data),
                                   len(data) if origlen is None else origlen) + data, endian)


def ng_spb(data, endian="<", origlen=None):
    """A Simple Packet Block: interface 0, no timestamp."""
    return ng_block(3, struct.pack(endian + "I", len(data) if origlen is None else origlen) + data, endian)
