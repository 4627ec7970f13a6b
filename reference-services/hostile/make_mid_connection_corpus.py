#!/usr/bin/env python3
"""Writes testdata/mid-connection/: keep-alive connections whose capture began
after the handshake (issue 24), one capture per shape, and what a correct
analysis reports for each, in the expectations.json format of the hostile
corpus (checked by testdata/hostile/run_corpus.py --dir testdata/mid-connection).

  make_mid_connection_corpus.py [OUTDIR]

Shapes: the capture begins inside a request, inside a response (the client's
first ACK shows the server bytes missed; the response that began there
belongs to the first captured request), between two calls, with pipelined
requests, with chunked bodies, and inside a response at a point where the
client's ACK comes after the first server bytes (nothing to place earlier).
Each response carries its own status (200 for /r1, 202 for /r2, 203 for /r3)
so a wrong pairing shows. python3 stdlib only; deterministic output.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hostile_corpus import corpus_main, expect  # noqa: E402
from pcapgen import ACK, FIN, PSH, Capture, Flow, pcap_bytes  # noqa: E402

CASES = {}
STATUS = {b"/r1": b"200 OK", b"/r2": b"202 Accepted", b"/r3": b"203 Non-Authoritative Information"}
SERVER_NS = 2_000_000  # each response segment 2 ms apart: a call takes about 6 ms, a wrong pairing far more


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def req(uri):
    return b"GET " + uri + b" HTTP/1.1\r\nHost: 10.0.2.2\r\n\r\n"


def resp(uri, body_len=3000, chunked=False):
    body = (b"<r>" + uri + b"</r>").ljust(body_len, b".")
    head = b"HTTP/1.1 " + STATUS[uri] + b"\r\nContent-Type: text/xml\r\n"
    if not chunked:
        return head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    out = head + b"Transfer-Encoding: chunked\r\n\r\n"
    for i in range(0, len(body), 700):
        part = body[i:i + 700]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def late_flow(cap):
    """A keep-alive connection already open when the capture began: no handshake."""
    return Flow(cap, client=("10.0.2.1", 43000), server=("10.0.2.2", 80), isn_c=7000, isn_s=900000)


def skip(f, from_client, n):
    """`n` bytes of one direction sent before the capture began (or while it missed them)."""
    f.nxt[from_client] = (f.nxt[from_client] + n) & 0xFFFFFFFF


def full_call(f, uri, chunked=False):
    f.send(True, req(uri))
    f.ack(False)
    f.send(False, resp(uri, chunked=chunked), dt_ns=SERVER_NS)
    f.ack(True)


def close(f):
    f.seg(True, FIN | ACK)
    f.seg(False, FIN | ACK)
    f.seg(True, ACK)


def checks_for(calls, max_ms=7):
    """calls: [(uri, status or None)]; None = incomplete (its response began before the capture)."""
    out = [["calls.#", "==", len(calls)]]
    for i, (uri, status) in enumerate(calls):
        out.append(["calls.%d.uri" % i, "==", uri])
        if status is None:
            out.append(["calls.%d.complete" % i, "==", False])
            out.append(["calls.%d.latency_ms" % i, "==", None])
        else:
            out.append(["calls.%d.status" % i, "==", status])
            out.append(["calls.%d.complete" % i, "==", True])
            out.append(["calls.%d.latency_ms" % i, "<=", max_ms])
    return out


def response_missed_head(chunked):
    """The first captured request's response began in server bytes the capture
    missed: the request's ACK places the server's stream, the first captured
    server bytes are a body continuation 1000 bytes further on."""
    cap = Capture()
    f = late_flow(cap)
    f.send(True, req(b"/r1"))                    # ACKs the server's stream up to where /r1's response will begin
    skip(f, False, 1000)                         # its head and first bytes: never captured
    f.send(False, resp(b"/r1", chunked=chunked)[1000:], dt_ns=SERVER_NS)
    f.ack(True)
    full_call(f, b"/r2", chunked)
    full_call(f, b"/r3", chunked)
    close(f)
    return pcap_bytes(cap)


@case("mid-response.pcap")
def _():
    return response_missed_head(False), expect(
        checks=checks_for([("/r1", None), ("/r2", 202), ("/r3", 203)]),
        warnings=["began before the capture", "1000 server bytes", "no response captured for the request"],
        what="the response to the first captured request began in 1000 server bytes the capture missed (its "
             "ACK places them): that call is incomplete, /r2 and /r3 get their own responses, not the next one")


@case("mid-response-chunked.pcap")
def _():
    return response_missed_head(True), expect(
        checks=checks_for([("/r1", None), ("/r2", 202), ("/r3", 203)]),
        warnings=["began before the capture", "1000 server bytes", "no response captured for the request"],
        what="as mid-response.pcap with chunked bodies: the continuation's chunk lines do not resynchronise "
             "the pairing")


@case("mid-request.pcap")
def _():
    cap = Capture()
    f = late_flow(cap)
    r1 = req(b"/r1")
    skip(f, True, 10)                            # the request line's start was sent before the capture
    f.send(True, r1[10:])
    f.ack(False)
    f.send(False, resp(b"/r1"), dt_ns=SERVER_NS)
    f.ack(True)
    full_call(f, b"/r2")
    full_call(f, b"/r3")
    close(f)
    return pcap_bytes(cap), expect(
        checks=checks_for([("/r2", 202), ("/r3", 203)]),
        warnings=["began before the capture", "response without a request"],
        what="the capture began inside a request line: that call has no request and is no call (warned); the "
             "response to it answers none of the later requests")


@case("between-calls.pcap")
def _():
    cap = Capture()
    f = late_flow(cap)
    full_call(f, b"/r2")
    full_call(f, b"/r3")
    close(f)
    return pcap_bytes(cap), expect(
        checks=checks_for([("/r2", 202), ("/r3", 203)]),
        warnings=["began before the capture", "no bytes missed"],
        absent=["no response captured", "response without a request"],
        what="the capture began between two calls: nothing is missing, both calls are whole")


@case("mid-response-pipelined.pcap")
def _():
    cap = Capture()
    f = late_flow(cap)
    f.send(True, req(b"/r1"))                    # two requests back to back: the same ACK
    f.send(True, req(b"/r2"))
    f.ack(False)
    skip(f, False, 1000)                         # /r1's response head: never captured
    f.send(False, resp(b"/r1")[1000:], dt_ns=SERVER_NS)
    f.send(False, resp(b"/r2"), dt_ns=SERVER_NS)     # each response written apart, as servers do
    f.ack(True)
    full_call(f, b"/r3")
    close(f)
    return pcap_bytes(cap), expect(
        checks=checks_for([("/r1", None), ("/r2", 202), ("/r3", 203)], max_ms=11),  # /r2 waits behind /r1's tail
        warnings=["began before the capture", "1000 server bytes", "no response captured for the request"],
        what="pipelined requests, the first one's response head missed: the next response answers the second "
             "request (the hole holds the first one's response)")


@case("mid-response-no-earlier-ack.pcap")
def _():
    cap = Capture()
    f = late_flow(cap)
    f.send(False, resp(b"/r1")[1200:], dt_ns=SERVER_NS)  # the first packet: a body continuation
    f.ack(True)                                           # the client's ACK comes after it
    full_call(f, b"/r2")
    full_call(f, b"/r3")
    close(f)
    return pcap_bytes(cap), expect(
        checks=checks_for([("/r2", 202), ("/r3", 203)]),
        warnings=["began before the capture", "end a message begun before the capture"],
        absent=["response without a request", "no response captured"],
        what="the capture began inside a response whose request was not captured, the client's first ACK after "
             "it: the continuation is skipped (warned), the later calls pair right")


if __name__ == "__main__":
    corpus_main(__doc__, CASES, "mid-connection")
