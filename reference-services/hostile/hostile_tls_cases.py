"""Hostile HTTPS captures for testdata/hostile (issue 25): TLS record framing
and handshake parsing under bogus lengths, records past 2^14+2048, fragmented
and interleaved handshake messages, truncated records, alerts in the middle,
and key material that does not fit (pcapng Decryption Secrets Blocks with a
wrong key, malformed key-log lines, an unsupported secrets type, a connection
whose handshake was not captured). No cryptography: the "encrypted" records
are deterministic filler, which is exactly what a wrong key looks like.

register(case, expect) adds the cases to make_hostile_corpus.py's registry.
python3 stdlib only; deterministic output.
"""
import struct

from pcapgen import ACK, FIN, PSH, LINKTYPE_ETHERNET, Capture, Flow, ng_block, ng_epb, ng_idb, ng_shb

CLIENT_RANDOM = bytes(range(0x20, 0x40))
SERVER_RANDOM = bytes(range(0x40, 0x60))
WRONG_MASTER = bytes(range(0x90, 0x90 + 48))
SECRETS_TLSK = 0x544C534B


def u16(n):
    return struct.pack(">H", n)


def record(ctype, body, version=0x0303):
    return bytes([ctype]) + u16(version) + u16(len(body)) + body


def handshake(htype, body):
    return bytes([htype]) + struct.pack(">I", len(body))[1:] + body


def ext(etype, data):
    return u16(etype) + u16(len(data)) + data


def client_hello(extensions=None, random=CLIENT_RANDOM):
    if extensions is None:
        name = b"soap.example.com"
        extensions = ext(0, u16(len(name) + 3) + b"\x00" + u16(len(name)) + name)
        extensions += ext(16, u16(9) + b"\x08http/1.1")
    body = u16(0x0303) + random + b"\x00" + u16(2) + u16(0xC02F) + b"\x01\x00" + u16(len(extensions)) + extensions
    return handshake(1, body)


def server_hello(suite=0xC02F):
    return handshake(2, u16(0x0303) + SERVER_RANDOM + b"\x00" + u16(suite) + b"\x00" + u16(0))


def filler(n, seed):
    return bytes((seed + i * 131) & 0xFF for i in range(n))


def tls_flow(cap=None, **kw):
    cap = cap or Capture()
    f = Flow(cap, server=("10.0.0.2", 443), **kw)
    return cap, f


def tls12_handshake(f):
    """A TLS 1.2 handshake (ECDHE-RSA-AES128-GCM-SHA256) with filler where it is encrypted."""
    f.send(True, record(22, client_hello(), 0x0301))
    f.ack(False)
    f.send(False, record(22, server_hello() + handshake(11, filler(1200, 1)) + handshake(14, b"")))
    f.ack(True)
    f.send(True, record(22, handshake(16, filler(66, 2))) + record(20, b"\x01") + record(22, filler(40, 3)))
    f.send(False, record(20, b"\x01") + record(22, filler(40, 4)))


def app_data(n, seed):
    return record(23, filler(n, seed))


def pcap_of(cap):
    from pcapgen import pcap_bytes
    return pcap_bytes(cap)


def pcapng_with_secrets(cap, secrets, secrets_type=SECRETS_TLSK, first=True):
    """A pcapng whose Decryption Secrets Block comes before the packets (or after the first two)."""
    dsb = ng_block(0x0000000A, struct.pack("<II", secrets_type, len(secrets)) + secrets)
    frames = [ng_epb(0, ts, data, "<", orig) for ts, data, orig in cap.frames]
    head = ng_shb() + ng_idb(LINKTYPE_ETHERNET)
    if first:
        return head + dsb + b"".join(frames)
    return head + b"".join(frames[:2]) + dsb + b"".join(frames[2:])


def register(case, expect):
    @case("tls-record-too-long.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        f.send(True, record(22, client_hello(), 0x0301))
        f.send(True, b"\x17\x03\x03\x48\x01" + filler(300, 5))  # 0x4801 = 18433 > 2^14+2048
        f.close()
        return pcap_of(cap), expect(0, ["tls-record-too-long.pcap", "record framing lost"], ["record_too_long"],
                                    [["calls.#", "==", 0]],
                                    what="a record length of 18433 (past 2^14+2048) after a ClientHello: desync, named")

    @case("tls-bogus-hello-lengths.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        ch = bytearray(client_hello())
        ch[-12] = 0xFF  # the ALPN extension's length (11) made 255: past the message
        f.send(True, record(22, bytes(ch), 0x0301))
        f.ack(False)
        f.close()
        return pcap_of(cap), expect(0, ["tls-bogus-hello-lengths.pcap", "not understood"], ["malformed_handshake"],
                                    [["calls.#", "==", 0]],
                                    what="a ClientHello whose extension length runs past the message")

    @case("tls-fragmented-interleaved-handshake.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        ch = client_hello()
        # The ClientHello in three handshake records, a warning alert between
        # the second and third; two of them in one segment.
        f.send(True, record(22, ch[:7], 0x0301))
        f.send(True, record(22, ch[7:40], 0x0301) + record(21, b"\x01\x00", 0x0301))
        f.send(True, record(22, ch[40:], 0x0301))
        f.ack(False)
        sh_flight = server_hello() + handshake(11, filler(3000, 6)) + handshake(14, b"")
        # The server's flight: one handshake message over three records, records over segments.
        recs = record(22, sh_flight[:100]) + record(22, sh_flight[100:2000]) + record(22, sh_flight[2000:])
        f.send(False, recs, mss=700)
        f.ack(True)
        f.close()
        return pcap_of(cap), expect(0, [], [], [["calls.#", "==", 0]],
                                    absent=["framing lost", "not understood"],
                                    what="handshake messages fragmented over records and segments, an alert between")

    @case("tls-truncated-record.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        tls12_handshake(f)
        f.send(True, app_data(200, 7))
        f.send(True, app_data(3000, 8)[:500])  # the connection ends inside the record
        f.close()
        return pcap_of(cap), expect(0, [], [], [], absent=["framing lost"],
                                    what="a 3000-byte record cut after 500 bytes by the end of the connection")

    @case("tls-alerts-in-the-middle.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        tls12_handshake(f)
        f.send(True, app_data(300, 9))
        f.send(False, record(21, filler(26, 10)) + app_data(400, 11))  # an encrypted alert, then data
        f.send(True, record(21, b"\x02\x28", 0x0303))  # a clear fatal alert mid-stream
        f.send(False, app_data(100, 12))
        f.close()
        return pcap_of(cap), expect(0, [], [], [], absent=["framing lost"],
                                    what="alerts (encrypted and clear) between application data records")

    @case("tls-gap.pcap")
    def _():
        cap, f = tls_flow()
        f.handshake()
        tls12_handshake(f)
        stream = b"".join(app_data(700 + 37 * i, 20 + i) for i in range(8))
        f.send_losing(True, stream, lost_at=1000, size=1000)
        f.ack(False)
        f.send(False, app_data(500, 40))
        f.close()
        return pcap_of(cap), expect(0, [], [], [], absent=["framing lost"],
                                    what="a segment of the client's TLS stream never captured (records resynchronise)")

    @case("tls-dsb-wrong-key.pcapng")
    def _():
        cap, f = tls_flow()
        f.handshake()
        tls12_handshake(f)
        f.send(True, app_data(8 + 150 + 16, 13))
        f.ack(False)
        f.send(False, app_data(8 + 400 + 16, 14))
        f.close()
        keylog = b"CLIENT_RANDOM %s %s\n" % (CLIENT_RANDOM.hex().encode(), WRONG_MASTER.hex().encode())
        return pcapng_with_secrets(cap, keylog), expect(
            0, ["tls-dsb-wrong-key.pcapng", "failed authentication"], ["failed authentication"], [],
            absent=[WRONG_MASTER.hex(), WRONG_MASTER.hex().upper(), "CLIENT_RANDOM"],
            what="embedded secrets for this connection's client random, but the wrong master secret")

    @case("tls-dsb-malformed-keylog.pcapng")
    def _():
        cap, f = tls_flow()
        f.handshake()
        tls12_handshake(f)
        f.send(True, app_data(100, 15))
        f.close()
        keylog = (b"CLIENT_RANDOM " + b"zz" * 32 + b" " + b"ab" * 48 + b"\n"
                  b"CLIENT_HANDSHAKE_TRAFFIC_SECRET " + CLIENT_RANDOM.hex().encode() + b" c0ffee\n"
                  b"# a comment\nEXPORTER_SECRET x y\n")
        data = pcapng_with_secrets(cap, keylog, first=False)
        # A second block of a type StallScope does not read (WireGuard keys).
        data += ng_block(0x0000000A, struct.pack("<II", 0x57474B4C, 8) + b"\x00" * 8)
        return data, expect(
            0, ["tls-dsb-malformed-keylog.pcapng"],
            ["line 1 is not a valid key log line", "line 2 is not a valid key log line", "unsupported type"], [],
            absent=["abababab", "c0ffee", "zzzz"],
            what="a secrets block in the middle with malformed key-log lines, and one of an unsupported type")

    @case("tls-handshake-not-captured.pcapng")
    def _():
        cap, f = tls_flow(isn_c=7000, isn_s=90000)
        # The capture starts mid-connection: no SYN, no hellos, only records.
        f.send(True, app_data(200, 16))
        f.ack(False)
        f.send(False, app_data(600, 17))
        f.ack(True)
        keylog = b"CLIENT_RANDOM %s %s\n" % (bytes(32).hex().encode(), WRONG_MASTER.hex().encode())
        return pcapng_with_secrets(cap, keylog), expect(
            0, ["tls-handshake-not-captured.pcapng"], ["handshake not captured"], [],
            absent=[WRONG_MASTER.hex()],
            what="secrets given, but the capture began after the TLS handshake")
