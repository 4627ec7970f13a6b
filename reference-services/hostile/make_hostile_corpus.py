#!/usr/bin/env python3
"""Writes the hostile capture corpus (testdata/hostile/) and expectations.json.

Every case is a small file plus what a correct tool must do with it:
  exit      0 = analysed (warnings allowed), 1 = not a capture (one error line)
  stderr    substrings that must appear on stderr (file name, "offset", ...)
  warnings  substrings that must each appear in some JSON capture.warnings message
  checks    [json-path, op, value]: "calls.#" is a length, "calls.0.complete" a field
  absent    substrings that must never appear in the JSON output
Rules for every file (no crash, no hang, bounded memory, no file other than
the input opened, no socket) are enforced by testdata/hostile/run_corpus.py.

  make_hostile_corpus.py [OUTDIR]            the committed corpus (small files)
  make_hostile_corpus.py --caps OUTDIR       cap-hitting captures (tens of MB;
                                             generated at test time, not committed)
python3 stdlib only; deterministic output.
"""
import argparse
import gzip
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapgen import (ACK, FIN, PSH, RST, SYN, LINKTYPE_ETHERNET, LINKTYPE_RAW, Capture, Flow, envelope, ethernet,
                     geneve, gre, ipv4, ipv4_fragments, ipv6, ipv6_fragments, mpls, ng_block, ng_epb, ng_idb, ng_shb,
                     ng_spb, nflog, pcap_bytes, pcap_header, pcap_record, pppoe_session, request, response, tcp_segment,
                     teredo, udp, vxlan)

CASES = {}
CAP_CASES = {}


def case(name, registry=None):
    def register(fn):
        (CASES if registry is None else registry)[name] = fn
        return fn
    return register


def expect(exit=0, stderr=(), warnings=(), checks=(), absent=(), what=""):
    return {"what": what, "exit": exit, "stderr": list(stderr), "warnings": list(warnings),
            "checks": [list(c) for c in checks], "absent": list(absent)}


def one_call(cap=None, req=None, resp=None, close=True, **flow_args):
    cap = cap or Capture()
    f = Flow(cap, **flow_args)
    f.handshake()
    f.call(request() if req is None else req, response() if resp is None else resp)
    if close:
        f.close()
    return cap, f


def request_sent(cap=None):
    """A handshake, then a request the server ACKs; the response is the case's."""
    cap = cap or Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, request())
    f.ack(False)
    return cap, f


def good_pcap(**kw):
    cap, _ = one_call()
    return pcap_bytes(cap, **kw)


ANALYSED_ONE = [["calls.#", ">=", 1], ["calls.0.complete", "==", True]]

# ---------------------------------------------------------------- file level


@case("empty.pcap")
def _():
    return b"", expect(1, ["empty.pcap", "offset 0"], what="0 bytes")


@case("short-3-bytes.pcap")
def _():
    return b"\xd4\xc3\xb2", expect(1, ["short-3-bytes.pcap", "offset"], what="shorter than any magic")


@case("wrong-magic.pcap")
def _():
    return b"GIF89a" + b"\0" * 64, expect(1, ["wrong-magic.pcap", "magic", "offset 0"], what="a GIF, not a capture")


@case("truncated-file-header.pcap")
def _():
    return pcap_header()[:12], expect(1, ["truncated-file-header.pcap", "offset"], what="12 of 24 header bytes")


@case("truncated-record-header.pcap")
def _():
    data = good_pcap()
    return data + pcap_record(0, b"x" * 40)[:9], expect(
        0, ["truncated-record-header.pcap", "offset"], ["truncated"],
        ANALYSED_ONE + [["capture.truncated", "==", True]], what="a full call, then 9 bytes of a record header")


@case("truncated-record-body.pcap")
def _():
    data = good_pcap()
    cut = len(data) - 30
    return data[:cut], expect(0, ["truncated-record-body.pcap", "offset"], ["truncated"],
                              [["capture.truncated", "==", True], ["calls.#", ">=", 1]],
                              what="the last record cut 30 bytes short")


@case("absurd-record-length.pcap")
def _():
    data = good_pcap()
    return data + struct.pack("<IIII", 1704067300, 0, 0xFFFFFFF0, 0xFFFFFFF0) + b"\0" * 64, expect(
        0, ["absurd-record-length.pcap", "offset"], ["length"],
        ANALYSED_ONE + [["capture.truncated", "==", True]], what="caplen 0xfffffff0 after a good call")


@case("absurd-first-record.pcap")
def _():
    return pcap_header() + struct.pack("<IIII", 1704067300, 0, 0x7FFFFFFF, 60) + b"\0" * 64, expect(
        0, ["absurd-first-record.pcap", "offset 24"], ["length"], [["capture.packets", "==", 0]],
        what="valid file header, first record claims 2 GiB")


@case("caplen-over-snaplen.pcap")
def _():
    cap, _ = one_call()
    return pcap_bytes(cap, snaplen=64), expect(0, [], [], [["capture.packets", ">=", 1]],
                                               what="snaplen 64 in the header, records up to 1500 bytes")


@case("zero-length-records.pcap")
def _():
    cap, _ = one_call()
    out = [pcap_header()]
    for ts, data, orig in cap.frames:
        out.append(pcap_record(ts, b""))
        out.append(pcap_record(ts, data, orig))
    return b"".join(out), expect(0, ["zero-length-records.pcap"], ["frame 1"], ANALYSED_ONE,
                                 what="an empty record before every real one")


@case("timestamps-backwards.pcap")
def _():
    cap, _ = one_call()
    ts, data, orig = cap.frames[5]
    cap.frames[5] = (ts - 3_600_000_000_000, data, orig)
    return pcap_bytes(cap), expect(0, ["timestamps-backwards.pcap", "frame 6"], ["backwards"], [["calls.#", ">=", 1]],
                                   what="frame 6 is an hour older than frame 5")


@case("nanosecond.pcap")
def _():
    return good_pcap(ns=True), expect(0, [], [], ANALYSED_ONE + [["capture.format", "==", "pcap-ns"]],
                                      what="nanosecond magic 0xa1b23c4d")


@case("big-endian.pcap")
def _():
    return good_pcap(endian=">"), expect(0, [], [], ANALYSED_ONE, what="big-endian pcap")


@case("big-endian-nanosecond.pcap")
def _():
    return good_pcap(endian=">", ns=True), expect(0, [], [], ANALYSED_ONE, what="big-endian nanosecond pcap")


@case("unknown-linktype.pcap")
def _():
    return good_pcap(linktype=147), expect(1, ["unknown-linktype.pcap", "none of its 10 frames could be decoded",
                                               "LINKTYPE_147"], [], [],
                                           what="LINKTYPE_USER0 (147) only: nothing decoded, exit 1 naming the file")


# ---------------------------------------------------------------- pcapng


def ng_frames(cap, iface, endian="<"):
    return b"".join(ng_epb(iface, ts, data, endian, orig) for ts, data, orig in cap.frames)


@case("pcapng-multi-interface.pcapng")
def _():
    eth, _ = one_call()
    raw, _ = one_call(Capture(link="raw"), client=("10.1.0.1", 40002), server=("10.1.0.2", 80))
    unknown, _ = one_call(client=("10.2.0.1", 40003), server=("10.2.0.2", 80))
    data = (ng_shb() + ng_idb(LINKTYPE_ETHERNET) + ng_idb(LINKTYPE_RAW) + ng_idb(147) + ng_frames(eth, 0)
            + ng_frames(raw, 1) + ng_frames(unknown, 2))
    return data, expect(0, ["unsupported link type"], ["unsupported link type"],
                        [["calls.#", "==", 2], ["calls.0.complete", "==", True], ["calls.1.complete", "==", True],
                         ["capture.link_types.#", "==", 3]],
                        what="three interfaces: Ethernet, raw IP, USER0; one call on each")


@case("pcapng-zero-length-block.pcapng")
def _():
    cap, _ = one_call()
    data = ng_shb() + ng_idb(LINKTYPE_ETHERNET) + ng_frames(cap, 0)
    return data + struct.pack("<II", 6, 0) + b"\0" * 32, expect(
        0, ["pcapng-zero-length-block.pcapng", "zero-length block", "offset %d" % len(data)], ["zero-length"],
        ANALYSED_ONE + [["capture.truncated", "==", True]], what="a block of length 0 after a good call")


@case("pcapng-big-endian.pcapng")
def _():
    cap, _ = one_call()
    return ng_shb(">") + ng_idb(LINKTYPE_ETHERNET, endian=">") + ng_frames(cap, 0, ">"), expect(
        0, [], [], ANALYSED_ONE, what="big-endian section")


@case("pcapng-undefined-interface.pcapng")
def _():
    cap, _ = one_call()
    data = ng_shb() + ng_idb(LINKTYPE_ETHERNET) + ng_frames(cap, 0)
    return data + ng_epb(7, cap.frames[-1][0], cap.frames[-1][1]), expect(
        0, ["pcapng-undefined-interface.pcapng", "offset %d" % len(data)], ["interface 7"], ANALYSED_ONE,
        what="a packet for interface 7 of 1")


@case("pcapng-absurd-block-length.pcapng")
def _():
    cap, _ = one_call()
    data = ng_shb() + ng_idb(LINKTYPE_ETHERNET) + ng_frames(cap, 0)
    return data + struct.pack("<II", 6, 0xFFFFFFF0) + b"\0" * 32, expect(
        0, ["pcapng-absurd-block-length.pcapng", "offset"], ["block length"], ANALYSED_ONE,
        what="block length 0xfffffff0")


@case("pcapng-truncated-shb.pcapng")
def _():
    return ng_shb()[:20], expect(1, ["pcapng-truncated-shb.pcapng", "offset 0"], what="20 bytes of a section header")


# ---------------------------------------------------------------- link / IP


@case("vlan-qinq.pcap")
def _():
    cap, _ = one_call(Capture(vlans=(100,)))
    cap2, _ = one_call(Capture(vlans=(10, 20, 30), t0=cap.t), client=("10.0.0.3", 40005))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 2], ["calls.1.complete", "==", True]],
                                   what="an 802.1Q call and a triple-tagged QinQ call")


@case("vlan-tag-bomb.pcap")
def _():
    cap = Capture()
    l3 = ipv4("10.0.0.1", "10.0.0.2", 6, tcp_segment("10.0.0.1", "10.0.0.2", 1, 80, 0, 0, SYN))
    frame = b"\x02" * 12 + struct.pack("!HH", 0x8100, 1) * 2000 + struct.pack("!H", 0x0800) + l3
    for _ in range(3):
        cap.add(frame)
    cap2, _ = one_call(Capture(t0=cap.t))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, ["vlan-tag-bomb.pcap"], ["VLAN"],
                                   ANALYSED_ONE + [["capture.undecodable_packets", "==", 3]],
                                   what="2000 stacked 802.1Q tags (3 frames), then a good call")


@case("ipv6.pcap")
def _():
    cap, _ = one_call(client=("2001:db8::1", 40001), server=("2001:db8::2", 80))
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["connections.0.server", "contains", "2001:db8::2"]],
                                   what="the whole call over IPv6")


def request_segment(cap, req, **flow_args):
    """A connection after its handshake, and the TCP bytes of its request (not yet in the capture)."""
    f = Flow(cap, **flow_args)
    f.handshake()
    seg = f.tcp_bytes(True, PSH | ACK, req)
    f.nxt[True] += len(req)
    return f, seg


def answer_and_close(f):
    f.ack(False)
    f.send(False, response())
    f.close()


@case("ip-fragments.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req = request()
    seg = f.tcp_bytes(True, PSH | ACK, req)
    f.nxt[True] += len(req)
    half = (len(seg) // 2) & ~7
    cap.ident += 1
    for off, part, more in ((0, seg[:half], 0x2000), (half, seg[half:], 0)):
        cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, part, ident=cap.ident, frag=more | (off // 8),
                              total_len=20 + len(part)), 0x0800))
    # An IPv6 fragment header (next header 44) around a TCP segment: the
    # first fragment of a datagram whose other fragments never come.
    v6 = tcp_segment("2001:db8::1", "2001:db8::2", 40009, 80, 7, 0, SYN)
    cap.add(ethernet(ipv6("2001:db8::1", "2001:db8::2", 44, v6, ext=struct.pack("!BBHI", 6, 0, 1, 0xBEEF)), 0x86DD))
    f.ack(False)
    f.send(False, response())
    f.close()
    return pcap_bytes(cap), expect(0, ["ip-fragments.pcap", "frame 6"], ["frame 6: IPv6 datagram", "never completed"],
                                   ANALYSED_ONE + [["calls.#", "==", 1], ["capture.undecodable_packets", "==", 1]],
                                   what="the request in two IPv4 fragments (reassembled); an IPv6 fragment whose "
                                        "datagram never completes (warned)")


@case("ipv6-fragments.pcap")
def _():
    cap = Capture()
    f, seg = request_segment(cap, request(envelope(inner="<x>%s</x>" % ("a" * 3000))),
                             client=("2001:db8::1", 40001), server=("2001:db8::2", 80))
    frags = ipv6_fragments("2001:db8::1", "2001:db8::2", 6, seg, 0x1234, [1232, 1232])
    for frag in reversed(frags):  # last fragment first
        cap.add(ethernet(frag, 0x86DD))
    answer_and_close(f)
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["calls.#", "==", 1],
                                                             ["capture.undecodable_packets", "==", 0],
                                                             ["calls.0.request.body_bytes", ">=", 3000]],
                                   what="a 3 kB request in three IPv6 fragments, last one captured first")


@case("ip-fragment-overlap.pcap")
def _():
    cap = Capture()
    f, seg = request_segment(cap, request(uri=b"/quote"))
    # Fragment 2 (offset 24) arrives twice: first the real bytes, then a copy
    # that rewrites the request line's URI ("/quote" -> "/evil!"); the first wins.
    forged = seg[:20] + seg[20:].replace(b"/quote", b"/evil!", 1)
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, seg[24:48], ident=77, frag=0x2000 | 3), 0x0800))
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, forged[24:48], ident=77, frag=0x2000 | 3), 0x0800))
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, seg[0:24], ident=77, frag=0x2000), 0x0800))
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, seg[48:], ident=77, frag=48 // 8), 0x0800))
    answer_and_close(f)
    return pcap_bytes(cap), expect(0, ["frame 5"], ["frame 5: IP fragment overlaps", "first copy is kept"],
                                   ANALYSED_ONE + [["calls.0.uri", "==", "/quote"]], absent=["/evil!"],
                                   what="an overlapping IPv4 fragment with different bytes: the first copy wins")


@case("ip-fragment-timeout.pcap")
def _():
    cap = Capture()
    f, seg = request_segment(cap, request())
    # The first fragment only; 40 s later the sender retransmits the segment
    # unfragmented (as after a path MTU change).
    cap.add(ethernet(ipv4_fragments("10.0.0.1", "10.0.0.2", 6, seg, 99, [64])[0], 0x0800))
    f.seg(True, PSH | ACK, request(), seq=f.nxt[True] - len(request()), dt_ns=40_000_000_000)
    answer_and_close(f)
    return pcap_bytes(cap), expect(0, ["frame 4"], ["frame 4: IPv4 datagram", "no fragment for 30 s"],
                                   ANALYSED_ONE + [["capture.undecodable_packets", "==", 1]],
                                   what="a fragment whose datagram times out (30 s of capture time)")


@case("ip-fragment-flood.pcap")
def _():
    cap = Capture()
    # 4200 first fragments of datagrams that never complete: over the cap of
    # 4096 datagrams in flight. Then a call whose request is fragmented: still
    # reassembled (the oldest incomplete datagrams made room).
    for i in range(4200):
        cap.add(ethernet(ipv4("10.9.0.1", "10.9.0.2", 6, b"\0" * 8, ident=i, frag=0x2000), 0x0800), dt_ns=1000)
    f, seg = request_segment(cap, request())
    for frag in ipv4_fragments("10.0.0.1", "10.0.0.2", 6, seg, 50000, [256]):
        cap.add(ethernet(frag, 0x0800))
    answer_and_close(f)
    return pcap_bytes(cap), expect(0, ["frame 4097"], ["frame 4097: IP fragment reassembly cap (4096 datagrams",
                                                       "incomplete IP datagram(s) dropped in all",
                                                       "more incomplete IP datagram(s) at the end"],
                                   ANALYSED_ONE + [["calls.#", "==", 1], ["capture.undecodable_packets", "==", 4200]],
                                   what="4200 incomplete datagrams: over the reassembly cap (4096 in flight)")


# ---------------------------------------------------------------- encapsulations
# Each a call inside what a capture point in front of it sees; the tunnel end
# points (192.0.2.x) must never show up as a connection's address.

OUTER_A, OUTER_B = "192.0.2.1", "192.0.2.2"


def tunnel_case(encap, what, linktype=None, client=("10.0.0.1", 40001), server=("10.0.0.2", 80), warnings=()):
    cap, _ = one_call(Capture(encap=encap), client=client, server=server)
    return pcap_bytes(cap, linktype=linktype), expect(
        0, [], list(warnings),
        ANALYSED_ONE + [["calls.#", "==", 1], ["capture.undecodable_packets", "==", 0],
                        ["connections.0.client", "contains", client[0]]],
        absent=["192.0.2."], what=what)


def over_ipv4(proto, payload):
    return ethernet(ipv4(OUTER_A, OUTER_B, proto, payload), 0x0800)


@case("nflog.pcap")
def _():
    return tunnel_case(lambda l3, v6: nflog(l3, v6), "LINKTYPE_NFLOG (239): TLVs, the packet in NFULA_PAYLOAD",
                       linktype=239)


@case("pppoe.pcap")
def _():
    # Short frames get Ethernet padding after the PPPoE payload.
    def encap(l3, v6):
        frame = ethernet(pppoe_session(l3, v6), 0x8864)
        return frame + b"\xee" * max(0, 60 - len(frame))
    return tunnel_case(encap, "a PPPoE session (0x8864, PPP IPv4), padded short frames")


@case("gre.pcap")
def _():
    seq = [0]

    def encap(l3, v6):
        seq[0] += 1
        return over_ipv4(47, gre(0x86DD if v6 else 0x0800, l3, checksum=True, key=7, seq=seq[0]))
    return tunnel_case(encap, "GRE with checksum, key and sequence number over IPv4")


@case("gre-ethernet.pcap")
def _():
    return tunnel_case(lambda l3, v6: over_ipv4(47, gre(0x6558, ethernet(l3, 0x86DD if v6 else 0x0800), key=5000)),
                       "GRE transparent Ethernet bridging (0x6558, NVGRE-like)")


@case("vxlan.pcap")
def _():
    return tunnel_case(lambda l3, v6: over_ipv4(17, udp(49152, 4789, vxlan(42, ethernet(l3, 0x0800, (7,))))),
                       "VXLAN (UDP 4789), inner Ethernet with a VLAN tag")


@case("geneve.pcap")
def _():
    opt = struct.pack("!HBB", 0x0104, 0x01, 1) + b"\xde\xad\xbe\xef"  # one 8-byte option (class, type, length)
    return tunnel_case(lambda l3, v6: over_ipv4(17, udp(49153, 6081, geneve(9, ethernet(l3, 0x0800), opt))),
                       "Geneve (UDP 6081) with an option, inner Ethernet")


@case("teredo.pcap")
def _():
    sent = [0]

    def encap(l3, v6):
        sent[0] += 1
        origin = (3544, "198.51.100.7") if sent[0] == 2 else None  # the server's first packet has one
        return over_ipv4(17, udp(3544, 61000, teredo(l3, origin)))
    return tunnel_case(encap, "Teredo (IPv6 in UDP 3544), one packet with an origin indication header",
                       client=("2001:0:4136:e378::1", 40001), server=("2001:0:4136:e378::2", 80))


@case("ip-in-ip.pcap")
def _():
    cap, _ = one_call(Capture(encap=lambda l3, v6: over_ipv4(41 if v6 else 4, l3)))
    cap2, _ = one_call(Capture(encap=lambda l3, v6: over_ipv4(41 if v6 else 4, l3), t0=cap.t),
                       client=("2001:db8::1", 40002), server=("2001:db8::2", 80))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 2], ["calls.0.complete", "==", True],
                                               ["calls.1.complete", "==", True],
                                               ["connections.1.client", "contains", "2001:db8::1"]],
                                   absent=["192.0.2."], what="IPv4 in IPv4 (protocol 4) and IPv6 in IPv4 (41)")


@case("mpls.pcap")
def _():
    cap, _ = one_call(Capture(encap=lambda l3, v6: ethernet(mpls([1000, 2000], l3), 0x8847)))
    pw = lambda l3, v6: ethernet(mpls([3000], b"\0\0\0\0" + ethernet(l3, 0x0800)), 0x8847)  # control word
    cap2, _ = one_call(Capture(encap=pw, t0=cap.t), client=("10.0.0.3", 40002))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 2], ["calls.1.complete", "==", True],
                                               ["capture.undecodable_packets", "==", 0]],
                                   what="IPv4 under two MPLS labels; an Ethernet pseudowire with a control word")


@case("tunnel-too-deep.pcap")
def _():
    def nested(l3, v6):
        for _ in range(8):
            l3 = ipv4(OUTER_A, OUTER_B, 4, l3)
        return ethernet(l3, 0x0800)
    cap, _ = one_call(Capture(encap=nested))
    cap2, _ = one_call(Capture(t0=cap.t), client=("10.0.0.3", 40002))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, ["tunnel-too-deep.pcap", "frame 1"], ["nested deeper than 6"],
                                   [["calls.#", "==", 1], ["connections.0.client", "contains", "10.0.0.3"]],
                                   what="a call in 8 nested IP-in-IP tunnels (over the cap of 6: warned once, "
                                        "skipped), then a plain call")


@case("gre-unknown-payload.pcap")
def _():
    cap = Capture()
    cap.add(over_ipv4(47, gre(0x880B, b"\xff\x03\x00\x21" + b"\0" * 40)))  # PPP in GRE: not followed
    cap.add(over_ipv4(47, gre(0x880B, b"\xff\x03\x00\x21" + b"\0" * 40)))
    cap2, _ = one_call(Capture(t0=cap.t))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, ["frame 1"], ["GRE protocol 0x880b"],
                                   ANALYSED_ONE + [["capture.undecodable_packets", "==", 2]],
                                   what="GRE carrying PPP (0x880b): warned once, never counted as non-TCP")


@case("malformed-headers.pcap")
def _():
    cap = Capture()
    good = tcp_segment("10.0.0.1", "10.0.0.2", 1, 80, 0, 0, SYN)
    cap.add(ethernet(b"\x45", 0x0800))                                           # 1 byte of IPv4
    cap.add(ethernet(b"\x43" + ipv4("10.0.0.1", "10.0.0.2", 6, good)[1:], 0x0800))  # IHL 3
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, good, total_len=10), 0x0800))  # total < header
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, good, total_len=60000), 0x0800))  # total > captured
    bad_off = good[:12] + b"\x20" + good[13:]                                      # data offset 2
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, bad_off), 0x0800))
    big_off = good[:12] + b"\xf0" + good[13:]                                      # data offset 60 > segment
    cap.add(ethernet(ipv4("10.0.0.1", "10.0.0.2", 6, big_off), 0x0800))
    cap.add(ethernet(b"\x60" + b"\0" * 10, 0x86DD))                               # 11 bytes of IPv6
    cap.add(b"\x02" * 6)                                                           # 6-byte Ethernet
    return pcap_bytes(cap), expect(0, ["malformed-headers.pcap", "frame 8"], ["frame 1", "frame 8"],
                                   [["capture.undecodable_packets", ">=", 7]], what="broken IP/TCP headers")


# ---------------------------------------------------------------- TCP


@case("retransmissions.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req, resp = request(envelope(inner="<x>%s</x>" % ("a" * 3000))), response()
    for i in range(0, len(req), 1000):
        f.seg(True, PSH | ACK, req[i:i + 1000], advance=False)
        f.seg(True, PSH | ACK, req[i:i + 1000])  # the same bytes again
    f.ack(False)
    f.seg(False, PSH | ACK, resp, advance=False)
    f.seg(False, PSH | ACK, resp)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["connections.0.retransmissions", ">=", 4]],
                                   what="every data segment sent twice")


@case("overlapping-segments.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req = request()
    base = f.nxt[True]
    # 0..300, then 200..600 whose first 100 bytes differ (first copy wins), then the rest.
    f.seg(True, PSH | ACK, req[:300], seq=base)
    f.seg(True, PSH | ACK, b"X" * 100 + req[300:600], seq=base + 200)
    f.seg(True, PSH | ACK, req[550:], seq=base + 550)
    f.nxt[True] = base + len(req)
    f.ack(False)
    f.send(False, response())
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", "GetQuote"]],
                                   what="overlapping segments with conflicting bytes")


@case("out-of-order.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req = request(envelope(inner="<x>%s</x>" % ("b" * 4000)))
    base = f.nxt[True]
    pieces = [(i, req[i:i + 700]) for i in range(0, len(req), 700)]
    for off, data in reversed(pieces):
        f.seg(True, PSH | ACK, data, seq=base + off)
    f.nxt[True] = base + len(req)
    f.ack(False)
    f.send(False, response())
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", "GetQuote"]],
                                   what="request segments in reverse order")


@case("seq-wraparound.pcap")
def _():
    cap, _ = one_call(req=request(envelope(inner="<x>%s</x>" % ("c" * 5000))), isn_c=0xFFFFFFFF - 2000,
                      isn_s=0xFFFFFFF0)
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", "GetQuote"]],
                                   what="both sequence spaces wrap past 2^32 mid-message")


@case("mid-connection-start.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    resp = response(envelope("Big", "<x>%s</x>" % ("d" * 6000)))
    f.nxt[False] += 2000
    f.send(False, resp[2000:])  # the tail of a response whose request is not in the capture
    f.ack(True)
    f.call(request(), response())
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.complete", "==", True],
                                               ["connections.0.saw_handshake", "==", False]],
                                   what="starts inside a response body, then one full call")


@case("missing-segments.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    # A request body segment never made it into the capture.
    f.send_losing(True, request(envelope(inner="<x>%s</x>" % ("e" * 3000))), 2000)
    f.ack(False)
    f.send(False, response())
    f.ack(True)
    # A second call on the same connection loses a segment inside its headers.
    req2 = request()
    base = f.nxt[True]
    f.seg(True, PSH | ACK, req2[:40], seq=base)
    f.seg(True, PSH | ACK, req2[80:], seq=base + 80)
    f.nxt[True] = base + len(req2)
    f.ack(False)
    f.send(False, response())
    f.ack(True)
    f.call(request(), response())
    f.close()
    return pcap_bytes(cap), expect(0, ["missing-segments.pcap", "gap"], ["gap"],
                                   [["calls.#", "==", 3], ["calls.0.complete", "==", False],
                                    ["calls.0.request.missing_bytes", "==", 1000], ["calls.0.status", "==", 200],
                                    ["calls.1.complete", "==", False], ["calls.1.status", "==", 200],
                                    ["calls.1.request.missing_bytes", "==", 40], ["calls.2.complete", "==", True],
                                    ["connections.0.gap_bytes", ">=", 1040]],
                                   what="a lost body segment (call not complete, 1000 bytes missing), then a lost "
                                        "header segment (still answered by its own response)")


@case("rst-mid-response.pcap")
def _():
    cap, f = request_sent()
    resp = response(envelope("R", "<x>%s</x>" % ("f" * 5000)))
    f.send(False, resp[:2000])
    f.seg(False, RST | ACK)
    return pcap_bytes(cap), expect(0, ["rst-mid-response.pcap"], ["ended inside a message"],
                                   [["calls.#", "==", 1], ["calls.0.complete", "==", False],
                                    ["connections.0.rst", "==", True]],
                                   what="RST after 2000 of 5000+ response bytes")


# ---------------------------------------------------------------- HTTP framing


def http_case(req, resp, exp, what, close=True):
    cap, _ = one_call(req=req, resp=resp, close=close)
    exp["what"] = what
    return pcap_bytes(cap), exp


@case("invalid-content-length.pcap")
def _():
    return http_case(request(), response(extra=[b"X: y"], length=False).replace(
        b"Server: hostile-gen", b"Server: hostile-gen\r\nContent-Length: 12abc"),
        expect(0, ["invalid-content-length.pcap", "Content-Length"], ["invalid Content-Length"],
               [["calls.#", "==", 1], ["calls.0.complete", "==", False]]),
        "response Content-Length: 12abc")


@case("conflicting-content-length.pcap")
def _():
    return http_case(request(extra=[b"Content-Length: 5"]), response(),
                     expect(0, ["conflicting-content-length.pcap"], ["conflicting Content-Length"],
                            [["calls.#", "==", 1]]),
                     "two different Content-Length headers on the request")


@case("huge-content-length.pcap")
def _():
    return http_case(request(), response(length=False, extra=[b"Content-Length: 18446744073709551615"]),
                     expect(0, [], [], [["calls.#", "==", 1], ["calls.0.complete", "==", False]]),
                     "response Content-Length 2^64-1 with a small body, then FIN")


@case("content-length-overflow.pcap")
def _():
    return http_case(request(), response(length=False, extra=[b"Content-Length: 99999999999999999999999"]),
                     expect(0, [], ["invalid Content-Length"], [["calls.#", "==", 1]]),
                     "Content-Length beyond 64 bits")


@case("te-and-content-length.pcap")
def _():
    body = b"5\r\nhello\r\n0\r\n\r\n"
    return http_case(request(), response(body, extra=[b"Transfer-Encoding: chunked", b"Content-Length: 3"]),
                     expect(0, [], ["Transfer-Encoding wins"], ANALYSED_ONE),
                     "chunked response that also has Content-Length")


@case("bogus-chunk-size.pcap")
def _():
    body = b"zz\r\nhello\r\n0\r\n\r\n"
    return http_case(request(), response(body, extra=[b"Transfer-Encoding: chunked"], length=False),
                     expect(0, ["bogus-chunk-size.pcap"], ["chunk size"],
                            [["calls.#", "==", 1], ["calls.0.complete", "==", False]]),
                     "chunk size 'zz'")


@case("chunk-size-overflow.pcap")
def _():
    body = b"1" * 40 + b"\r\nhello\r\n0\r\n\r\n"
    return http_case(request(), response(body, extra=[b"Transfer-Encoding: chunked"], length=False),
                     expect(0, [], ["chunk size"], [["calls.#", "==", 1]]),
                     "a 40-digit hex chunk size")


@case("huge-chunk.pcap")
def _():
    body = b"7fffffffffffffff\r\nhello"
    return http_case(request(), response(body, extra=[b"Transfer-Encoding: chunked"], length=False),
                     expect(0, [], [], [["calls.#", "==", 1], ["calls.0.complete", "==", False]]),
                     "a chunk of 2^63-1 bytes announced, 5 sent")


@case("chunk-line-bomb.pcap")
def _():
    body = b"5;" + b"x" * 100000 + b"\r\nhello\r\n0\r\n\r\n"
    return http_case(request(), response(body, extra=[b"Transfer-Encoding: chunked"], length=False),
                     expect(0, [], ["chunk-size line too long"], [["calls.#", "==", 1]]),
                     "100 KB of chunk extensions")


@case("pipelining.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, request() * 3, mss=65000)
    f.ack(False)
    f.send(False, response() * 3, mss=65000)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 3], ["calls.2.complete", "==", True],
                                               ["calls.2.operation", "==", "GetQuote"]],
                                   what="three requests in one segment, three responses in one segment")


@case("continue-no-body.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req = request(extra=[b"Expect: 100-continue"])
    head = req[:req.index(b"\r\n\r\n") + 4]
    f.send(True, head)
    f.send(False, b"HTTP/1.1 100 Continue\r\n\r\n")
    f.send(False, response(b"", status=b"417 Expectation Failed"))
    f.seg(True, RST | ACK)
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.got_continue", "==", True],
                                               ["calls.0.status", "==", 417]],
                                   what="100 Continue, the body never sent, 417, RST")


@case("responses-without-requests.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    for _ in range(3):
        f.send(False, response())
        f.ack(True)
    f.close()
    # No complete call: the summary has no latency to report (null, not 0).
    return pcap_bytes(cap), expect(0, ["responses-without-requests.pcap"], ["response without a request"],
                                   [["calls.#", "==", 0], ["summary.overall.calls", "==", 0],
                                    ["summary.overall.median_ms", "==", None], ["summary.overall.max_ms", "==", None]],
                                   what="three responses, no request")


@case("non-http-port-80.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(False, b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
    f.send(True, b"SSH-2.0-PuTTY\r\n" + bytes(range(256)) * 8)
    f.send(False, bytes(range(255, -1, -1)) * 300)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 0], ["connections.0.http", "==", False]],
                                   what="SSH on port 80")


@case("tunnel-101.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    f.send(False, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n" + b"\x81\x05hello" * 100)
    f.send(True, b"\x81\x85" + b"\0" * 2000)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.status", "==", 101],
                                               ["calls.0.complete", "==", True], ["capture.warnings.#", "==", 0]],
                                   what="101 then binary frames: the call ends with the 101, the rest is opaque")


def numbered_call(i, head_only=False):
    """Request /qI and a response whose status (200+I) says which request it answers."""
    req = request(uri=b"/q%d" % i)
    resp = response(status=b"%d OK" % (200 + i))
    return req, resp


@case("lost-response-header.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    for i in range(1, 5):
        req, resp = numbered_call(i)
        f.send(True, req)
        f.ack(False)
        head = resp[:resp.index(b"\r\n\r\n") + 4]
        if i == 2:
            f.nxt[False] += len(head)  # the header segment never made it into the capture
        else:
            f.send(False, head)
        f.send(False, resp[len(head):])
        f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, ["lost-response-header.pcap"], ["no response captured for the request at frame 9"],
                                   [["calls.#", "==", 4], ["calls.1.complete", "==", False], ["calls.1.status", "==", None],
                                    ["calls.0.status", "==", 201], ["calls.2.status", "==", 203],
                                    ["calls.3.status", "==", 204], ["calls.3.complete", "==", True]],
                                   what="keep-alive calls; the 2nd response's header segment is lost (its body is "
                                        "captured): call 2 unanswered, calls 3 and 4 keep their own responses")


@case("lost-response-pipelined.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    calls = [numbered_call(i) for i in range(1, 5)]
    f.send(True, b"".join(r for r, _ in calls), mss=65000)
    f.ack(False)
    for i, (_, resp) in enumerate(calls, 1):
        if i == 2:
            f.nxt[False] += len(resp)  # the whole second response was not captured
        else:
            f.send(False, resp)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, ["lost-response-pipelined.pcap"], ["no response captured"],
                                   [["calls.#", "==", 4], ["calls.0.status", "==", 201], ["calls.1.status", "==", None],
                                    ["calls.1.complete", "==", False], ["calls.2.status", "==", 203],
                                    ["calls.3.status", "==", 204]],
                                   what="four pipelined requests in one segment; the 2nd response is lost whole")


@case("response-before-request.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req, resp = numbered_call(1)
    base = f.nxt[True]
    f.nxt[True] += len(req)
    f.send(False, resp)  # captured first: acknowledges request bytes not captured yet
    f.seg(True, PSH | ACK, req, seq=base)
    f.ack(True)
    req2, resp2 = numbered_call(2)
    f.call(req2, resp2)
    f.close()
    return pcap_bytes(cap), expect(0, ["response-before-request.pcap"], ["captured before its request"],
                                   [["calls.#", "==", 2], ["calls.0.complete", "==", False], ["calls.0.status", "==", None],
                                    ["calls.1.status", "==", 202], ["calls.1.complete", "==", True]],
                                   what="a response captured before its request (capture reordering), then a call")


@case("missing-response-body.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, request())
    f.ack(False)
    f.send_losing(False, response(envelope("Big", "<x>%s</x>" % ("m" * 4000))), 2000)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.complete", "==", False],
                                               ["calls.0.status", "==", 200], ["calls.0.response.complete", "==", False],
                                               ["calls.0.response.missing_bytes", "==", 1000],
                                               ["calls.0.latency_ms", "==", None]],
                                   what="1000 bytes of a Content-Length response body never captured")


TLS_BYTES = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(200)) * 3


@case("tunnel-connect.pcap")
def _():
    cap = Capture()
    f = Flow(cap, server=("10.0.0.2", 3128))
    f.handshake()
    f.send(True, b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n" + TLS_BYTES[:40])
    f.send(False, b"HTTP/1.1 200 Connection established\r\n\r\n")
    f.send(True, TLS_BYTES[40:])
    f.send(False, b"\x16\x03\x03\x00\x5a\x02" + bytes(range(255, 0, -1)) * 4)
    f.send(True, b"GET / HTTP/1.1\r\n\r\n")  # inside the tunnel: opaque, not a call
    f.send(False, b"HTTP/1.1 200 OK\r\n\r\n")
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.method", "==", "CONNECT"],
                                               ["calls.0.status", "==", 200], ["calls.0.complete", "==", True],
                                               ["capture.warnings.#", "==", 0]],
                                   what="CONNECT with TLS bytes in the request's segment, 200, then tunnel bytes "
                                        "(one of them HTTP-looking) both ways")


@case("tunnel-101-early-client.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, b"GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    f.send(True, b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58")  # a frame before the 101 is captured
    f.send(False, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    f.send(False, b"\x81\x05Hello" * 50)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 1], ["calls.0.status", "==", 101],
                                               ["calls.0.complete", "==", True], ["capture.warnings.#", "==", 0]],
                                   what="WebSocket upgrade: the client's first frame is captured before the 101")


@case("header-bomb.pcap")
def _():
    big = [b"X-Junk: " + b"a" * 200000]
    return http_case(request(extra=big), response(),
                     expect(0, ["header-bomb.pcap", "header section exceeds"], ["header section exceeds"],
                            [["calls.#", "==", 1]]),
                     "a 200 KB request header line")


@case("header-count-bomb.pcap")
def _():
    many = [b"X-%d: y" % i for i in range(5000)]
    return http_case(request(), response(extra=many),
                     expect(0, ["header-count-bomb.pcap"], ["header fields"], [["calls.#", "==", 1]]),
                     "5000 response header fields")


# ---------------------------------------------------------------- content / XML


def gzip_bomb(megabytes):
    # Deterministic (mtime=0); zeros compress about 1000:1.
    prefix = envelope("Bomb", "<x>")
    return gzip.compress(prefix + b" " * (megabytes << 20), compresslevel=9, mtime=0)


@case("gzip-bomb.pcap")
def _():
    bomb = gzip_bomb(64)
    return http_case(request(), response(bomb, extra=[b"Content-Encoding: gzip"]),
                     expect(0, ["gzip-bomb.pcap"], ["exceeds"], ANALYSED_ONE),
                     "response body: %d bytes of gzip that inflate to 64 MiB" % len(bomb))


@case("gzip-bomb-request.pcap")
def _():
    bomb = gzip_bomb(64)
    return http_case(request(bomb, extra=[b"Content-Encoding: gzip"]), response(),
                     expect(0, ["gzip-bomb-request.pcap"], ["exceeds"], ANALYSED_ONE),
                     "request body: gzip that inflates to 64 MiB")


@case("gzip-corrupt.pcap")
def _():
    bad = gzip.compress(envelope(), mtime=0)[:30] + b"\xff" * 40
    return http_case(request(), response(bad, extra=[b"Content-Encoding: gzip"]),
                     expect(0, [], [], ANALYSED_ONE), "corrupt gzip body")


@case("gzip-request-plain-response.pcap")
def _():
    fault = envelope("Fault", "<faultcode>soap:Server</faultcode><faultstring>boom</faultstring>").replace(
        b'<m:Fault xmlns:m="urn:example">', b"<soap:Fault>").replace(b"</m:Fault>", b"</soap:Fault>")
    return http_case(request(gzip.compress(envelope(), mtime=0), extra=[b"Content-Encoding: gzip"]),
                     response(fault, status=b"500 Internal Server Error"),
                     expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", "GetQuote"],
                                                       ["calls.0.fault.code", "==", "soap:Server"],
                                                       ["calls.0.soap_error", "==", None]]),
                     "gzip request, plain (identity) SOAP fault response")


BILLION_LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
                  + b"".join(b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%s;" % (b"" if i == 1 else b"%d" % (i - 1))) * 10)
                             for i in range(1, 10))
                  + b']>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
                  b'<m:Op xmlns:m="urn:x">&lol9;</m:Op></soap:Body></soap:Envelope>')


@case("xml-billion-laughs.pcap")
def _():
    return http_case(request(BILLION_LAUGHS), response(BILLION_LAUGHS),
                     expect(0, [], [], ANALYSED_ONE + [["calls.0.soap_error", "contains", "DOCTYPE"],
                                                       ["calls.0.operation", "==", None]],
                            absent=["lollollol"]),
                     "billion laughs in request and response")


@case("xml-billion-laughs-utf16.pcap")
def _():
    body = BILLION_LAUGHS.replace(b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="UTF-16"?>')
    body = b"\xff\xfe" + body.decode().encode("utf-16-le")
    return http_case(request(body), response(),
                     expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", None]], absent=["lollollol"]),
                     "billion laughs in UTF-16")


@case("xml-quadratic-blowup.pcap")
def _():
    ent = b"A" * 20000
    body = (b'<?xml version="1.0"?><!-- comment first --><!DOCTYPE k [<!ENTITY a "' + ent + b'">]>'
            b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:Op xmlns:m="urn:x">'
            + b"&a;" * 40000 + b"</m:Op></soap:Body></soap:Envelope>")
    return http_case(request(body), response(),
                     expect(0, [], [], ANALYSED_ONE + [["calls.0.operation", "==", None]], absent=["AAAAAAAAAAAAAAAA"]),
                     "a 20 KB entity referenced 40,000 times (800 MB expanded)")


XXE_FILE = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
            b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
            b'<m:Op xmlns:m="urn:x">&xxe;</m:Op></soap:Body></soap:Envelope>')
XXE_DTD = (b'<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "file:///etc/passwd">\n'
           b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>')
XXE_PARAM = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]>\n'
             b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>')
XINCLUDE = (b'<?xml version="1.0"?><?xml-stylesheet href="file:///etc/passwd"?>\n'
            b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" '
            b'xmlns:xi="http://www.w3.org/2001/XInclude" '
            b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:x file:///etc/passwd">'
            b'<soap:Body><m:Op xmlns:m="urn:x"><xi:include href="file:///etc/passwd" parse="text"/></m:Op>'
            b'</soap:Body></soap:Envelope>')


@case("xml-external-entities.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    for body in (XXE_FILE, XXE_DTD, XXE_PARAM, XINCLUDE):
        f.call(request(body), response(body))
    f.close()
    return pcap_bytes(cap), expect(0, [], [], [["calls.#", "==", 4], ["calls.0.soap_error", "contains", "DOCTYPE"],
                                               ["calls.3.operation", "==", "Op"]],
                                   absent=["root:x:0:0", "/bin/bash", "nologin"],
                                   what="external entity, external DTD, parameter entity over HTTP, XInclude")


@case("xml-deep-nesting.pcap")
def _():
    depth = 100000
    body = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
            + b"<a>" * depth + b"</a>" * depth + b"</soap:Body></soap:Envelope>")
    return http_case(request(body), response(),
                     expect(0, [], [], ANALYSED_ONE + [["calls.0.soap_error", "contains", "deeply nested"]]),
                     "100,000 levels of nested elements")


@case("invalid-utf8.pcap")
def _():
    bad = b"\xff\xfe\xc3\x28\xed\xa0\x80\xf8\x88\x80\x80\x80"
    req = request(envelope("Op" + "", "<v>" + "</v>").replace(b"<v>", b"<v>" + bad),
                  extra=[b"User-Agent: " + bad, b"SOAPAction: " + bad], uri=b"/q" + bad)
    resp = response(envelope("R" , "<v/>").replace(b"<v/>", b"<v>" + bad + b"</v>"),
                    extra=[b"Server: " + bad], status=b"200 " + bad)
    return http_case(req, resp, expect(0, [], [], [["calls.#", "==", 1], ["calls.0.complete", "==", True]]),
                     "invalid UTF-8 in URI, headers, reason phrase and XML")


@case("cap-soap-body.pcap", CAP_CASES)
def _():
    body = envelope("Huge", "<x>%s</x>" % ("g" * (2 << 20)))
    return http_case(request(body), response(),
                     expect(0, ["cap-soap-body.pcap"], ["larger than"], ANALYSED_ONE),
                     "a 2 MiB request envelope (over the 1 MiB SOAP body cap)")


@case("many-warnings.pcap")
def _():
    cap = Capture()
    for _ in range(2000):
        cap.add(ethernet(b"\x45\x00", 0x0800))
    # One good call, so that the report (and not the "nothing decoded" error) is what is checked.
    cap2, _ = one_call(Capture(t0=cap.t))
    cap.frames += cap2.frames
    return pcap_bytes(cap), expect(0, ["many-warnings.pcap"], ["more warnings not shown"],
                                   ANALYSED_ONE + [["capture.warnings.#", "<=", 501],
                                                   ["capture.undecodable_packets", "==", 2000]],
                                   what="2000 malformed packets (warning cap 500), then one good call")


@case("all-malformed.pcap")
def _():
    cap = Capture()
    for _ in range(5):
        cap.add(ethernet(b"\x45\x00", 0x0800))
    return pcap_bytes(cap), expect(1, ["all-malformed.pcap", "none of its 5 frames could be decoded",
                                       "frame 1: truncated IPv4 header"], [], [],
                                   what="only malformed packets: nothing to report, exit 1 (not an empty report)")


# ---------------------------------------------------------------- issue 22
# Shapes the mutation run found: a segment far ahead in sequence space that
# is only flushed at the end of the capture (export hung; the call it made
# started at frame 0 / time 0), and captures nothing in which can be decoded
# (export and compare went on as if they were empty).

IN_CAPTURE = [["calls.0.request.first_frame", ">=", 1]]


def far_ahead(close):
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.call(request(), response())
    # The start of a request 1 GiB ahead of the stream (a bit flip in its
    # sequence number), never acknowledged: held until the stream ends. The
    # calls after it are in order, and hand on the segments before them.
    f.seg(True, PSH | ACK, request()[:300], seq=f.nxt[True] + (1 << 30))
    f.call(request(), response())
    f.call(request(), response())
    if close:
        f.close()
    return pcap_bytes(cap)


@case("seq-far-ahead.pcap")
def _():
    return far_ahead(False), expect(0, ["seq-far-ahead.pcap"], ["could not be placed"],
                                    [["calls.#", "==", 3], ["calls.2.complete", "==", True]] + IN_CAPTURE,
                                    what="3 calls; between the 1st and 2nd a request segment 1 GiB ahead, "
                                         "flushed at the end of the capture (export hung on it)")


@case("seq-far-ahead-closed.pcap")
def _():
    return far_ahead(True), expect(0, ["seq-far-ahead-closed.pcap"], ["could not be placed"],
                                   [["calls.#", "==", 3], ["calls.2.complete", "==", True]] + IN_CAPTURE,
                                   what="as seq-far-ahead, then FIN both ways: flushed at the client's FIN")


@case("seq-far-ahead-first.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    # The request's first segment is 1 GiB ahead; the server never answers.
    f.seg(True, PSH | ACK, request()[:300], seq=f.nxt[True] + (1 << 30))
    f.ack(False)
    return pcap_bytes(cap), expect(0, [], [],
                                   [["calls.#", "==", 1], ["calls.0.complete", "==", False]] + IN_CAPTURE,
                                   what="a handshake, then only a request segment 1 GiB ahead (placed: its "
                                        "segment is still known when the capture ends)")


@case("linktype-mismatch.pcap")
def _():
    # Ethernet frames in a file whose header says raw IP (101): every frame
    # starts with a MAC address, not an IP version.
    return good_pcap(linktype=LINKTYPE_RAW), expect(
        1, ["linktype-mismatch.pcap", "none of its 10 frames could be decoded", "link types: RAW"], [], [],
        what="Ethernet frames under a raw-IP link type: nothing decoded, exit 1")


# ---------------------------------------------------------------- timing (issue 13)
# Every file here must give possible numbers; run_corpus.py checks that for
# every case (0 <= latency <= capture, phases in order, findings inside).

MS = 1_000_000


@case("timing-early-data.pcap")
def _():
    cap = Capture()
    f = Flow(cap)
    f.seg(True, SYN, options=b"\x02\x04\x05\xb4")
    f.seg(False, SYN | ACK, options=b"\x02\x04\x05\xb4", dt_ns=25 * MS)
    # The handshake's ACK is not captured; the request's second segment is
    # captured 2.46 s before its first one.
    req = request()
    base = f.nxt[True]
    f.seg(True, PSH | ACK, req[100:], seq=base + 100, dt_ns=2461 * MS)
    f.seg(True, ACK, req[:100], seq=base, dt_ns=4 * MS)
    f.nxt[True] = base + len(req)
    f.ack(False)
    f.send(False, response(), dt_ns=3 * MS)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["connections.0.handshake_ms", "<=", 25.001],
                                                             ["connections.0.handshake_ms", ">=", 24.999],
                                                             ["calls.0.latency_ms", "<=", 10]],
                                   what="no handshake ACK; a request's later segment captured 2.46 s before its first")


def keepalive_flow(probe_byte):
    cap, f = one_call(close=False)
    # 45 s idle, then a keep-alive from each side (seq = next - 1) and its ACK.
    f.seg(True, ACK, probe_byte, seq=f.nxt[True] - 1, dt_ns=45_000 * MS)
    f.ack(False)
    f.seg(False, ACK, b"", seq=f.nxt[False] - 1, dt_ns=5 * MS)
    f.ack(True)
    f.call(request(), response())
    f.close()
    return cap


@case("timing-keepalive.pcap")
def _():
    return pcap_bytes(keepalive_flow(b"\0")), expect(
        0, [], [], [["calls.#", "==", 2], ["calls.1.complete", "==", True], ["connections.0.retransmissions", "==", 0],
                    ["calls.0.latency_ms", "<=", 10]],
        what="a 1-byte client keep-alive and a 0-byte server keep-alive 45 s after a call, then a second call")


@case("timing-zero-window-probe.pcap")
def _():
    cap, f = request_sent()
    resp = response(envelope("R", "<x>%s</x>" % ("z" * 3000)))
    f.send(False, resp[:1460])
    f.seg(True, ACK, dt_ns=50_000)
    # The client's buffer is full: window 0; the server probes twice with the
    # same new byte (Windows style; Wireshark flags both ZeroWindowProbe),
    # then sends the rest, that byte included, when the window opens.
    cap.add(cap.wrap(f.ip_packet(True, tcp_zero_window(f, True)), False), 1 * MS)
    at = f.nxt[False]
    f.seg(False, ACK, resp[1460:1461], seq=at, dt_ns=200 * MS)
    cap.add(cap.wrap(f.ip_packet(True, tcp_zero_window(f, True)), False), 1 * MS)
    f.seg(False, ACK, resp[1460:1461], seq=at, dt_ns=400 * MS)
    f.seg(True, ACK, dt_ns=100 * MS)  # window open again
    f.nxt[False] = at
    f.send(False, resp[1460:])
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["connections.0.retransmissions", "==", 0]],
                                   what="zero window, two 1-byte zero-window probes, window reopens")


def tcp_zero_window(f, from_client):
    """A pure ACK advertising a zero window (checksum recomputed)."""
    src, dst = (f.client, f.server) if from_client else (f.server, f.client)
    seq, ack = f.nxt[from_client], f.nxt[not from_client]
    return tcp_segment(src[0], dst[0], src[1], dst[1], seq, ack, ACK, b"", window=0)


@case("timing-midstream-reordered.pcap")
def _():
    cap = Capture()
    f = Flow(cap, isn_c=7_000_000, isn_s=9_000_000)
    f.call(request(), response())   # the capture begins after the handshake and a first call
    cap.frames.clear()
    req = request()
    base = f.nxt[True]
    f.seg(True, PSH | ACK, req[100:], seq=base + 100)   # captured 3 ms before the segment before it
    f.seg(True, ACK, req[:100], seq=base, dt_ns=3 * MS)
    f.nxt[True] = base + len(req)
    f.ack(False)
    f.send(False, response())
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(0, [], [], ANALYSED_ONE + [["calls.#", "==", 1], ["calls.0.method", "==", "POST"],
                                                             ["calls.0.request_first_frame", "==", 2]],
                                   what="begins mid-connection; the first request's second segment is captured first")


@case("timing-zero-timestamp.pcap")
def _():
    cap, _ = one_call()
    cap.frames[0] = (0, cap.frames[0][1], cap.frames[0][2])   # the SYN, stamped 1970-01-01
    cap.frames[6] = (0, cap.frames[6][1], cap.frames[6][2])   # the response, likewise
    return pcap_bytes(cap), expect(0, [], ["frame 1: no timestamp"],
                                   ANALYSED_ONE + [["connections.0.handshake_ms", "<=", 1],
                                                   ["capture.duration_ms", "<=", 10]],
                                   what="the SYN and the response stamped 0 (1970)")


@case("timing-simple-packet-blocks.pcapng")
def _():
    cap, _ = one_call()
    head = b"".join(ng_spb(data) for _, data, _ in cap.frames[:3])
    rest = b"".join(ng_epb(0, ts, data, "<", orig) for ts, data, orig in cap.frames[3:])
    return ng_shb() + ng_idb(LINKTYPE_ETHERNET) + head + rest, expect(
        0, [], ["frame 1: no timestamp"],
        ANALYSED_ONE + [["connections.0.handshake_ms", "==", 0], ["capture.duration_ms", "<=", 10]],
        what="the handshake in Simple Packet Blocks (no timestamp), the call in Enhanced Packet Blocks")


@case("timing-response-before-request.pcap")
def _():
    cap, _ = one_call()
    ts, data, orig = cap.frames[5]   # the response headers, stamped 5 s before the request
    cap.frames[5] = (ts - 5_000 * MS, data, orig)
    return pcap_bytes(cap), expect(0, ["frame 6"], ["frame 6: timestamp goes back"],
                                   ANALYSED_ONE + [["calls.0.latency_ms", "<=", 10]],
                                   what="the response stamped 5 s before its request (frames in wire order)")


# ---------------------------------------------------------------- caps (big; generated at test time)


@case("cap-out-of-order.pcap", CAP_CASES)
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    req = request(envelope(inner="<x>%s</x>" % ("h" * (6 << 20))))
    base = f.nxt[True]
    # The first segment is missing and the server never ACKs: every later
    # segment must be held, until the 4 MiB per-direction cap.
    for i in range(1400, len(req), 1400):
        f.seg(True, PSH | ACK, req[i:i + 1400], seq=base + i, dt_ns=1000)
    f.nxt[True] = base + len(req)
    f.seg(True, FIN | ACK)
    return pcap_bytes(cap), expect(0, ["cap-out-of-order.pcap"], ["out-of-order"], [],
                                   what="6 MiB held behind a hole (cap 4 MiB per direction)")


@case("cap-open-connections.pcap", CAP_CASES)
def _():
    out = [pcap_header()]
    t = 1_704_067_200_000_000_000
    n = 100_050
    for i in range(n):
        src = "10.%d.%d.%d" % (i >> 16 & 255, i >> 8 & 255, i & 255)
        t += 1000
        syn = tcp_segment(src, "10.255.0.1", 1024 + i % 60000, 80, i, 0, SYN)
        out.append(pcap_record(t, ethernet(ipv4(src, "10.255.0.1", 6, syn), 0x0800)))
    return b"".join(out), expect(0, ["cap-open-connections.pcap"], ["open-connection cap"],
                                 [["connections.#", "==", n]], what="100,050 half-open connections (cap 100,000)")


@case("cap-segments.pcap", CAP_CASES)
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    f.send(True, b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
    f.send(False, b"HTTP/1.1 200 OK\r\nContent-Length: 2001000\r\n\r\n")
    for _ in range(200_100):
        f.seg(False, PSH | ACK, b"0123456789", dt_ns=1000)
    f.close()
    return pcap_bytes(cap), expect(0, ["cap-segments.pcap"], ["segment history cap"], [["calls.#", "==", 1]],
                                   what="one response in 200,100 segments (cap 200,000 per connection)")


@case("cap-pending-requests.pcap", CAP_CASES)
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    n = 200_000
    # Pipelined back to back in full segments; the server ACKs but never answers.
    f.send(True, b"GET / HTTP/1.1\r\n\r\n" * n, mss=1448, dt_ns=10_000)
    f.ack(False)
    f.close()
    # The JSON of 200,000 calls is 290 MB: checked through the CSV summary
    # (stderr and peak memory only).
    exp = expect(0, ["cap-pending-requests.pcap", "pending-request cap (4096) hit"],
                 what="200,000 pipelined requests never answered (3.8 MB; cap 4096 waiting per connection)")
    exp["report"] = "csv-summary"
    exp["max_rss_mb"] = 128
    return pcap_bytes(cap), exp


@case("cap-pipelined-head.pcap", CAP_CASES)
def _():
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    n = 70_000
    # Issue 22: 70,000 HEAD requests pipelined, then their 70,000 bodiless
    # responses. Waiting requests past the cap are given up; the parser must
    # still know every response answers a HEAD (no body despite Content-Length).
    f.send(True, b"HEAD /status HTTP/1.1\r\nHost: svc\r\n\r\n" * n, mss=1448, dt_ns=10_000)
    f.ack(False)
    f.send(False, b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nContent-Type: text/xml\r\n\r\n" * n, mss=1448,
           dt_ns=10_000)
    f.ack(True)
    f.close()
    exp = expect(0, ["cap-pipelined-head.pcap", "pending-request cap (4096) hit"],
                 what="70,000 pipelined HEAD requests answered after all were sent (7.4 MB; cap 4096 waiting)")
    exp["report"] = "csv-summary"
    # 30 MB with one thread, 45 MB with two or four (docs/performance.md,
    # "Memory per waiting request"): a worker hands its calls on by bytes as
    # well as by count, so calls carrying thousands of segments cannot pile up.
    exp["max_rss_mb"] = 128
    return pcap_bytes(cap), exp

import hostile_tls_cases  # noqa: E402  (the HTTPS cases, issue 25)

hostile_tls_cases.register(case, expect)


def write_corpus(outdir, registry, expectations_name):
    os.makedirs(outdir, exist_ok=True)
    expectations = {}
    for name, fn in registry.items():
        data, exp = fn()
        with open(os.path.join(outdir, name), "wb") as fh:
            fh.write(data)
        expectations[name] = exp
    if expectations_name:
        with open(os.path.join(outdir, expectations_name), "w") as fh:
            json.dump(expectations, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return expectations


def corpus_main(doc, registry, testdata_subdir):
    """The command line of a corpus generator: [OUTDIR] (default testdata/<subdir>)."""
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(here, "..", "..", "testdata", testdata_subdir))
    args = ap.parse_args()
    exp = write_corpus(args.outdir, registry, "expectations.json")
    print("wrote %d captures to %s" % (len(exp), os.path.normpath(args.outdir)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(here, "..", "..", "testdata", "hostile"))
    ap.add_argument("--caps", action="store_true", help="write the big cap-hitting captures instead")
    args = ap.parse_args()
    if args.caps:
        exp = write_corpus(args.outdir, CAP_CASES, "expectations.json")
    else:
        exp = write_corpus(args.outdir, CASES, "expectations.json")
    print("wrote %d captures to %s" % (len(exp), os.path.normpath(args.outdir)))


if __name__ == "__main__":
    main()
