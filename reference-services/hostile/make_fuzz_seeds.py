#!/usr/bin/env python3
"""Writes seed inputs for the libFuzzer targets into OUTDIR/<target>/.

  fuzz_capture_reader, fuzz_pipeline: every capture in testdata/ and testdata/hostile/
  fuzz_http_parser: [split][flags] + HTTP streams (requests, responses, chunked, 100 Continue)
  fuzz_soap_decoder: SOAP envelopes, faults, DTD/entity/XInclude attacks
  fuzz_content_decoder: [selector] + gzip / deflate / identity bodies
  fuzz_tls_records: [split][flags] + TLS record streams (handshake flights, data, alerts, bad lengths)
  fuzz_tls_handshake: [split] + ClientHello / ServerHello bodies and handshake record bodies
  fuzz_tls_keylog: NSS key logs (good, malformed, CRLF, comments)
python3 stdlib only.
"""
import glob
import gzip
import os
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_hostile_corpus as corpus  # noqa: E402
import hostile_tls_cases as tlsgen  # noqa: E402
from pcapgen import envelope, request, response  # noqa: E402


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


def main():
    out = sys.argv[1]
    testdata = os.path.normpath(os.path.join(HERE, "..", "..", "testdata"))
    captures = sorted(glob.glob(os.path.join(testdata, "*.pcap*")) + glob.glob(os.path.join(testdata, "hostile", "*.pcap*")))
    for target in ("fuzz_capture_reader", "fuzz_pipeline"):
        os.makedirs(os.path.join(out, target), exist_ok=True)
        for c in captures:
            if os.path.getsize(c) <= (1 << 20):
                shutil.copy(c, os.path.join(out, target))

    http = os.path.join(out, "fuzz_http_parser")
    fault = envelope("Fault", "<faultcode>soap:Server</faultcode><faultstring>boom</faultstring>")
    streams = {
        "post": request(),
        "pipelined": request() * 2 + b"GET / HTTP/1.0\r\n\r\n",
        "expect": request(extra=[b"Expect: 100-continue"]),
        "chunked-req": b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n",
        "resp": response(),
        "resp-continue": b"HTTP/1.1 100 Continue\r\n\r\n" + response(fault, status=b"500 Internal Server Error"),
        "resp-chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "resp-close": b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close",
        "resp-head-204": b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
        "resp-101": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n\x00\x01binary",
        "folded": b"GET / HTTP/1.1\r\nX: a\r\n  b\r\nContent-Length: 1, 1\r\n\r\nZ",
    }
    for name, data in streams.items():
        write(http, name, b"\x80\x00" + data)
        write(http, name + "-gap", b"\x40\x05" + data)
        write(http, name + "-eos", b"\xc0\x02" + data)

    soap = os.path.join(out, "fuzz_soap_decoder")
    docs = {
        "request": envelope(),
        "fault11": fault,
        "fault12": b'<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><e:Fault><e:Code><e:Value>'
                   b"e:Sender</e:Value></e:Code><e:Reason><e:Text>bad</e:Text></e:Reason></e:Fault></e:Body></e:Envelope>",
        "billion-laughs": corpus.BILLION_LAUGHS,
        "xxe": corpus.XXE_FILE,
        "xxe-dtd": corpus.XXE_DTD,
        "xxe-param": corpus.XXE_PARAM,
        "xinclude": corpus.XINCLUDE,
        "utf16": b"\xff\xfe" + envelope().decode().replace("utf-8", "UTF-16").encode("utf-16-le"),
        "cdata": envelope(inner="<![CDATA[<x>&amp;</x>]]>&lt;&#65;"),
        "deep": b"<a>" * 300,
    }
    for name, data in docs.items():
        write(soap, name, data)

    content = os.path.join(out, "fuzz_content_decoder")
    body = envelope() * 20
    write(content, "gzip", b"\x00" + gzip.compress(body, mtime=0))
    write(content, "gzip-two-members", b"\x00" + gzip.compress(body, mtime=0) * 2)
    write(content, "deflate-zlib", b"\x01" + zlib.compress(body))
    write(content, "deflate-raw", b"\x01" + zlib.compress(body)[2:-4])
    write(content, "identity", b"\x02" + body)
    write(content, "bomb", b"\x20" + gzip.compress(b"\0" * (4 << 20), mtime=0))

    tls = os.path.join(out, "fuzz_tls_records")
    flight = (tlsgen.record(22, tlsgen.client_hello(), 0x0301)
              + tlsgen.record(22, tlsgen.server_hello() + tlsgen.handshake(11, tlsgen.filler(900, 1))
                              + tlsgen.handshake(14, b""))
              + tlsgen.record(20, b"\x01") + tlsgen.record(22, tlsgen.filler(40, 2)))
    records = {
        "handshake": flight,
        "data": b"".join(tlsgen.app_data(100 + i * 300, i) for i in range(6)),
        "alerts": tlsgen.record(21, b"\x02\x28") + tlsgen.app_data(50, 3) + tlsgen.record(21, b"\x01\x00"),
        "too-long": tlsgen.app_data(40, 4) + b"\x17\x03\x03\x48\x01" + b"\0" * 64 + tlsgen.app_data(40, 5) * 2,
        "fragmented": tlsgen.record(22, tlsgen.client_hello()[:9]) + tlsgen.record(22, tlsgen.client_hello()[9:]),
    }
    for name, data in records.items():
        write(tls, name, b"\x80\x00" + data)
        write(tls, name + "-gap", b"\x40\x07" + data)

    hs = os.path.join(out, "fuzz_tls_handshake")
    write(hs, "client-hello", b"\x40" + tlsgen.client_hello()[4:])
    write(hs, "server-hello", b"\x40" + tlsgen.server_hello()[4:])
    write(hs, "messages", b"\x10" + tlsgen.client_hello() + tlsgen.server_hello() + tlsgen.handshake(14, b""))

    kl = os.path.join(out, "fuzz_tls_keylog")
    rnd, secret = "ab" * 32, "cd" * 48
    write(kl, "tls12", ("CLIENT_RANDOM %s %s\n" % (rnd, secret)).encode())
    write(kl, "tls13", "".join("%s %s %s\n" % (label, rnd, "ef" * 32) for label in (
        "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0",
        "SERVER_TRAFFIC_SECRET_0", "CLIENT_EARLY_TRAFFIC_SECRET", "EXPORTER_SECRET")).encode())
    write(kl, "malformed", b"# c\r\nCLIENT_RANDOM zz 11\r\nCLIENT_RANDOM\n\n\tCLIENT_RANDOM  a b c d\n")


if __name__ == "__main__":
    main()
