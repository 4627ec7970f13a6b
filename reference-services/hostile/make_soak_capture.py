#!/usr/bin/env python3
"""Streams a big synthetic SOAP capture to disk for the soak test.

  make_soak_capture.py OUT.pcap SIZE_MB [--body-kb N] [--seed N]

Connections alternate between keep-alive (1-8 calls, then FIN) and one call
per connection (Connection: close); up to 64 connections are open at once
(their packets interleave), client addresses and ports vary, every call is a
complete request/response. Frames are produced from a few templates with the
addresses, ports and sequence numbers patched in, and written as they are
made: memory stays small whatever SIZE_MB is. (Checksums are not recomputed;
StallScope does not verify them.) python3 stdlib only.
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapgen import ACK, FIN, PSH, SYN, envelope, ethernet, ipv4, pcap_header, request, response, tcp_segment  # noqa

T0 = 1_704_067_200 * 1_000_000_000


def template(calls, req, resp):
    """The frames of one connection from 10.0.0.1:1024 (patched per connection)."""
    c, s = ("10.0.0.1", 1024), ("10.255.0.1", 80)
    nxt = {True: 1000, False: 900000}
    out = []

    def seg(from_client, flags, data=b"", dt=10_000):
        src, dst = (c, s) if from_client else (s, c)
        t = tcp_segment(src[0], dst[0], src[1], dst[1], nxt[from_client], nxt[not from_client], flags, data)
        nxt[from_client] += len(data) + (1 if flags & (SYN | FIN) else 0)
        out.append((ethernet(ipv4(src[0], dst[0], 6, t), 0x0800), from_client, dt))

    seg(True, SYN, dt=50_000)
    seg(False, SYN | ACK, dt=50_000)
    seg(True, ACK, dt=20_000)
    for _ in range(calls):
        for i in range(0, len(req), 1448):
            seg(True, PSH | ACK, req[i:i + 1448])
        seg(False, ACK, dt=40_000_000)  # a delayed ACK now and then
        for i in range(0, len(resp), 1448):
            seg(False, PSH | ACK, resp[i:i + 1448], dt=30_000)
        seg(True, ACK, dt=200_000)
    seg(True, FIN | ACK, dt=100_000)
    seg(False, FIN | ACK, dt=50_000)
    seg(True, ACK, dt=50_000)
    return out


def frames(tmpl, idx):
    """Yields the template's frames with connection idx's client address and port."""
    ip = bytes((10, 1 + (idx >> 16) % 200, (idx >> 8) & 255, 1 + idx % 250))
    port = struct.pack("!H", 1024 + idx % 60000)
    for frame, from_client, dt in tmpl:
        b = bytearray(frame)
        if from_client:
            b[26:30] = ip
            b[34:36] = port
        else:
            b[30:34] = ip
            b[36:38] = port
        yield bytes(b), dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("size_mb", type=int)
    ap.add_argument("--body-kb", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    filler = "x" * (args.body_kb * 1024)
    req_ka = request(envelope(inner="<data>%s</data>" % filler[:512]))
    req_close = request(envelope(inner="<data>%s</data>" % filler[:512]), extra=[b"Connection: close"])
    resp = response(envelope("GetQuoteResponse", "<data>%s</data>" % filler))
    templates = {(n, True): template(n, req_ka, resp) for n in range(1, 9)}
    templates[(1, False)] = template(1, req_close, resp)
    limit = args.size_mb << 20
    written = 0
    t = T0
    conns = 0
    calls = 0
    open_iters = []
    with open(args.out, "wb", buffering=1 << 20) as fh:
        fh.write(pcap_header())
        written += 24
        while written < limit:
            while len(open_iters) < 64:
                keep = rnd.random() < 0.5
                n = rnd.randint(1, 8) if keep else 1
                conns += 1
                calls += n
                open_iters.append(frames(templates[(n, keep)], conns))
            k = rnd.randrange(len(open_iters))
            try:
                frame, dt = next(open_iters[k])
            except StopIteration:
                open_iters.pop(k)
                continue
            t += dt // 64 + 1
            sec, ns = divmod(t, 1_000_000_000)
            fh.write(struct.pack("<IIII", sec, ns // 1000, len(frame), len(frame)))
            fh.write(frame)
            written += 16 + len(frame)
    print("%s: %d MB, about %d connections, %d calls started" % (args.out, written >> 20, conns, calls))


if __name__ == "__main__":
    main()
