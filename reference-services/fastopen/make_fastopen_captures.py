#!/usr/bin/env python3
"""Writes the TCP Fast Open captures (testdata/fastopen/): data on a SYN and
on a SYN-ACK (RFC 7413), byte by byte with pcapgen (python3 stdlib only,
deterministic output).

  make_fastopen_captures.py [OUTDIR]      default: testdata/fastopen

  tfo-client-data-on-syn.pcap   the client's SYN carries a Fast Open cookie
      and the whole POST request (what Linux sends with TCP_FASTOPEN_CONNECT or
      curl --tcp-fastopen once it holds a cookie); the SYN-ACK acknowledges
      ISN+1+request; the response follows the handshake's ACK.
  tfo-server-data-on-synack.pcap   as above, and the server answers on its
      SYN-ACK: the whole response rides on it (RFC 7413 allows data on the
      SYN-ACK; the response's first byte is the server's ISN+1).
Both then close with FIN/ACK. The request is 391 bytes (the size the issue
reported read as "OST", 390 bytes, with a spurious retransmission).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from pcapgen import ACK, PSH, SYN, Capture, Flow, envelope, pcap_bytes, request, response  # noqa: E402

MS = 1_000_000
MSS = b"\x02\x04\x05\xb4"
COOKIE = b"\x22\x0a" + bytes.fromhex("5ac1e0f1d2c3b4a5")   # option 34: Fast Open cookie (8 bytes)
COOKIE_REQUEST = b"\x22\x02"                                # option 34 without a cookie: asks for one


def tfo_request():
    # 391 bytes in all: the envelope's padding element sizes it.
    req = request(envelope(inner="<symbol>%s</symbol>" % "IBM"))
    pad = 391 - len(req)
    assert pad >= 0, len(req)
    return request(envelope(inner="<symbol>%s</symbol>" % ("I" * (3 + pad))))


def client_data_on_syn():
    cap = Capture()
    f = Flow(cap, client=("10.0.0.1", 40123), server=("10.0.0.2", 8080), isn_c=3_000_000_000, isn_s=7_000)
    req = tfo_request()
    assert len(req) == 391
    f.seg(True, SYN, req, options=MSS + COOKIE)               # data from ISN+1
    f.seg(False, SYN | ACK, options=MSS, dt_ns=150_000)       # acknowledges ISN+1+391
    f.seg(True, ACK, dt_ns=40_000)
    f.send(False, response(), dt_ns=2 * MS)                   # the server had the request with its SYN
    f.ack(True)
    f.close()
    return pcap_bytes(cap)


def server_data_on_synack():
    cap = Capture()
    f = Flow(cap, client=("10.0.0.1", 40124), server=("10.0.0.2", 8080), isn_c=12_345, isn_s=4_000_000_000)
    req = tfo_request()
    f.seg(True, SYN, req, options=MSS + COOKIE)
    f.seg(False, SYN | ACK, response(), options=MSS, dt_ns=2 * MS)  # the response on the SYN-ACK
    f.seg(True, ACK, dt_ns=40_000)                                   # acknowledges the response
    f.close()
    return pcap_bytes(cap)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "testdata", "fastopen")
    os.makedirs(out, exist_ok=True)
    for name, make in (("tfo-client-data-on-syn.pcap", client_data_on_syn),
                       ("tfo-server-data-on-synack.pcap", server_data_on_synack)):
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(make())
    print("wrote 2 captures to %s" % os.path.normpath(out))


if __name__ == "__main__":
    main()
