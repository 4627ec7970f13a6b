#!/usr/bin/env python3
"""ICMP echo round trips (root: a raw socket), for machines without ping(8).

    icmp_ping.py ADDRESS [--count N] [--interval S] [--timeout S]

Prints "sent N received M min/avg/median/max A/B/C/D ms" and exits 0 iff every echo was answered.
The reply's time is the kernel's receive timestamp (SO_TIMESTAMPNS), so a late wake-up of this
process on a loaded machine does not count as path delay.
"""
import argparse
import os
import socket
import statistics
import struct
import sys
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def echo(sock, addr, ident, seq, timeout):
    payload = struct.pack("!d", time.monotonic()) + b"stallscope" * 4
    head = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    packet = struct.pack("!BBHHH", 8, 0, checksum(head + payload), ident, seq) + payload
    t0 = time.time()
    sock.sendto(packet, (addr, 0))
    deadline = t0 + timeout
    while True:
        left = deadline - time.time()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            data, anc, _, _ = sock.recvmsg(2048, 64)
        except socket.timeout:
            return None
        t1 = time.time()
        for level, kind, value in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", value[:16])
                t1 = sec + nsec / 1e9
        ihl = (data[0] & 0x0F) * 4
        typ, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
        if typ == 0 and rid == ident and rseq == seq:
            return (t1 - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("address")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--timeout", type=float, default=1.0)
    a = ap.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    ident = os.getpid() & 0xFFFF
    rtts = []
    for seq in range(1, a.count + 1):
        r = echo(sock, a.address, ident, seq, a.timeout)
        if r is not None:
            rtts.append(r)
        if seq < a.count:
            time.sleep(a.interval)
    if rtts:
        print(f"sent {a.count} received {len(rtts)} min/avg/median/max "
              f"{min(rtts):.3f}/{sum(rtts) / len(rtts):.3f}/{statistics.median(rtts):.3f}/{max(rtts):.3f} ms")
    else:
        print(f"sent {a.count} received 0")
    sys.exit(0 if len(rtts) == a.count else 1)


if __name__ == "__main__":
    main()
