#!/usr/bin/env python3
"""Writes testdata/http-parsing/: captures of HTTP/1.x traffic that other
tools' users send (issue 13) and what a correct analysis reports for each,
in the expectations.json format of the hostile corpus (checked by
testdata/hostile/run_corpus.py --dir testdata/http-parsing).

  make_http_parsing_corpus.py [OUTDIR]

Classes: a request typed one byte per segment or split after 1-3 bytes,
extension methods, a malformed request line followed by good requests in
the same segment, lenient forms (several spaces, lower-case http/1.1, bare
LF), TCP that is not HTTP (SMTP, a speed test, HTTP/0.9), a CONNECT tunnel,
a 101 seen without its request,
SOAP in UTF-16 and UTF-32 with a byte-order mark, and a body declared XML
that is not. python3 stdlib only; deterministic output.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hostile_corpus import corpus_main, expect  # noqa: E402
from pcapgen import Capture, Flow, envelope, pcap_bytes, request, response  # noqa: E402

CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def flow(cap, n=0, port=80):
    f = Flow(cap, client=("10.0.1.1", 41000 + n), server=("10.0.1.2", port))
    f.handshake()
    return f


def get(uri):
    return b"GET " + uri + b" HTTP/1.1\r\nHost: 10.0.1.2\r\n\r\n"


def ok(body=b"ok"):
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body


def in_pieces(f, data, cuts):
    """Sends `data` from the client cut at the given offsets (a segment each)."""
    prev = 0
    for c in list(cuts) + [len(data)]:
        if c > prev:
            f.send(True, data[prev:c])
            f.ack(False)
        prev = c


def widen(text, width, big_endian):
    """Text in UTF-16/UTF-32 with a byte-order mark."""
    codec = {2: "utf-16", 4: "utf-32"}[width] + ("-be" if big_endian else "-le")
    return "\ufeff".encode(codec) + text.encode(codec)


@case("typed-request.pcap")
def _():
    cap = Capture()
    f = flow(cap)
    req = b"GET /typed HTTP/1.1\nHost: 10.0.1.2\n\n"  # typed by hand: bare LF
    in_pieces(f, req, range(1, len(req)))
    f.send(False, ok(), dt_ns=2_000_000)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 1], ["calls.0.method", "==", "GET"], ["calls.0.uri", "==", "/typed"],
                ["calls.0.complete", "==", True], ["calls.0.status", "==", 200]],
        warnings=["bare LF"], absent=["response without a request"],
        what="a request typed one byte per segment (telnet), bare LF line ends")


@case("split-method.pcap")
def _():
    cap = Capture()
    for n in (1, 2, 3):
        f = flow(cap, n)
        in_pieces(f, request(), [n])
        f.send(False, response(), dt_ns=2_000_000)
        f.ack(True)
        f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 3]] + [[f"calls.{i}.method", "==", "POST"] for i in range(3)] +
               [[f"calls.{i}.complete", "==", True] for i in range(3)] +
               [[f"calls.{i}.operation", "==", "GetQuote"] for i in range(3)],
        absent=["response without a request"],
        what="three connections whose request is split after 1, 2 and 3 bytes ('P|OST', 'PO|ST', 'POS|T')")


@case("extension-methods.pcap")
def _():
    cap = Capture()
    f = flow(cap)
    f.call(b"CCM_POST /cgi HTTP/1.1\r\nHost: 10.0.1.2\r\nContent-Length: 3\r\n\r\nabc", ok())
    f.call(b"M-SEARCH * HTTP/1.1\r\nHost: 10.0.1.2\r\n\r\n", ok())
    f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 2], ["calls.0.method", "==", "CCM_POST"], ["calls.1.method", "==", "M-SEARCH"],
                ["calls.1.complete", "==", True]],
        what="extension methods with '_' and '-' (RFC 9110 tokens)")


@case("malformed-line-then-requests.pcap")
def _():
    cap = Capture()
    f = flow(cap)
    f.call(get(b"/0"), ok())
    # One segment: a broken request line, then two good pipelined requests.
    f.send(True, b"BROKEN REQUEST LINE\r\n\r\n" + get(b"/a") + get(b"/b"))
    f.ack(False)
    f.send(False, ok(b"A") + ok(b"B"), dt_ns=2_000_000)
    f.ack(True)
    f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 3], ["calls.1.uri", "==", "/a"], ["calls.2.uri", "==", "/b"],
                ["calls.2.complete", "==", True]],
        warnings=["not HTTP/1.x"],
        what="a malformed request line skipped with a warning; the two requests after it in the same segment are found")


@case("lenient-forms.pcap")
def _():
    cap = Capture()
    f = flow(cap)
    f.call(b"GET   /x   HTTP/1.1\nHost: 10.0.1.2\n\n",
           b"http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 1], ["calls.0.uri", "==", "/x"], ["calls.0.status", "==", 200],
                ["calls.0.complete", "==", True]],
        warnings=["extra whitespace", "bare LF", "lower-case HTTP version"],
        what="several spaces in the request line, bare LF, lower-case 'http/1.1' status line: accepted, warned")


@case("not-http.pcap")
def _():
    cap = Capture()
    smtp = flow(cap, 1, 25)
    for c, s in ((None, b"220 mail.example.org ESMTP\r\n"), (b"EHLO client.example.org\r\n", b"250 mail\r\n"),
                 (b"QUIT\r\n", b"221 bye\r\n")):
        if c:
            smtp.send(True, c)
        smtp.send(False, s)
    smtp.close()
    speed = flow(cap, 2, 8080)
    for c, s in ((b"HI\n", b"HELLO 2.9 (2.9) 2022-01-01.1234.5678\n"), (b"PING 1640995200\n", b"PONG 1640995200\n")):
        speed.send(True, c)
        speed.send(False, s)
    speed.close()
    old = flow(cap, 3)
    old.send(True, b"GET /\r\n")
    old.send(False, b"<html>HTTP/0.9 has no status line</html>")
    old.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 0]], warnings=["first line is not an HTTP/1.x request line"],
        what="SMTP, a speed test's HI/PING and an HTTP/0.9 'GET /': not calls (only the HTTP/0.9 attempt is warned)")


@case("connect-tunnel.pcap")
def _():
    cap = Capture()
    f = flow(cap, 0, 3128)
    f.call(b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n",
           b"HTTP/1.1 200 Connection established\r\n\r\n")
    f.send(True, b"\x16\x03\x01\x00\x05hello GET / HTTP/1.1\r\n\r\n")  # looks like anything: it is TLS
    f.send(False, b"\x16\x03\x03\x00\x05world HTTP/1.1 200 OK\r\n\r\n")
    f.close()
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 1], ["calls.0.method", "==", "CONNECT"], ["calls.0.status", "==", 200]],
        absent=["request stream:", "response stream:", "response without a request"],
        what="CONNECT 200 puts both directions into tunnel mode: the TLS bytes are neither parsed nor warned about")


@case("upgrade-before-capture.pcap")
def _():
    cap = Capture()
    f = Flow(cap, client=("10.0.1.1", 41000), server=("10.0.1.2", 80))  # no handshake: capture began late
    f.send(False, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    f.send(True, b"\x81\x20GET /inside HTTP/1.1\r\nHost: x\r\n\r\n")
    f.send(True, b"GET /also-inside HTTP/1.1\r\nHost: x\r\n\r\n")  # a WebSocket payload, not a request
    return pcap_bytes(cap), expect(
        checks=[["calls.#", "==", 0]], absent=["also-inside"],
        what="capture began after the upgrade request: the 101 puts the client direction into tunnel mode "
             "before a request was ever seen, so text inside the WebSocket frames is no call")


def soap_call(req_body, resp_body):
    cap = Capture()
    f = flow(cap)
    f.call(request(req_body), response(resp_body))
    f.close()
    return pcap_bytes(cap)


def fault(code):
    return ('<?xml version="1.0" encoding="utf-16"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/'
            'envelope/"><soap:Body><soap:Fault><faultcode>%s</faultcode><faultstring>no</faultstring></soap:Fault>'
            '</soap:Body></soap:Envelope>' % code)


@case("soap-utf16-bom.pcap")
def _():
    req = widen(envelope(prolog='<?xml version="1.0" encoding="utf-16"?>\n').decode(), 2, False)
    return soap_call(req, widen(fault("soap:Server"), 2, True)), expect(
        checks=[["calls.#", "==", 1], ["calls.0.operation", "==", "GetQuote"], ["calls.0.soap_error", "==", None],
                ["calls.0.fault.code", "==", "soap:Server"]],
        what="SOAP request in UTF-16LE and fault in UTF-16BE, each with a byte-order mark (Windows clients)")


@case("soap-utf32-bom.pcap")
def _():
    req = widen(envelope(prolog='<?xml version="1.0" encoding="utf-32"?>\n').decode(), 4, False)
    return soap_call(req, None), expect(
        checks=[["calls.#", "==", 1], ["calls.0.operation", "==", "GetQuote"], ["calls.0.soap_error", "==", None]],
        what="SOAP request in UTF-32LE with a byte-order mark")


@case("soap-not-xml.pcap")
def _():
    return soap_call(b'{"symbol": "IBM"}', None), expect(
        checks=[["calls.#", "==", 1], ["calls.0.soap_error", "contains", "body is not XML"]],
        what="Content-Type text/xml and a SOAPAction, but a JSON body: soap_error says why it was not decoded")


if __name__ == "__main__":
    corpus_main(__doc__, CASES, "http-parsing")
