#!/usr/bin/env python3
"""Independent wire check of a labelled HTTPS capture (python3 stdlib + tshark with the key log).

tshark decrypts the capture with NAME.keys and names the HTTP requests and final responses; the TCP
segments give the Nagle/delayed-ACK stalls (wirecheck.py's signature: the stall does not depend on what
the bytes are), each with the side that held data. Per connection: full or resumed handshake, the
server's handshake flight (bytes and segments against a 10-segment initial window), TLS 1.3 tickets.
This is a test oracle for our own captures, not StallScope's analyzer.

  tls_wirecheck.py FILE.pcap KEYLOG        -> JSON on stdout
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import wirecheck  # noqa: E402

INITIAL_WINDOW_SEGMENTS = 10   # Linux initcwnd (RFC 6928)


def tls_frames(path, keylog):
    fields = ["frame.number", "frame.time_relative", "tcp.stream", "tcp.srcport", "tls.record.content_type",
              "tls.handshake.type", "http.request.method", "http.response.code", "tls.record.version",
              "tls.handshake.extensions_server_name", "tls.handshake.ciphersuite"]
    cmd = ["tshark", "-r", path, "-o", f"tls.keylog_file:{keylog}", "-o", "tcp.desegment_tcp_streams:TRUE",
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        v = line.split("\t")
        if len(v) < len(fields) or not v[2]:
            continue
        ints = lambda x: [int(a, 0) for a in x.split(",") if a]  # noqa: E731
        rows.append({"frame": int(v[0]), "t": float(v[1]), "stream": int(v[2]), "sport": int(v[3]),
                     "ct": ints(v[4]), "hs": ints(v[5]), "req": v[6], "resp": ints(v[7]), "sni": v[9]})
    return rows


def flight_ack_wait(ss, client, flight):
    """The longest gap (ms) between two of the flight's server segments with a client ACK (no data)
    between them: the server waiting for its congestion window to open."""
    if not flight:
        return 0.0
    inside = [s for s in ss if flight[0]["t"] <= s["t"] <= flight[-1]["t"]]
    best, prev, acked = 0.0, None, False
    for s in inside:
        if s["src"] == client:
            acked = acked or (prev is not None and s["len"] == 0)
            continue
        if s["len"] == 0:
            continue
        if prev is not None and acked:
            best = max(best, (s["t"] - prev["t"]) * 1000)
        prev, acked = s, False
    return round(best, 3)


def handshake_rtt(ss, client):
    """SYN -> the client's ACK of the SYN-ACK (ms), as seen at the capture point; 0 when not captured."""
    syn = next((s for s in ss if s["syn"] and s["ack"] == 0), None)
    synack = next((s for s in ss if s["syn"] and s["src"] != client), None)
    ack = next((s for s in ss if synack and s["src"] == client and not s["syn"] and s["t"] >= synack["t"]), None)
    return round((ack["t"] - syn["t"]) * 1000, 3) if syn and ack else 0.0


def check(path, keylog):
    segs = wirecheck.load(path)
    frames = tls_frames(path, keylog)
    by_stream, seg_stream = {}, {}
    for r in frames:
        by_stream.setdefault(r["stream"], []).append(r)
    for s in segs:
        seg_stream.setdefault(s["stream"], []).append(s)
    calls, conns, stalls = [], [], []
    for sid, ss in sorted(seg_stream.items()):
        syn = next((s for s in ss if s["syn"] and s["ack"] == 0), None)
        client = syn["src"] if syn else ss[0]["src"]
        rows = by_stream.get(sid, [])
        cport = client[1]
        full = any(11 in r["hs"] for r in rows)              # a Certificate message: a full handshake
        tickets = [r["frame"] for r in rows if 4 in r["hs"] and r["sport"] != cport]
        # The server's first flight: its data segments from the SYN-ACK up to the client's first data after it.
        first_cli = next((s for s in ss if s["src"] == client and s["len"] > 0), None)
        second_cli = next((s for s in ss if s["src"] == client and s["len"] > 0 and first_cli and s["t"] > first_cli["t"]), None)
        flight = [s for s in ss if s["src"] != client and s["len"] > 0 and (not second_cli or s["t"] < second_cli["t"])]
        mss = (syn["mss"] if syn and syn["mss"] else 65495) - 12
        conns.append({"stream": sid, "full_handshake": full, "sni": next((r["sni"] for r in rows if r["sni"]), ""),
                      "server_flight_bytes": sum(s["len"] for s in flight), "server_flight_segments": len(flight),
                      "initial_window_bytes": INITIAL_WINDOW_SEGMENTS * mss, "ticket_frames": tickets,
                      "flight_ack_wait_ms": flight_ack_wait(ss, client, flight), "rtt_ms": handshake_rtt(ss, client)})
        # Calls: a POST (decrypted) ends the request; the first client application-data record after the
        # previous final response starts it; the final response's frame ends the call.
        start = None
        for r in rows:
            if r["sport"] == cport and 23 in r["ct"] and start is None:
                start = r
            if r["req"]:
                calls.append({"stream": sid, "start_frame": start["frame"] if start else r["frame"],
                              "start_t": start["t"] if start else r["t"], "request_frame": r["frame"]})
            if any(c >= 200 for c in r["resp"]) and r["sport"] != cport and calls and calls[-1]["stream"] == sid \
                    and "end_frame" not in calls[-1]:
                calls[-1].update(end_frame=r["frame"], latency_ms=round((r["t"] - calls[-1]["start_t"]) * 1000, 3))
                start = None
        first_call = next((c for c in calls if c["stream"] == sid), None)
        for st in wirecheck.nagle_stalls(ss, client):
            st["stream"] = sid
            st["ticket"] = any(st["frame_a"] == f for f in tickets)
            # Held before the connection's first request record left (e.g. behind the client's Finished):
            # connection setup time, not inside a call.
            st["in_setup"] = bool(first_call) and st["frame_b"] <= first_call["start_frame"]
            stalls.append(st)
    for c in calls:
        c.pop("start_t")
    return {"file": path, "calls": len(calls), "connections": len(conns), "calls_detail": calls,
            "connections_detail": conns,
            "stalls": [{k: v for k, v in s.items() if k != "t"} for s in stalls]}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tls_wirecheck.py FILE.pcap KEYLOG")
    print(json.dumps(check(sys.argv[1], sys.argv[2]), indent=1))
