#!/usr/bin/env python3
"""Writes a capture of N HEAD requests pipelined on one connection, to measure
the memory a waiting request costs (docs/performance.md, issue 22):

  make_pipelined_capture.py SHAPE N OUT.pcap
    unanswered     the server ACKs and never answers
    answered-late  all N requests, then all N responses (bodiless, Content-Length: 1234)
    interleaved    batches of 1000 requests, each answered before the next

python3 stdlib only; deterministic output.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapgen import Capture, Flow, pcap_bytes  # noqa: E402

REQUEST = b"HEAD /status HTTP/1.1\r\nHost: svc\r\n\r\n"
RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nContent-Type: text/xml\r\n\r\n"


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("unanswered", "answered-late", "interleaved"):
        sys.exit(__doc__)
    shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    cap = Capture()
    f = Flow(cap)
    f.handshake()
    batches = [n] if shape != "interleaved" else [min(1000, n - i) for i in range(0, n, 1000)]
    for k in batches:
        f.send(True, REQUEST * k, mss=1448, dt_ns=10_000)
        f.ack(False)
        if shape != "unanswered":
            f.send(False, RESPONSE * k, mss=1448, dt_ns=10_000)
            f.ack(True)
    f.close()
    with open(out, "wb") as fh:
        fh.write(pcap_bytes(cap))


if __name__ == "__main__":
    main()
